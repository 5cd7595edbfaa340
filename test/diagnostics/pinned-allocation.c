// Switchable mode: a pinned struct (a mutex beside compact pointers,
// passes/Pinned.cpp) must come from the runtime, which registers it so the
// switch translates its compact pointers in place: a size that does not
// count whole objects is refused as for a compact type, an aligned
// allocator is refused, and a call of the program's own that is handed
// the type's size (an allocator the plugin cannot route) is warned.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
#include <compactptr.h>
#include <pthread.h>
#include <stdlib.h>

void *xmalloc(size_t n); // another file's wrapper

struct CP_COMPACT node {
  int key;
  struct node *next;
};
struct queue {
  pthread_mutex_t mu;
  struct node *head;
  char name[];
};

struct queue *named(int len) {
  struct queue *q = malloc(sizeof(struct queue) + len); // expected-error {{allocation of 'struct queue' (pinned: it holds a 'pthread_mutex_t' and compact pointers, and stays in place at the switch) must have its size expressed as sizeof(struct queue) or n * sizeof(struct queue)}}
  return q;
}

struct queue *wrapped(void) {
  return xmalloc(sizeof(struct queue)); // expected-warning {{'xmalloc' is handed the size of 'struct queue' (pinned: it holds a 'pthread_mutex_t' and compact pointers) and its result becomes a pointer to one: it allocates the object where the runtime does not see it, so the switch would not translate its compact pointers; declare 'xmalloc' CP_ALLOCATOR, or call malloc(sizeof(struct queue)) where the type is known}}
}

struct queue *aligned(void) {
  struct queue *q = aligned_alloc(64, sizeof(struct queue)); // expected-error {{this 'aligned_alloc' allocates 'struct queue' (pinned: it holds a 'pthread_mutex_t' and compact pointers) where the runtime does not see it: the switch would not translate its compact pointers; allocate it with malloc or calloc (aligned to its type)}}
  return q;
}

// A `void *` from elsewhere may be a pinned object the runtime allocated:
// no warning.
void *lookup(int key);
struct queue *found(int key) { return lookup(key); }
