// A pool that a CP_ALLOCATOR function allocates from holds none of the
// compact objects allocated "from" it: the runtime does.  A call that
// gives the pool's memory back (its body frees; without a body here, its
// name says so) frees none of them, and a function handed the pool and a
// compact object as `void *` that is not a CP_DEALLOCATOR runs its code on
// the runtime's object and frees nothing: both are warned (pool-release),
// in every mode -- a trial's program that freed its nodes by releasing
// the pool per phase grew to 318 MB against native's 2.5 MB, unwarned.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -fplugin-arg-compactptr-mode=compact-only %s 2>&1 | FileCheck --implicit-check-not=warning: %s
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only %s 2>&1 | FileCheck --implicit-check-not=warning: --check-prefixes=SW,CHECK %s
#include <compactptr.h>
#include <stdlib.h>

struct chunk { struct chunk *next; };
struct pool { size_t size; struct chunk *chunks; void *free; long live; };

static void pool_init(struct pool *p, size_t size) {
  p->size = size;
  p->chunks = NULL;
  p->free = NULL;
  p->live = 0;
}
static CP_ALLOCATOR void *pool_alloc(struct pool *p) {
  p->live++;
  return malloc(p->size);
}
static void pool_put(struct pool *p, void *x) {
  *(void **)x = p->free;
  p->free = x;
  p->live--;
}
static CP_DEALLOCATOR void pool_free(struct pool *p, void *x) {
  p->live--;
  free(x);
}
static void pool_destroy(struct pool *p) {
  while (p->chunks) {
    struct chunk *c = p->chunks;
    p->chunks = c->next;
    free(c);
  }
}
void pool_clear(struct pool *p); /* another file's */
size_t pool_free_count(const struct pool *p); /* another file's */
static void pool_keep(struct pool *p, char *x) {
  *(void **)x = p->free;
  p->free = x;
}
static long pool_live(const struct pool *p) { return p->live; }

struct CP_COMPACT node { int key; struct node *next; };
// A helper handed the pool: the pool's type comes from its calls.
static struct node *push(struct pool *p, struct node *head, int key) {
  struct node *n = pool_alloc(p);
  n->key = key;
  n->next = head;
  return n;
}

static struct pool nodes;
static struct node *build(struct pool *p, int n) {
  int *scratch = malloc(sizeof *scratch);
  struct node *r = n ? push(p, build(p, n - 1), n) : NULL;
  free(scratch);
  return r;
}

long run(void) {
  pool_init(&nodes, sizeof(struct node));
  struct node *head = NULL;
  for (int i = 0; i < 100; i++)
    head = push(&nodes, head, i);
  struct node *second = head->next;
  head->next = second->next;
  pool_put(&nodes, second);
  // SW: pool-release.c:[[@LINE-1]]:20: warning: a compact pointer to 'struct node' is passed as 'void *' to 'pool_put'
  // CHECK: pool-release.c:[[@LINE-2]]:20: warning: 'pool_put' is handed a compact object and the pool that CP_ALLOCATOR function 'pool_alloc' allocates from: the object is the runtime's, which 'pool_put''s code does not free (it stays allocated until exit); declare 'pool_put' CP_DEALLOCATOR if it frees the object [-Wcompactptr-pool-release]
  long live = pool_live(&nodes);
  struct node *third = head->next;
  head->next = third->next;
  pool_free(&nodes, third);
  pool_destroy(&nodes);
  // CHECK: pool-release.c:[[@LINE-1]]:3: warning: 'pool_destroy' gives back the memory of the pool that CP_ALLOCATOR function 'pool_alloc' allocates from, but the compact objects allocated "from" it are the runtime's and are not freed with it: free each with free() or a CP_DEALLOCATOR before, or they stay allocated until exit [-Wcompactptr-pool-release]
  pool_clear(&nodes);
  // CHECK: pool-release.c:[[@LINE-1]]:3: warning: 'pool_clear' gives back the memory
  void *untyped = head;
  pool_free(&nodes, untyped);
  // CHECK: pool-release.c:[[@LINE-1]]:21: warning: 'pool_free' (CP_DEALLOCATOR) is handed an untyped pointer with the pool that CP_ALLOCATOR function 'pool_alloc' allocates from: only a compact pointer goes to the runtime, so if this is a compact object the pool's own code runs on it and frees nothing (it stays allocated until exit); hand it as a pointer to its struct [-Wcompactptr-pool-release]
  pool_keep(&nodes, (char *)second);
  // CHECK: pool-release.c:[[@LINE-1]]:21: warning: 'pool_keep' is handed a compact object and the pool
  // Fine: a count that is no release, though named after one; a
  // builder that frees its scratch; the pool handed on recursively.
  (void)pool_free_count(&nodes);
  build(&nodes, 3);
  return live;
}

// The pool inside a struct handed whole.
struct phase { struct pool nodes; long count; };
static void phase_end(struct phase *ph) { pool_destroy(&ph->nodes); }
// CHECK: pool-release.c:[[@LINE-1]]:43: warning: 'pool_destroy' gives back the memory
long phases(void) {
  struct phase ph;
  long s = 0;
  pool_init(&ph.nodes, sizeof(struct node));
  for (int k = 0; k < 3; k++) {
    struct node *n = pool_alloc(&ph.nodes);
    n->key = k;
    s += n->key;
    phase_end(&ph);
    // CHECK: pool-release.c:[[@LINE-1]]:5: warning: 'phase_end' gives back the memory
  }
  return s;
}

// The pool's count of live objects, which pool_live reads, is kept by
// code that no longer runs for the compact objects (allocator-effects).
// CHECK: pool-release.c:25:10: warning: 'live' is updated here for each call of 'pool_alloc' (CP_ALLOCATOR), but the calls that allocate compact objects go to the runtime and run none of 'pool_alloc''s code, so 'pool_live', which reads it, sees a value that misses them: keep such bookkeeping at the calls, or let it count other memory only [-Wcompactptr-allocator-effects]
// CHECK: pool-release.c:34:10: warning: 'live' is updated here for each call of 'pool_free' (CP_DEALLOCATOR), but the calls that free compact objects
