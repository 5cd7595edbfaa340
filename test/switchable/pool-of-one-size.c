// A pool of objects of one size, set at its creation (`pool_init(&pool,
// sizeof(struct node), 1024)`), whose CP_ALLOCATOR function takes no size
// (`pool_alloc(&pool)`): each call allocates one object of the type the
// file hands the same pool the sizeof of, and a CP_DEALLOCATOR frees it
// (the object it frees is its compact argument, after the pool).
// The size the pool keeps is no layout-stored value: only the pool's own
// functions read it, and they never run for the compact objects.  Pools
// named by a variable and by a field, two pools of two types, a result
// kept in a `void *` first.  Native output compact-only, switchable, and
// across a switch with the heap verified.
// REQUIRES: plugin
// RUN: %clang %cflags -O1 %s -o %t.native
// RUN: %t.native > %t.expect
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Werror -fplugin-arg-compactptr-dump=- %s 2>&1 | FileCheck %s
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co
// RUN: %t.co | diff %t.expect -
// RUN: %t | diff %t.expect -
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: grep -q 'switch to wide mode.*verified' %t.err
// RUN: FileCheck --check-prefix=FREED %s < %t.err
// Every object is freed through pool_free(&pool, x), the pool first.
// FREED: compactptr: node {{[0-9]+ +[0-9]+ +0 +[0-9]+ +[0-9]+ +0$}}
// FREED: compactptr: edge {{[0-9]+ +[0-9]+ +0 +[0-9]+ +[0-9]+ +0$}}
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct pool {
  size_t size;
  void *free;
  char *chunk;
  size_t used, cap;
};
static void pool_init(struct pool *p, size_t size, size_t n) {
  p->size = size < sizeof(void *) ? sizeof(void *) : size;
  p->free = NULL;
  p->chunk = malloc(p->size * n);
  p->used = 0;
  p->cap = n;
}
static CP_ALLOCATOR void *pool_alloc(struct pool *p) {
  if (p->free) {
    void *r = p->free;
    p->free = *(void **)r;
    return r;
  }
  if (p->used == p->cap)
    return malloc(p->size);
  return p->chunk + p->size * p->used++;
}
static CP_DEALLOCATOR void pool_free(struct pool *p, void *x) {
  *(void **)x = p->free;
  p->free = x;
}

struct CP_COMPACT node {
  int key;
  struct node *l, *r;
  struct edge *out;
};
struct CP_COMPACT edge {
  struct node *to;
  struct edge *next;
};

static struct pool nodes;
static struct { struct pool edges; int calls; } graph;

static struct node *add(struct node *t, int k, struct node **made) {
  if (!t) {
    struct node *n = pool_alloc(&nodes);
    n->key = k;
    n->l = n->r = NULL;
    n->out = NULL;
    return *made = n;
  }
  if (k < t->key)
    t->l = add(t->l, k, made);
  else if (k > t->key)
    t->r = add(t->r, k, made);
  return t;
}
// CHECK-LABEL: static struct node *add(struct node *t, int k, struct node **made) {
// CHECK:       struct node *n = {{.*}}cp__alloc_fast(&cp__desc_node){{.*}}

static void link(struct node *from, struct node *to) {
  void *mem = pool_alloc(&graph.edges);
  struct edge *e = mem;
  graph.calls++;
  e->to = to;
  e->next = from->out;
  from->out = e;
}
// CHECK-LABEL: static void link(struct node *from, struct node *to) {
// CHECK-NEXT:  void *mem = {{.*}}cp__alloc_fast(&cp__desc_edge){{.*}}

static long walk(struct node *t) {
  if (!t)
    return 0;
  long s = t->key;
  for (struct edge *e = t->out; e; e = e->next)
    s += e->to->key % 7;
  return s + walk(t->l) + walk(t->r);
}
static void drop(struct node *t) {
  if (!t)
    return;
  drop(t->l);
  drop(t->r);
  while (t->out) {
    struct edge *e = t->out;
    t->out = e->next;
    pool_free(&graph.edges, e);
  }
  pool_free(&nodes, t);
}

int main(void) {
  pool_init(&nodes, sizeof(struct node), 1024);
  pool_init(&graph.edges, sizeof(struct edge), 1024);
  struct node *t = NULL, *prev = NULL;
  unsigned x = 7;
  for (int i = 0; i < 20000; i++) {
    x = x * 1103515245u + 12345u;
    struct node *made = NULL;
    t = add(t, (int)(x >> 9) % 50000, &made);
    if (made && prev)
      link(prev, made);
    if (made)
      prev = made;
  }
  printf("%ld %d\n", walk(t), graph.calls);
  drop(t);
  return 0;
}
