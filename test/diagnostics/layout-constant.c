// A sizeof or offsetof of a compact type that no rewrite can give its
// compact value is refused, where the wide value would size a memset or a
// copy of a compact object wrongly: in an enumerator (every mode with
// handles), and in a static initializer in switchable mode (the layout
// is known only at run time; compact-only rewrites those).  A
// _Static_assert with a message inside a function is fine (the engine
// once crashed on its string).
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Xclang -verify=expected,co %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=switchable -fsyntax-only -Xclang -verify=expected,sw %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=wide -fsyntax-only -Xclang -verify=wide %s
// wide-no-diagnostics
#include <compactptr.h>
#include <stddef.h>
#include <string.h>

struct CP_COMPACT node { struct node *next; int key; };

enum { NODE_BYTES = sizeof(struct node) }; // expected-error {{this sizeof of a compact type in an enumerator keeps its value in the wide layout}}
enum { KEY_AT = offsetof(struct node, key) }; // expected-error {{this offsetof of a compact type in an enumerator}}
static const size_t node_bytes = sizeof(struct node); // sw-error {{this sizeof of a compact type in a static initializer keeps its value in the wide layout, which is not the layout of the objects until the switch}}
static const struct { const char *name; size_t at; } fields[] = {
  {"key", offsetof(struct node, key)}, // sw-error {{this offsetof of a compact type in a static initializer}}
};
enum { POINTER_BYTES = sizeof(struct node *) }; // a pointer outside the heap: 8 bytes in every mode

void clear(struct node *n) {
  static const size_t bytes = sizeof(struct node); // sw-error {{this sizeof of a compact type in a static initializer}}
  _Static_assert(sizeof(int) == 4, "int is 4 bytes");
  memset(n, 0, sizeof *n); // in a function: rewritten
  (void)bytes;
  (void)node_bytes;
  (void)fields;
}

// The size of a value (an array of structs in the wide layout) is what it
// says: not refused.
static const struct node defaults[3] = {{0, 1}, {0, 2}, {0, 3}};
enum { NDEFAULTS = sizeof defaults / sizeof defaults[0] };
static const size_t ndefaults = sizeof(defaults) / sizeof (defaults)[0];
