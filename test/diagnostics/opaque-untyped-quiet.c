// What the roots for untyped values (switchable/opaque-untyped-roots.c)
// must not do, from a review of their first versions: warn where nothing
// is wrong, or place a frame where it does not compile.  Each shape
// compiled and was quiet before them, and must stay so:
// - a `void *(void *)` function that returns a call's compact pointer
//   (foreign-object's check of the returned type came too late);
// - a copy of a rooted parameter that a goto jumps past, a `register`
//   copy, a local a macro declares, a variable-length array (roots there
//   would be a clang error in the rewritten code, or vla-root);
// - a lookup whose error path returns the sentinel `(void *)-1`, stored in
//   an untyped field (no integer that the switch could change).
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -O1 -fplugin=%plugin -c %s -o %t.o
// expected-no-diagnostics
#include <compactptr.h>
#include <stdint.h>
#include <stdlib.h>

struct CP_COMPACT node {
  long v;
  struct node *next;
};
struct CP_COMPACT cell {
  void *data;
  struct cell *next;
};
static struct node *g;
static void work(void) {
  g = malloc(sizeof *g);
  g->next = 0;
  g->v = 1;
}

static struct node *build(long n) {
  if (n == 0)
    return NULL;
  struct node *x = malloc(sizeof *x);
  x->v = n;
  x->next = build(n - 1);
  return x;
}
static void *worker(void *a) { return build((long)(intptr_t)a); }
long first(void) {
  struct node *t = worker((void *)5);
  return t->v;
}

void visit(void *d, void *u) {
  struct node *m = d;
  if (!u)
    goto out;
  void *q = d;
  work();
  m->v += ((struct node *)q)->v;
out:;
}
void visit_register(void *d) {
  register void *q = d;
  work();
  ((struct node *)q)->v++;
}

#define DECL(v) void *v = NULL
extern void *lookup(int k);
long in_macro(int k) {
  DECL(p);
  p = lookup(k);
  struct node *n = p;
  work();
  return n->v + ((struct node *)p)->v;
}
long in_vla(int k, int n) {
  void *v[n];
  v[0] = lookup(k);
  struct node *x = v[0];
  work();
  return x->v + ((struct node *)v[0])->v;
}

static void *lookup_or_fail(int k) {
  if (k < 0)
    return (void *)-1;
  return lookup(k);
}
void keep(struct cell *c, int k) { c->data = lookup_or_fail(k); }
