// A compact pointer stored into memory as `void *` is warned however many
// parentheses a macro puts around it: crit-bit's `#define TAG(l) ((void
// *)((char *)(l) + 1))` stored into a plain struct's root, `CAST(x)
// ((void *)(x))`, `((void *)l)` written out.  The outer parentheses hid
// the store: a trial's crit-bit tree got one warning of two and stopped at
// the switch.
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// (The sizeof makes the plugin rewrite the file, and -verify does not
// match warnings replayed into a rewritten file: FileChecked apart.)
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -DTOTAL %s 2>&1 | FileCheck %s
#include <compactptr.h>
#include <stddef.h>
#include <stdlib.h>

struct CP_COMPACT leaf { struct leaf *dup; int value; };
struct tree { void *root; long n; };
size_t total;

#define TAG(l) ((void *)((char *)(l) + 1))
#define CAST(x) ((void *)(x))

void put(struct tree *t, struct leaf *l) {
  t->root = TAG(l);         // expected-warning {{a compact pointer to 'struct leaf' with a tag in its low bits is stored into memory as 'void *'}}
  t->root = CAST((char *)l + 1); // expected-warning {{with a tag in its low bits is stored into memory}}
  t->root = ((void *)l);    // expected-warning {{a compact pointer to 'struct leaf' is stored into memory as 'void *'}}
  t->root = (l);            // expected-warning {{a compact pointer to 'struct leaf' is stored into memory as 'void *'}}
#ifdef TOTAL
  total = (sizeof *l);
  // CHECK: escape-in-parens.c:[[@LINE-1]]:{{[0-9]+}}: warning: this sizeof of compact type 'struct leaf' is stored in 'total'
#endif
}
