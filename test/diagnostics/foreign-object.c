// A 'void *' from any call but malloc/calloc/realloc becoming a compact
// pointer is warned: an allocation wrapper's object is in libc's heap, not
// the compact arena.  An explicit cast says the object is an arena object
// that travelled as 'void *', unless the call is handed the type's size:
// then it allocates one (an allocation hook, a wrapper in another file),
// cast or not.  A hook handed one object's size allocates in the compact
// heap while it is malloc (switchable/allocation-hook.c), and is warned
// for the other hooks a program may install.
// REQUIRES: plugin
// -verify runs compact-only: in switchable mode the dual function's compact
// copy repeats the expected-* comments under #line, so -verify would expect
// each warning twice; the second RUN checks that it is reported once there.
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only %s 2>&1 | FileCheck --check-prefix=SW %s
// SW: warning: the 'void *' returned by 'mk'
// SW: warning: 'mk_sized' is handed the size of 'struct node'
// SW: warning: the 'void *' returned by this call
// SW: warning: a compact pointer to 'struct node' is stored into memory as 'void *'; kept there, it is no root, and after the switch it points into the released arena {{.*}} [-Wcompactptr-void-escape]
// SW: warning: 'mk_sized' is handed the size of 'struct node'
// SW: warning: this allocation hook is handed the size of 'struct node'
// SW: warning: this call is handed the size of 'struct node'
// SW: warning: the 'void *' returned by 'launder'
// SW: warning: the 'void *' returned by 'pop_or_other'
// SW-NOT: warning:
// SW: 9 warnings generated.
#include <compactptr.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT node { int key; struct node *next; };

void *mk(void); // a wrapper in another file (a visible one is an error: unannotated-allocator.c)
void *mk_sized(size_t n); // libc's aligned allocators are an error (foreign-allocation.c)
static void *stash[4];
static void *get(int i) { return stash[i]; }

struct hooks { void *(*allocate)(size_t); };
extern struct hooks hooks;

void use(void *(*fp)(void)) {
  struct node *a = mk(); // expected-warning {{the 'void *' returned by 'mk' becomes a compact pointer to 'struct node', and the plugin cannot see that it is an object of the compact arena: if 'mk' allocates it, it is not (allocate it with malloc(sizeof(struct node)) where the type is known); cast the result if it is an arena object stored as 'void *'}}
  struct node *b;
  b = mk_sized(sizeof(struct node)); // expected-warning {{'mk_sized' is handed the size of 'struct node' and its result becomes a compact pointer to one: it allocates the object outside the compact heap, where a compact field cannot hold it and the switch cannot move it (the runtime stops there); declare 'mk_sized' CP_ALLOCATOR, or call malloc(sizeof(struct node)) where the type is known}}
  a->next = fp(); // expected-warning {{the 'void *' returned by this call becomes a compact pointer}}
  stash[0] = b; // switchable: kept as 'void *', no root (void-escape)
  b = (struct node *)get(0); // explicit: an arena object stored as void *
  b = (struct node *)mk_sized(sizeof *b); // expected-warning {{'mk_sized' is handed the size of 'struct node'}}
  b = (struct node *)hooks.allocate(sizeof(struct node)); // expected-warning {{this allocation hook is handed the size of 'struct node' and its result becomes a compact pointer to one: while the hook is malloc the object comes from the compact heap, but any other function allocates it outside, where a compact field cannot hold it and the switch cannot move it (the runtime stops there); call malloc(sizeof(struct node)) here to allocate with any hook}}
  b = (struct node *)hooks.allocate(2 * sizeof(struct node)); // expected-warning {{this call is handed the size of 'struct node' and its result becomes a compact pointer to one: it allocates the object outside the compact heap}}
  b = (struct node *)memset(b, 0, sizeof(struct node)); // memset returns what it is handed
  b = malloc(sizeof *b);     // rewritten allocations are fine
  b = realloc(b, sizeof(struct node));
  free(a);
  free(b);
}

// A thread's start argument is a root until the thread runs: handing a
// compact pointer to pthread_create is no void-escape (SW-NOT above).
#include <pthread.h>
static void *start(void *arg) { return arg; }
void spawn(struct node *n, pthread_t *t) { pthread_create(t, 0, start, n); }

// A function of this file whose every return is a compact pointer (or
// null) hands out arena objects as 'void *': a fork-join task that calls
// itself directly for one half, a callback.  No warning there.
static void *half(void *arg) {
  struct node *n = arg;
  if (!n)
    return 0;
  return n->next;
}
struct node *second(struct node *n) {
  struct node *m = half(n);
  return m;
}

// A cast at the return is seen through; a local made from a 'void *'
// may hold any memory, so its function hands out no arena object.
static void *half_cast(struct node *n) {
  struct node *m = n->next;
  return (void *)m;
}
static void *launder(void *p) {
  struct node *n = p;
  return n;
}
struct node *third(struct node *n, void *raw) {
  struct node *m = half_cast(n);
  struct node *k = launder(raw); // expected-warning {{the 'void *' returned by 'launder' becomes a compact pointer to 'struct node'}}
  return m ? m : k;
}

// A map's lookup that returns what an untyped field of a compact entry
// holds (where the switch moves an arena object kept there), also through
// another function of the file: no allocation, no warning (a trial's hash
// map and AVL tree drew 13 such warnings, each blaming an allocation
// inside the lookup).
struct CP_COMPACT entry {
  int key;
  void *value;
  struct entry *next;
};
static struct entry *table[8];
static struct entry *find(int k) {
  struct entry *e = table[k & 7];
  while (e && e->key != k)
    e = e->next;
  return e;
}
static void *lookup(int k) {
  struct entry *e = find(k);
  return e ? e->value : NULL;
}
static void *lookup_again(int k) { return lookup(k); }
struct node *node_of(int k) {
  struct node *n = lookup(k);
  return n ? n : lookup_again(k + 1);
}

// A list's pop that reads the cell's data into a local before it frees
// the cell returns what the field held: no warning.
struct CP_COMPACT dcell {
  struct dcell *next;
  void *data;
};
static void *pop(struct dcell **l) {
  struct dcell *c = *l;
  void *d;
  if (!c)
    return NULL;
  *l = c->next;
  d = c->data;
  free(c);
  return d;
}
// A local that is also handed other memory is no stored value.
extern void *other(void);
static void *pop_or_other(struct dcell **l) {
  void *d = (*l)->data;
  if (!d)
    d = other();
  return d;
}
struct node *popped(struct dcell **l) {
  struct node *n = pop(l);
  struct node *m = pop_or_other(l); // expected-warning {{the 'void *' returned by 'pop_or_other' becomes a compact pointer to 'struct node', and the plugin cannot see}}
  return n ? n : m;
}
