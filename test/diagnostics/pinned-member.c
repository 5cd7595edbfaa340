// Switchable mode: a pinned struct (a mutex beside compact pointers,
// passes/Pinned.cpp) stays in place at the switch, so a compact struct
// cannot hold one by value (the switch would move it, its compact
// pointers copied as bytes), nor can a union (its pointers would be no
// root).  A struct holding one by value is pinned with it, also one
// aligned to a cache line.  The choice reads each struct's own definition:
// it does not depend on what else the file declares.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
#include <compactptr.h>
#include <pthread.h>

struct CP_COMPACT node {
  int key;
  struct node *next;
};
struct locked_list {
  pthread_mutex_t mu;
  struct node *head;
};

struct CP_COMPACT group {
  struct locked_list members; // expected-error {{compact type 'struct group' holds 'struct locked_list' by value, which stays in place at the switch (pinned: it holds a 'pthread_mutex_t' beside compact pointers); hold it through a pointer, or annotate 'struct locked_list' CP_COMPACT to make it compact (a wait on its 'pthread_mutex_t' then holds a switch up)}}
  struct group *next;
};

union slot {
  struct locked_list l; // expected-error {{union member 'l' holds 'struct locked_list', which keeps compact pointers beside a 'pthread_mutex_t' (pinned, translated in place at the switch); compact pointers cannot live in unions}}
  char pad[128];
};

// Pinned with the list it holds, padded to a cache line: no error.
struct padded {
  struct locked_list l;
} __attribute__((aligned(64)));
struct padded shards[4];

// A spin lock is a synchronization object too: pinned, no error.
struct spun {
  pthread_spinlock_t lock;
  struct node *head;
};
struct spun spins[2];

// A compound literal has no root: its address is refused; a copy into a
// named variable is fine.
struct locked_list *keep;
void literals(struct node *n) {
  keep = &(struct locked_list){.head = n}; // expected-error {{the address of a compound literal of 'struct locked_list' (pinned: it holds a 'pthread_mutex_t' beside compact pointers): no root describes the literal, so the switch would not translate its compact pointers; declare it as a named variable (a local or global of the type is a root)}}
  struct locked_list copy = (struct locked_list){.head = n};
  (void)copy;
}

// An anonymous member hiding a compact pointer has no name for the
// descriptor: its holder is not pinned, so it cannot hold the list, and
// as a compact struct it is refused for the member too.
struct mixed {
  struct locked_list l; // expected-error {{compact type 'struct mixed' holds 'struct locked_list' by value}}
  struct { // expected-error {{anonymous struct or union member in compact type 'struct mixed' is not supported; give the member a name}}
    struct node *spare;
  };
};
