// A compact struct a macro defines is refused only where the macro goes on
// after the struct (test/rewrite/struct-from-macro.c has the accepted
// shapes): the rest of the expansion may use it before its compact layout,
// which can only follow the whole expansion.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
#include <compactptr.h>

struct CP_COMPACT node { int key; struct node *next; };

#define LIST_AND_COUNT(name) struct name { struct node *first; }; static int name##_count
LIST_AND_COUNT(nodes); // expected-error {{compact type 'struct nodes' is defined by a macro that goes on after the struct; the rewrite cannot place its compact layout}}

// Ending with the struct, the same macro is fine.
#define LIST(name) struct name { struct node *first; }
LIST(more);
