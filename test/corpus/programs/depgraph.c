/* depgraph.c - a build tool's dependency graph: order, cycles, rebuilds.
 *
 * In the style of make-like build tools and package managers written in
 * C: targets are nodes, each with a list of the targets it depends on;
 * every collection -- a target's dependencies and dependents, the work
 * lists of the algorithms, the list of all targets -- is one generic
 * growable vector of `void *` (`vec_push(&v, t)`, `t = vec_get(&v, i)`),
 * the kind of container every C code base writes once.  The driver
 * "parses" a generated build description, computes a build order with
 * Kahn's algorithm, finds the targets on cycles (and breaks them), and
 * propagates "out of date" from changed sources to everything that
 * depends on them.  Shapes: node pointers stored as `void *` in ordinary
 * heap arrays and read back with implicit conversions, a vector of
 * vectors inside each node, a name table of node pointers.
 *
 * Usage: depgraph [targets [deps-per-target]]       (default 60000 3)
 */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct vec {
  void **v;
  size_t n, cap;
};

static void vec_push(struct vec *vp, void *x)
{
  if (vp->n == vp->cap) {
    vp->cap = vp->cap ? vp->cap * 2 : 4;
    vp->v = realloc(vp->v, vp->cap * sizeof(void *));
    if (!vp->v) {
      perror("realloc");
      exit(2);
    }
  }
  vp->v[vp->n++] = x;
}

static void *vec_get(const struct vec *vp, size_t i) { return vp->v[i]; }
static void *vec_pop(struct vec *vp) { return vp->v[--vp->n]; }
static void vec_free(struct vec *vp) { free(vp->v); vp->v = NULL; vp->n = vp->cap = 0; }

struct CP_COMPACT target {
  char name[16];
  int id;
  int indegree;                  /* unbuilt dependencies (Kahn) */
  int order;                     /* position in the build order, -1: on a cycle */
  int dirty;
  long cost;
  struct vec deps, dependents;
};

static struct target *new_target(int id)
{
  struct target *t = calloc(1, sizeof *t);

  snprintf(t->name, sizeof t->name, "t%d.o", id);
  t->id = id;
  t->order = -1;
  t->cost = 1 + id % 7;
  return t;
}

static void depend(struct target *t, struct target *on)
{
  vec_push(&t->deps, on);
  vec_push(&on->dependents, t);
}

/* Kahn: returns how many targets got an order */
static int build_order(struct vec *all, struct vec *order)
{
  struct vec ready = { NULL, 0, 0 };
  size_t i;
  int n = 0;

  for (i = 0; i < all->n; i++) {
    struct target *t = vec_get(all, i);

    t->indegree = (int)t->deps.n;
    t->order = -1;
    if (t->indegree == 0)
      vec_push(&ready, t);
  }
  while (ready.n > 0) {
    struct target *t = vec_pop(&ready);

    t->order = n++;
    vec_push(order, t);
    for (i = 0; i < t->dependents.n; i++) {
      struct target *d = vec_get(&t->dependents, i);

      if (--d->indegree == 0)
        vec_push(&ready, d);
    }
  }
  vec_free(&ready);
  return n;
}

/* mark everything that depends on t as dirty; returns the rebuild cost */
static long propagate(struct target *t)
{
  struct vec work = { NULL, 0, 0 };
  long cost = 0;
  size_t i;

  vec_push(&work, t);
  while (work.n > 0) {
    struct target *x = vec_pop(&work);

    if (x->dirty)
      continue;
    x->dirty = 1;
    cost += x->cost;
    for (i = 0; i < x->dependents.n; i++)
      vec_push(&work, vec_get(&x->dependents, i));
  }
  vec_free(&work);
  return cost;
}

int main(int argc, char *argv[])
{
  int n = argc > 1 ? atoi(argv[1]) : 60000, deg = argc > 2 ? atoi(argv[2]) : 3;
  struct vec all = { NULL, 0, 0 }, order = { NULL, 0, 0 };
  unsigned long x = 1;
  long rebuild = 0, sum = 0;
  int i, j, ordered, on_cycle = 0;

  if (n < 10) n = 10;
  for (i = 0; i < n; i++) {      /* parse: targets depend mostly on earlier ones */
    struct target *t = new_target(i);

    vec_push(&all, t);
    for (j = 0; j < deg && i > 0; j++) {
      x = x * 6364136223846793005UL + 1442695040888963407UL;
      if ((x >> 59) == 0 && i > 100)        /* now and then a dependency on a later target */
        continue;
      depend(t, vec_get(&all, (size_t)((x >> 33) % (unsigned long)i)));
    }
  }
  for (i = n - n / 100; i < n; i += n / 500) {   /* a few mutual dependencies make cycles */
    depend(vec_get(&all, (size_t)i), vec_get(&all, (size_t)(i - 1)));
    depend(vec_get(&all, (size_t)(i - 1)), vec_get(&all, (size_t)i));
  }
  ordered = build_order(&all, &order);
  for (i = 0; i < n; i++) {
    struct target *t = vec_get(&all, (size_t)i);

    if (t->order < 0)
      on_cycle++;
  }
  for (i = 0; i < (int)order.n; i += 97) {
    struct target *t = vec_get(&order, (size_t)i);

    sum = (sum * 31 + t->id + (long)strlen(t->name)) % 1000000007;
  }
  for (i = 0; i < n; i += n / 10) {
    struct target *t = vec_get(&all, (size_t)i);

    rebuild += propagate(t);
  }
  printf("%d targets, %d ordered, %d on or behind a cycle\n", n, ordered, on_cycle);
  printf("order checksum %ld, rebuild cost %ld\n", sum, rebuild);
  for (i = 0; i < n; i++) {
    struct target *t = vec_get(&all, (size_t)i);

    vec_free(&t->deps);
    vec_free(&t->dependents);
    free(t);
  }
  vec_free(&all);
  vec_free(&order);
  return 0;
}
