/* C-style inheritance, both ways C programs write it.
 *
 * 1. A common initial sequence: `struct shape` holds the fields that open
 *    `struct leaf` and `struct inner` too; nodes are made as a leaf or an
 *    inner node, linked and walked as `struct shape *`, and cast down by
 *    their kind.  A tree of mixed nodes: inner nodes hold up to three
 *    children as `struct shape *`, every node is also on a list through
 *    `next`, and weights are summed bottom-up through base pointers.
 * 2. A base struct as the first member: `struct num` and `struct add`
 *    begin with `struct expr base`; constructors return `&n->base` or a
 *    cast, evaluation casts down.
 *
 * Usage: inheritance [nodes]            (default 30000) */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

enum { LEAF = 1, INNER = 2 };

struct CP_COMPACT shape {
  short kind;
  double weight;
  struct shape *next;
};

struct CP_COMPACT leaf {
  short kind;
  double weight;
  struct shape *next;
  int value;
  char tag[3];
};

struct CP_COMPACT inner {
  short kind;
  double weight;
  struct shape *next;
  struct shape *kids[3];
  long count;
};

static struct shape *all; /* every node, through next */
static unsigned long long rs = 88172645463325252ULL;
static unsigned rnd(unsigned n) {
  rs ^= rs << 13;
  rs ^= rs >> 7;
  rs ^= rs << 17;
  return (unsigned)(rs % n);
}

static struct shape *make_leaf(int v) {
  struct leaf *l = malloc(sizeof *l);
  l->kind = LEAF;
  l->value = v;
  l->weight = v / 4.0;
  l->tag[0] = (char)('a' + v % 26);
  l->tag[1] = (char)('a' + v / 26 % 26);
  l->tag[2] = 0;
  l->next = all;
  all = (struct shape *)l;
  return all;
}

static struct shape *make_inner(void) {
  struct inner *n = calloc(1, sizeof *n);
  n->kind = INNER;
  n->next = all;
  all = (struct shape *)n;
  return (struct shape *)n;
}

/* A random tree of about `budget` nodes. */
static struct shape *build(int *budget, int depth) {
  --*budget;
  if (depth > 12 || *budget <= 0 || rnd(4) == 0)
    return make_leaf((int)rnd(1000));
  struct shape *s = make_inner();
  struct inner *in = (struct inner *)s;
  int k = 1 + (int)rnd(3);
  for (int i = 0; i < k && *budget > 0; i++)
    in->kids[i] = build(budget, depth + 1);
  return s;
}

/* Weights bottom-up through base pointers; returns the subtree's leaves. */
static long weigh(struct shape *s) {
  if (s->kind == LEAF)
    return 1;
  struct inner *in = (struct inner *)s;
  long leaves = 0;
  s->weight = 0;
  for (int i = 0; i < 3; i++)
    if (in->kids[i]) {
      leaves += weigh(in->kids[i]);
      s->weight += in->kids[i]->weight;
    }
  in->count = leaves;
  return leaves;
}

static void print_tree(const struct shape *s, int depth, unsigned long *h) {
  if (s->kind == LEAF) {
    const struct leaf *l = (const struct leaf *)s;
    *h = *h * 31 + (unsigned long)l->value + (unsigned long)l->tag[0] +
         (unsigned long)depth;
    return;
  }
  const struct inner *in = (const struct inner *)s;
  *h = *h * 37 + (unsigned long)in->count;
  for (int i = 0; i < 3; i++)
    if (in->kids[i])
      print_tree(in->kids[i], depth + 1, h);
}

/* 2: a base struct as the first member. */
struct CP_COMPACT expr { int op; };
struct CP_COMPACT num { struct expr base; long v; };
struct CP_COMPACT add { struct expr base; struct expr *l, *r; };

static struct expr *num(long v) {
  struct num *n = malloc(sizeof *n);
  n->base.op = 'n';
  n->v = v;
  return &n->base;
}

static struct expr *add(struct expr *l, struct expr *r) {
  struct add *a = malloc(sizeof *a);
  a->base.op = '+';
  a->l = l;
  a->r = r;
  return (struct expr *)a;
}

static long eval(const struct expr *e) {
  if (e->op == 'n')
    return ((const struct num *)e)->v;
  const struct add *a = (const struct add *)e;
  return eval(a->l) + eval(a->r);
}

static void free_expr(struct expr *e) {
  if (e->op == '+') {
    free_expr(((struct add *)e)->l);
    free_expr(((struct add *)e)->r);
  }
  free(e);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 30000;
  unsigned long h = 0;
  long leaves = 0, inners = 0;
  double total = 0;
  struct shape *roots[8];
  for (int t = 0; t < 8; t++) {
    int budget = n / 8;
    roots[t] = build(&budget, 0);
  }
  for (int t = 0; t < 8; t++) {
    leaves += weigh(roots[t]);
    total += roots[t]->weight;
    print_tree(roots[t], 0, &h);
  }
  for (struct shape *s = all; s; s = s->next)
    if (s->kind == INNER)
      inners++;
  printf("%ld leaves, %ld inner nodes, weight %.2f, shape hash %lu\n", leaves,
         inners, total, h);

  struct expr *e = num(1);
  for (long i = 2; i <= n / 10; i++)
    e = i % 3 ? add(e, num(i)) : add(num(i), e);
  printf("sum %ld\n", eval(e));
  free_expr(e);

  while (all) {
    struct shape *s = all;
    all = s->next;
    free(s);
  }
  return 0;
}
