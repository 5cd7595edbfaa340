// A CP_ALLOCATOR function that takes no size (`pool_alloc(&pool)`, a pool
// of objects of one size) allocates one object a call where this file
// hands the same pool -- the variable or field the argument names --
// sizeof of one type (`pool_init(&pool, sizeof(struct node))`).  A pool
// handed no size here, sizes of two types, or one reached some other way
// (a call's result) is refused, saying so; so is a pool of one type whose
// object is converted to another.  The size a set-up keeps in the pool
// is no layout-stored value while only the pool's own functions read it;
// read elsewhere (a copy sized by it), it is warned.  (Run across a switch:
// switchable/pool-of-one-size.c.)
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
#include <compactptr.h>
#include <stddef.h>

struct pool { size_t size; void *free; };
void pool_init(struct pool *p, size_t size) {
  p->size = size < sizeof(void *) ? sizeof(void *) : size;
  p->free = 0;
}
CP_ALLOCATOR void *pool_alloc(struct pool *p);
struct pool *pool_of(int kind);

struct CP_COMPACT node { int key; struct node *next; };
struct CP_COMPACT edge { int w; struct edge *next; struct node *to; };
struct graph { struct pool nodes; } g;
static struct pool a, b, mixed, unset;

void setup(size_t sz) {
  pool_init(&a, sizeof(struct node));
  pool_init(&b, sizeof(struct edge));
  pool_init(&g.nodes, sizeof(struct node));
  pool_init(&mixed, sizeof(struct node));
  pool_init(&mixed, sizeof(struct edge));
  pool_init(&unset, sz);
}

// Fine: a variable's pool, a field's, two types, a pool a helper sets up
// (its size is warned: the helper's parameter is no pool this file
// allocates from).
static struct pool viahelper;
static void viahelper_setup(struct pool *p) {
  pool_init(p, sizeof(struct node)); // expected-warning {{this sizeof of compact type 'struct node' is handed to 'pool_init', which may keep it}}
}
struct node *n6(void) {
  viahelper_setup(&viahelper);
  return pool_alloc(&viahelper);
}
struct node *n1(void) { return pool_alloc(&a); }
struct edge *e1(void) { return pool_alloc(&b); }
struct node *n2(struct graph *gr) { return pool_alloc(&gr->nodes); }

struct node *n3(void) {
  return pool_alloc(&mixed); // expected-error {{allocation of compact type 'struct node' must have its size expressed as sizeof(struct node) or n * sizeof(struct node); 'pool_alloc' takes no size, and a pool of objects of one size allocates one 'struct node' a call only where this file hands the same pool (the variable or field named here) sizeof(struct node) and no other type's size, as its set-up does (`pool_init(&pool, sizeof(struct node), 64)`): do that here, or pass the size to each call}}
}
struct node *n4(void) {
  return pool_alloc(&unset); // expected-error {{'pool_alloc' takes no size, and a pool of objects of one size allocates one 'struct node' a call only where}}
}
struct node *n5(void) {
  return pool_alloc(pool_of(1)); // expected-error {{'pool_alloc' takes no size}}
}
struct edge *e2(void) {
  return pool_alloc(&a); // expected-error {{allocation of 'struct node' is converted to 'struct edge *', which 'struct node' does not begin with}}
}

// The kept size read by the program (a clone's memcpy): warned at the
// set-up, as for any function that keeps a layout's size.
struct sized_pool { size_t size; };
void sized_init(struct sized_pool *p, size_t size) { p->size = size; }
CP_ALLOCATOR void *sized_alloc(struct sized_pool *p);
static struct sized_pool clones;
void setup_clones(void) {
  sized_init(&clones, sizeof(struct node)); // expected-warning {{this sizeof of compact type 'struct node' is handed to 'sized_init', which may keep it}}
}
struct node *clone(const struct node *from) {
  struct node *n = sized_alloc(&clones);
  __builtin_memcpy(n, from, clones.size);
  return n;
}

// A deallocator handed two compact pointers (a pool that is a compact
// struct itself, keeping a free list of nodes): which one it frees is not
// said, so the call is refused rather than guessed (it had freed the pool).
struct CP_COMPACT npool { struct node *free; };
CP_DEALLOCATOR void npool_free(struct npool *p, struct node *n);
CP_DEALLOCATOR void npool_put(struct npool *p, void *n);
void give_back(struct npool *p, struct node *n, struct node *m) {
  npool_free(p, n); // expected-error {{'npool_free' is declared CP_DEALLOCATOR and is handed several compact pointers: which one it frees is not said (the runtime frees one); take the object as 'void *', or hand it the object as its only compact pointer}}
  npool_put(p, m);
}
