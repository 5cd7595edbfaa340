/* safepoint_calls.c - explicit cp_safepoint() calls in functions called by
 * main: in a loop of a function that keeps compact-pointer locals and a
 * by-value struct local holding compact pointers live across the poll, in a
 * recursive function (every frame's locals live across the poll), and in
 * a callback reached through a function pointer from a function that
 * otherwise does only layout-dependent work (a safepoint under such a
 * function must defer).  Natively every poll is a no-op.
 * Usage: safepoint_calls [n]   (default 20000) */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT leaf {
  long val;
  struct leaf *next;
};

struct CP_COMPACT branch {
  struct branch *left, *right;
  struct leaf *leaves;
  int depth;
};

/* a plain struct value that holds compact pointers */
struct cursor {
  struct leaf *at;
  struct branch *in;
  long seen;
};

static unsigned long long seed = 0x1234567ULL;
static unsigned rnd(void) {
  seed = seed * 0x5851f42d4c957f2dULL + 1;
  return (unsigned)(seed >> 33);
}

/* Appends n leaves to b, polling after each allocation. */
static void grow_leaves(struct branch *b, long n) {
  struct leaf *tail = b->leaves;
  struct cursor c = {NULL, b, 0};
  long i;
  while (tail && tail->next) tail = tail->next;
  for (i = 0; i < n; i++) {
    struct leaf *l = malloc(sizeof(struct leaf));
    if (!l) exit(2);
    l->val = (long)(rnd() % 1000);
    l->next = NULL;
    if (tail) tail->next = l;
    else b->leaves = l;
    tail = l;
    c.at = l;
    c.seen++;
    cp_safepoint(); /* tail, l, b, c.at, c.in all live across this */
    c.at->val += c.in->depth;
  }
}

/* Builds a complete tree of the given depth, polling in every frame. */
static struct branch *build(int depth, long leaves_each) {
  struct branch *b = calloc(1, sizeof(struct branch));
  if (!b) exit(2);
  b->depth = depth;
  if (depth > 0) {
    b->left = build(depth - 1, leaves_each);
    cp_safepoint();
    b->right = build(depth - 1, leaves_each);
  }
  grow_leaves(b, leaves_each);
  cp_safepoint();
  return b;
}

static long poll_count;
static void poll_cb(void) { /* reaches a safepoint through a pointer */
  poll_count++;
  cp_safepoint();
}

/* Layout-dependent work that calls an unknown function: the callback's
 * safepoint is reached under this function's body. */
static long sum_tree(const struct branch *b, void (*cb)(void)) {
  long s = 0;
  const struct leaf *l;
  if (!b) return 0;
  for (l = b->leaves; l; l = l->next) s += l->val;
  cb();
  return s + b->depth + sum_tree(b->left, cb) + sum_tree(b->right, cb);
}

static void free_tree(struct branch *b) {
  struct leaf *l, *nx;
  if (!b) return;
  free_tree(b->left);
  free_tree(b->right);
  for (l = b->leaves; l; l = nx) {
    nx = l->next;
    free(l);
  }
  free(b);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? strtol(argv[1], NULL, 10) : 20000;
  int depth = 6;
  long each, s1, s2;
  struct branch *t;
  if (n < 128) n = 128;
  each = n / 127; /* 2^(depth+1) - 1 branches */
  t = build(depth, each);
  s1 = sum_tree(t, poll_cb);
  grow_leaves(t, each); /* more leaves at the root, after the build */
  s2 = sum_tree(t, poll_cb);
  printf("branches=127 leaves_each=%ld sum1=%ld sum2=%ld polls=%ld\n", each,
         s1, s2, poll_count);
  printf("left.left.depth=%d right.leaves.val=%ld\n", t->left->left->depth,
         t->right->leaves->val);
  free_tree(t);
  return 0;
}
