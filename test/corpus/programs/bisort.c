/* bisort.c - adaptive bitonic sort on a binary tree.
 *
 * In the style of the Olden bisort benchmark: the sequence to sort is the
 * in-order walk of a complete binary tree followed by one "spare" value
 * held outside the tree; Bimerge swaps values and whole subtrees between
 * the two halves by exchanging pointers through temporaries.  Shapes:
 * `typedef struct node HANDLE` used before the struct is complete, a NIL
 * macro that is a cast null pointer, globals, a home-made random number
 * generator, recursion everywhere, the tree built by a recursive function.
 *
 * Usage: bisort [n]        (default 65536, rounded down to a power of two)
 */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef __clang__ /* the old-style definitions below are intentional */
#pragma clang diagnostic ignored "-Wdeprecated-non-prototype"
#endif

typedef struct node HANDLE;

struct CP_COMPACT node {
  int value;
  HANDLE *left, *right;
};

#define NIL ((HANDLE *) 0)
#define UP 0
#define DOWN 1

#define CONST_m1 10000
#define CONST_b 31415821
#define RANGE 100000

/* A block macro that allocates and clears a node, as the original has. */
#define NewNode(h, v) \
  { \
    h = (HANDLE *) malloc(sizeof(struct node)); \
    h->value = v; \
    h->left = NIL; \
    h->right = NIL; \
  }

int NumNodes = 1, NDim;
int flag = 0;

/* (p * q) mod 10^8 without overflow, four digits at a time */
static int mult(int p, int q)
{
  int p1, p0, q1, q0;

  p1 = p / CONST_m1; p0 = p % CONST_m1;
  q1 = q / CONST_m1; q0 = q % CONST_m1;
  return (((p0 * q1 + p1 * q0) % CONST_m1) * CONST_m1 + p0 * q0);
}

static int skiprand(int seed, int n)
{
  for (; n; n--)
    seed = (mult(seed, CONST_b) + 1) % (CONST_m1 * CONST_m1);
  return seed;
}

static int rnd(int seed)
{
  return (mult(seed, CONST_b) + 1) % (CONST_m1 * CONST_m1);
}

static HANDLE *RandTree(int n, int seed, int node, int level)
{
  int next_val, my_name;
  HANDLE *h;

  if (n > 1) {
    seed = rnd(seed);
    next_val = seed % RANGE;
    my_name = node;
    NewNode(h, next_val);
    h->left = RandTree(n / 2, seed, my_name * 2, level - 1);
    h->right = RandTree(n / 2, skiprand(seed, (n + 1) / 2), my_name * 2 + 1, level - 1);
  } else {
    h = 0;
  }
  return h;
}

/* The exchange helpers keep the old-style definitions of the original,
 * behind prototypes as in code moved half-way to ANSI C. */
static void SwapValLeft(HANDLE *, HANDLE *, HANDLE *, HANDLE *, int, int);
static void SwapValRight(HANDLE *, HANDLE *, HANDLE *, HANDLE *, int, int);

static void SwapValLeft(l, r, ll, rl, lval, rval)
HANDLE *l;
HANDLE *r;
HANDLE *ll;
HANDLE *rl;
int lval, rval;
{
  r->value = lval;
  r->left = ll;
  l->left = rl;
  l->value = rval;
}

static void SwapValRight(l, r, lr, rr, lval, rval)
HANDLE *l;
HANDLE *r;
HANDLE *lr;
HANDLE *rr;
int lval, rval;
{
  r->value = lval;
  r->right = lr;
  l->right = rr;
  l->value = rval;
}

static int Bimerge(HANDLE *root, int spr_val, int dir)
{
  int rightexchange, elementexchange;
  HANDLE *pl, *pr;

  rightexchange = ((root->value > spr_val) ^ dir);
  if (rightexchange) {
    int temp = root->value;
    root->value = spr_val;
    spr_val = temp;
  }

  pl = root->left;
  pr = root->right;
  while (pl != NIL) {
    HANDLE *pll = pl->left, *plr = pl->right;
    HANDLE *prl = pr->left, *prr = pr->right;
    int lv = pl->value, rv = pr->value;

    elementexchange = ((lv > rv) ^ dir);
    if (rightexchange)
      if (elementexchange) {
        SwapValRight(pl, pr, plr, prr, lv, rv);
        pl = pll;
        pr = prl;
      } else {
        pl = plr;
        pr = prr;
      }
    else if (elementexchange) {
      SwapValLeft(pl, pr, pll, prl, lv, rv);
      pl = plr;
      pr = prr;
    } else {
      pl = pll;
      pr = prl;
    }
  }

  if (root->left != NIL) {
    root->value = Bimerge(root->left, root->value, dir);
    spr_val = Bimerge(root->right, spr_val, dir);
  }
  return spr_val;
}

static int Bisort(HANDLE *root, int spr_val, int dir)
{
  if (root->left == NIL) {
    if ((root->value > spr_val) ^ dir) {
      int val = spr_val;
      spr_val = root->value;
      root->value = val;
    }
  } else {
    int ndir;

    root->value = Bisort(root->left, root->value, dir);
    ndir = !dir;
    spr_val = Bisort(root->right, spr_val, ndir);
    spr_val = Bimerge(root, spr_val, dir);
  }
  return spr_val;
}

/* In-order walk: checks order against the previous value, sums a
 * position-weighted checksum. */
static long prev_val;
static long bad, position, checksum;

static void InOrder(HANDLE *h, int dir)
{
  if (h == NIL)
    return;
  InOrder(h->left, dir);
  if (position > 0 && (dir == UP ? h->value < prev_val : h->value > prev_val))
    bad++;
  prev_val = h->value;
  position++;
  checksum = (checksum * 31 + h->value) % 1000000007L;
  InOrder(h->right, dir);
}

static void Report(const char *what, HANDLE *h, int spr_val, int dir)
{
  bad = position = checksum = 0;
  InOrder(h, dir);
  if (dir == UP ? spr_val < prev_val : spr_val > prev_val)
    bad++;
  checksum = (checksum * 31 + spr_val) % 1000000007L;
  printf("%s: %ld values, %ld out of order, checksum %ld\n", what, position + 1,
         bad, checksum);
}

static void FreeTree(HANDLE *h)
{
  if (h == NIL)
    return;
  FreeTree(h->left);
  FreeTree(h->right);
  free(h);
}

int main(int argc, char **argv)
{
  HANDLE *h;
  int sval, n = 65536, size = 1;

  if (argc > 1)
    n = atoi(argv[1]);
  while (size * 2 <= n)
    size *= 2;
  if (size < 2)
    size = 2;
  NDim = 0;
  while ((1 << NDim) < size)
    NDim++;
  printf("Bisort with %d size of dim %d\n", size, NDim);

  h = RandTree(size, 12345768, 0, 0);
  sval = rnd(245867) % RANGE;
  Report("random", h, sval, UP);

  sval = Bisort(h, sval, UP);
  Report("forward", h, sval, UP);

  sval = Bisort(h, sval, DOWN);
  Report("backward", h, sval, DOWN);

  FreeTree(h);
  return 0;
}
