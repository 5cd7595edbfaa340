/* ntree.c - n-ary tree with a handle-array field `struct node *kids[4]`
 * and parent links: random growth, subscripted stores with side effects in
 * the index (kids[k++]), recursive sums, walks up parent chains, moving
 * subtrees between parents, pruning subtrees, and iterative DFS with an
 * explicit stack (a root array of node pointers).
 * Usage: ntree [n]   (default 3000) */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

#define FANOUT 4

struct CP_COMPACT node {
  struct node *parent;
  int id;
  short nkids;
  short depth;
  struct node *kids[FANOUT];
};

static unsigned long long st = 0x2545F4914F6CDD1DULL;
static unsigned rnd(unsigned bound) {
  st = st * 6364136223846793005ULL + 1442695040888963407ULL;
  return (unsigned)(st >> 33) % bound;
}

static struct node *new_node(struct node *parent, int id) {
  struct node *n = malloc(sizeof(struct node));
  int k;
  if (!n) exit(2);
  n->parent = parent;
  n->id = id;
  n->nkids = 0;
  n->depth = parent ? (short)(parent->depth + 1) : 0;
  for (k = 0; k < FANOUT; k++) n->kids[k] = NULL;
  return n;
}

static void fix_depth(struct node *p) {
  int k;
  p->depth = p->parent ? (short)(p->parent->depth + 1) : 0;
  for (k = 0; k < p->nkids; k++) fix_depth(p->kids[k]);
}

static long count(const struct node *p, long *depth_sum, int *max_depth) {
  long c = 1;
  int k;
  *depth_sum += p->depth;
  if (p->depth > *max_depth) *max_depth = p->depth;
  for (k = 0; k < p->nkids; k++) c += count(p->kids[k], depth_sum, max_depth);
  return c;
}

static unsigned long hash(const struct node *p) {
  unsigned long h = (unsigned long)p->id * 2654435761u + (unsigned long)p->nkids;
  int k;
  for (k = 0; k < p->nkids; k++) h = h * 1000003u ^ hash(p->kids[k]);
  return h;
}

/* Removes child slot k of p, keeping kids[0..nkids) dense. */
static struct node *detach(struct node *p, int k) {
  struct node *c = p->kids[k];
  int j;
  for (j = k; j + 1 < p->nkids; j++) p->kids[j] = p->kids[j + 1];
  p->kids[--p->nkids] = NULL;
  c->parent = NULL;
  return c;
}

static void free_tree(struct node *p) {
  int k;
  for (k = 0; k < p->nkids; k++) free_tree(p->kids[k]);
  free(p);
}

int main(int argc, char **argv) {
  long n = argc > 1 ? strtol(argv[1], NULL, 10) : 3000;
  struct node **all = malloc((size_t)n * sizeof(struct node *));
  struct node *root, *p;
  long i, live, dsum = 0, moved = 0, pruned = 0, up = 0;
  int maxd = 0;
  if (!all || n < 2) return 2;

  root = all[0] = new_node(NULL, 0);
  for (i = 1; i < n; i++) {
    /* attach to a random earlier node with room */
    do p = all[rnd((unsigned)i)]; while (p->nkids == FANOUT);
    {
      short k = p->nkids;
      p->kids[k++] = all[i] = new_node(p, (int)i);
      p->nkids = k;
    }
  }
  live = count(root, &dsum, &maxd);
  printf("built nodes=%ld depth_sum=%ld max_depth=%d hash=%lu\n", live, dsum,
         maxd, hash(root));

  /* walk parent chains from every 7th node */
  for (i = 0; i < n; i += 7)
    for (p = all[i]; p->parent; p = p->parent) up++;
  printf("parent steps=%ld\n", up);

  /* move subtrees: detach a random child and hang it under a leaf that is
   * not in that subtree */
  for (i = 0; i < n / 10; i++) {
    struct node *from = all[rnd((unsigned)n)], *to, *c, *q;
    if (from->nkids == 0) continue;
    c = from->kids[rnd((unsigned)from->nkids)];
    to = all[rnd((unsigned)n)];
    if (to->nkids == FANOUT) continue;
    for (q = to; q && q != c; q = q->parent)
      ;
    if (q == c) continue; /* would create a cycle */
    {
      int k;
      for (k = 0; from->kids[k] != c; k++)
        ;
      detach(from, k);
    }
    c->parent = to;
    to->kids[to->nkids++] = c;
    fix_depth(c);
    moved++;
  }
  dsum = 0;
  maxd = 0;
  live = count(root, &dsum, &maxd);
  printf("moved=%ld nodes=%ld depth_sum=%ld max_depth=%d hash=%lu\n", moved,
         live, dsum, maxd, hash(root));

  /* `all` would dangle once subtrees are freed: release it first */
  free(all);
  all = NULL;

  /* prune: free the last child subtree of some nodes near the root, using an
   * explicit stack */
  {
    struct node **stack = malloc((size_t)n * sizeof(struct node *));
    long sp = 0;
    if (!stack) return 2;
    stack[sp++] = root;
    while (sp > 0) {
      p = stack[--sp];
      if (p->depth == 3 && p->nkids > 1) {
        free_tree(detach(p, p->nkids - 1));
        pruned++;
      }
      if (p->depth < 3) {
        int k;
        for (k = p->nkids - 1; k >= 0; k--) stack[sp++] = p->kids[k];
      }
    }
    free(stack);
  }
  dsum = 0;
  maxd = 0;
  live = count(root, &dsum, &maxd);
  printf("pruned=%ld nodes=%ld depth_sum=%ld hash=%lu\n", pruned, live, dsum,
         hash(root));
  free_tree(root);
  return 0;
}
