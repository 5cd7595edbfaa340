// Switchable mode: an intrusive link (Linux's hlist_node or list_head)
// embedded in a compact struct but not compact itself links objects by
// addresses inside them; as plain pointers the switch moves the objects
// without translating them (the program stopped at the first use of a
// link after the switch, exit 70).  Warned at the field, with the way
// out: declare the link compact too.  A plain struct that links to
// nothing of its kind, and compact-only mode (which never switches), are
// not warned.  A link a header defines is declared compact by a
// declaration of its tag before the #include, which the message shows.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify=sw %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Xclang -verify=co %s
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify=decl -DDECLARED %s
#include <compactptr.h>
#ifdef DECLARED
struct CP_COMPACT hash_handle;
#endif
#include "Inputs/hash-handle.h"

struct hlist_node {
  struct hlist_node *next, **pprev;
};
struct list_head {
  struct list_head *next, *prev;
};
struct point {
  int x, y;
};

struct CP_COMPACT item {
  int key;
  struct hlist_node hash; // sw-warning {{field 'hash' of compact type 'struct item' embeds 'struct hlist_node'}} decl-warning {{field 'hash' of compact type 'struct item' embeds 'struct hlist_node', which links objects by addresses inside them; as plain pointers they are not translated when the switch to wide mode moves the objects: declare 'struct hlist_node' CP_COMPACT too (its links become handles), or build the program compact-only, which never switches}}
  struct list_head lru[2]; // sw-warning {{field 'lru' of compact type 'struct item' embeds 'struct list_head'}} decl-warning {{embeds 'struct list_head'}}
  hash_handle hh; // sw-warning {{field 'hh' of compact type 'struct item' embeds 'struct hash_handle', which links objects by addresses inside them; as plain pointers they are not translated when the switch to wide mode moves the objects: declare 'struct hash_handle' CP_COMPACT too (its links become handles) (where a header defines it, a declaration before the #include does: `struct CP_COMPACT hash_handle;`), or build the program compact-only, which never switches}}
  struct point at;
  struct item *next;
};

int key_of(struct item *it) { return it->key; }
// co-no-diagnostics
