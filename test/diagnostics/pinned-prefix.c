// Switchable mode: a pinned struct (a mutex beside compact pointers) that
// begins with the same fields as a compact struct is laid out otherwise:
// code that reads one through a pointer to the other after a trip through
// `void *` (a generic callback) would read the wrong fields, silently.
// The written cast is refused (incompatible-cast); the struct is warned.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-Wno-compactptr-pinned-prefix -fsyntax-only -Werror %s
#include <compactptr.h>
#include <pthread.h>

struct CP_COMPACT node {
  long key;
  struct node *next;
};
struct list {
  struct node *head;
  int kind;
};
struct locked_list { // expected-warning {{'struct locked_list' is pinned (it holds a 'pthread_mutex_t' beside compact pointers) and begins with the same fields as compact 'struct list', laid out differently: code that reads one through a pointer to the other (through 'void *') reads the wrong fields; annotate 'struct locked_list' CP_COMPACT if it is used that way}}
  struct node *head;
  int kind;
  pthread_mutex_t mu;
};

// Its first field differs: nothing to mistake.
struct queue {
  pthread_mutex_t mu;
  struct node *head;
};

long total(void *any) {
  struct list *l = any;
  long t = 0;
  for (struct node *n = l->head; n; n = n->next)
    t += n->key;
  return t;
}
