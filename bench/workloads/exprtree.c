/* exprtree.c - small expression trees built, evaluated, simplified and
 * freed over and over (a small heap: a few hundred KiB natively).
 *
 * Each iteration builds a random expression tree of about `size` nodes
 * (operators + - * over integer constants and a variable x, arithmetic
 * modulo 2^32), evaluates it at 8 values of x, folds every constant
 * subtree into one constant (freeing the nodes it replaces; x * 0 and
 * x - x fold too), evaluates the folded tree again and frees it.  The heap
 * is one tree at a time: allocation churn in a cache-resident heap.
 * Self-check: the folded tree evaluates as the original at every x.
 *
 * Node: 24 bytes native (malloc chunk 32), 16 bytes compact.
 * Usage: exprtree [size] [iterations]   defaults: 4000 300 (quick);
 *   full: 4000 6000
 * Output: "ok exprtree size=... iterations=... nodes=... checksum=..." or
 * "FAIL ..." with exit 1. */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

enum { CONST, VAR, ADD, SUB, MUL };

struct CP_COMPACT expr {
  int op;
  unsigned val;
  struct expr *l, *r;
};

static unsigned long long rs = 0xB7E151628AED2A6BULL;
static unsigned rnd(void) {
  rs = rs * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned)(rs >> 33);
}

static long allocated;

static struct expr *node(int op, unsigned val, struct expr *l, struct expr *r) {
  struct expr *e = malloc(sizeof(struct expr));
  if (!e) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  e->op = op;
  e->val = val;
  e->l = l;
  e->r = r;
  allocated++;
  return e;
}

/* A random tree of n nodes (n odd: operators have two children). */
static struct expr *build(long n) {
  long left;
  if (n <= 1)
    return rnd() % 3 ? node(CONST, rnd() % 100, NULL, NULL)
                     : node(VAR, 0, NULL, NULL);
  left = 1 + 2 * (long)(rnd() % (unsigned)((n - 1) / 2));
  {
    struct expr *l = build(left);
    struct expr *r = build(n - 1 - left);
    return node(ADD + (int)(rnd() % 3), 0, l, r);
  }
}

static unsigned eval(const struct expr *e, unsigned x) {
  switch (e->op) {
  case CONST: return e->val;
  case VAR: return x;
  case ADD: return eval(e->l, x) + eval(e->r, x);
  case SUB: return eval(e->l, x) - eval(e->r, x);
  default: return eval(e->l, x) * eval(e->r, x);
  }
}

static void destroy(struct expr *e) {
  if (!e) return;
  destroy(e->l);
  destroy(e->r);
  free(e);
}

/* Whether two trees are the same expression (for x - x). */
static int same(const struct expr *a, const struct expr *b) {
  if (a->op != b->op) return 0;
  if (a->op == CONST) return a->val == b->val;
  if (a->op == VAR) return 1;
  return same(a->l, b->l) && same(a->r, b->r);
}

/* Folds constant subtrees in place; returns the (possibly new) root. */
static struct expr *fold(struct expr *e) {
  if (e->op == CONST || e->op == VAR) return e;
  e->l = fold(e->l);
  e->r = fold(e->r);
  if (e->l->op == CONST && e->r->op == CONST) {
    unsigned a = e->l->val, b = e->r->val;
    e->val = e->op == ADD ? a + b : e->op == SUB ? a - b : a * b;
  } else if (e->op == MUL && ((e->l->op == CONST && e->l->val == 0) ||
                              (e->r->op == CONST && e->r->val == 0))) {
    e->val = 0;
  } else if (e->op == SUB && same(e->l, e->r)) {
    e->val = 0;
  } else {
    return e;
  }
  destroy(e->l);
  destroy(e->r);
  e->l = e->r = NULL;
  e->op = CONST;
  return e;
}

static long count(const struct expr *e) {
  return e ? 1 + count(e->l) + count(e->r) : 0;
}

int main(int argc, char **argv) {
  long size = argc > 1 ? atol(argv[1]) : 4000;
  long iterations = argc > 2 ? atol(argv[2]) : 300, it, nodes = 0;
  unsigned long long check = 0;
  if (size < 1 || size > 1000000 || iterations < 0) {
    fprintf(stderr, "usage: exprtree [size 1..1e6] [iterations]\n");
    return 2;
  }
  if (size % 2 == 0) size++;
  for (it = 0; it < iterations; it++) {
    struct expr *t = build(size);
    unsigned before[8], x;
    for (x = 0; x < 8; x++) before[x] = eval(t, x * 7919u + (unsigned)it);
    t = fold(t);
    nodes += count(t);
    for (x = 0; x < 8; x++) {
      unsigned after = eval(t, x * 7919u + (unsigned)it);
      if (after != before[x]) {
        printf("FAIL exprtree iteration=%ld x=%u folded=%u original=%u\n",
               it, x, after, before[x]);
        return 1;
      }
      check = check * 31 + after;
    }
    destroy(t);
  }
  printf("ok exprtree size=%ld iterations=%ld nodes=%ld allocated=%ld "
         "checksum=%llx\n", size, iterations, nodes, allocated, check);
  return 0;
}
