/* tsp.c - a travelling-salesman tour by divide and conquer.
 *
 * In the style of the Olden tsp benchmark (after Karp's partitioning
 * heuristic): random cities are stored in a 2-d tree built by splitting
 * the box alternately in x and y; subtrees below a threshold are toured
 * by cheapest insertion, and tours of the two halves are spliced together
 * through their root city.  Tours are doubly linked rings through `next`
 * and `prev` fields of the same nodes that form the tree.  Shapes: six
 * fields of which four are pointers, `typedef struct tree *Tree`, the
 * whole tree built by one recursive function, rings that are walked,
 * reversed in place (swapping next and prev) and spliced, a node list made
 * by an in-order walk with a static tail pointer.
 *
 * Usage: tsp [cities [threshold]]      (default 32768 150)
 */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

typedef struct CP_COMPACT tree {
  int sz;
  double x, y;
  struct tree *left, *right;
  struct tree *next, *prev;
} Tree_node, *Tree;

static unsigned long long seed = 88172645463325252ULL;

static double drand(void)   /* xorshift64, uniform in [0,1) */
{
  seed ^= seed << 13;
  seed ^= seed >> 7;
  seed ^= seed << 17;
  return (double)(seed >> 11) / 9007199254740992.0;
}

static double median(double min, double max)
{
  /* a point near the middle, not exactly in it */
  return min + (max - min) * (0.35 + 0.3 * drand());
}

static Tree build_tree(int n, int dir, double min_x, double max_x, double min_y, double max_y)
{
  Tree t;
  int nleft;

  if (n == 0)
    return NULL;
  t = (Tree)malloc(sizeof(Tree_node));
  t->sz = n;
  t->next = t->prev = NULL;
  nleft = (n - 1) / 2;
  if (dir) {
    t->x = median(min_x, max_x);
    t->y = min_y + (max_y - min_y) * drand();
    t->left = build_tree(nleft, !dir, min_x, t->x, min_y, max_y);
    t->right = build_tree(n - 1 - nleft, !dir, t->x, max_x, min_y, max_y);
  } else {
    t->x = min_x + (max_x - min_x) * drand();
    t->y = median(min_y, max_y);
    t->left = build_tree(nleft, !dir, min_x, max_x, min_y, t->y);
    t->right = build_tree(n - 1 - nleft, !dir, min_x, max_x, t->y, max_y);
  }
  return t;
}

static double distance(Tree a, Tree b)
{
  double dx = a->x - b->x, dy = a->y - b->y;

  return sqrt(dx * dx + dy * dy);
}

/* makelist: the subtree's cities in order, linked through next */
static Tree list_tail;

static Tree makelist(Tree t)
{
  Tree head = NULL, l;

  if (!t)
    return NULL;
  l = makelist(t->left);
  if (l)
    head = l;
  if (list_tail)
    list_tail->next = t;
  else
    head = t;
  list_tail = t;
  t->next = NULL;
  l = makelist(t->right);
  if (!head)
    head = l;
  return head;
}

/* insert p into the ring through tour where it costs the least */
static void insert_cheapest(Tree tour, Tree p)
{
  Tree a = tour, best = tour;
  double bestcost = 1e300;

  do {
    double c = distance(a, p) + distance(p, a->next) - distance(a, a->next);

    if (c < bestcost) {
      bestcost = c;
      best = a;
    }
    a = a->next;
  } while (a != tour);
  p->next = best->next;
  p->prev = best;
  best->next->prev = p;
  best->next = p;
}

static Tree conquer(Tree t)
{
  Tree cities, p, next;

  list_tail = NULL;
  cities = makelist(t);
  p = cities;
  next = p->next;
  p->next = p->prev = p;
  for (p = next; p; p = next) {
    next = p->next;
    insert_cheapest(cities, p);
  }
  return cities;
}

static void reverse_ring(Tree r)
{
  Tree p = r, tmp;

  do {
    tmp = p->next;
    p->next = p->prev;
    p->prev = tmp;
    p = tmp;
  } while (p != r);
}

/* splice ring b into ring a next to t (a city of ring a) */
static void splice(Tree t, Tree b)
{
  Tree q = b, best = b, tn, qp, qn;
  double bestd = 1e300, cost1, cost2;

  do {
    double d = distance(t, q);

    if (d < bestd) {
      bestd = d;
      best = q;
    }
    q = q->next;
  } while (q != b);
  q = best;
  tn = t->next;
  qp = q->prev;
  qn = q->next;
  cost1 = distance(qp, tn) - distance(qp, q);
  cost2 = distance(qn, tn) - distance(q, qn);
  if (cost2 < cost1) {
    reverse_ring(q);
    qp = q->prev;
  }
  t->next = q;
  q->prev = t;
  qp->next = tn;
  tn->prev = qp;
}

static Tree merge(Tree a, Tree b, Tree t)
{
  if (!a && !b) {
    t->next = t->prev = t;
    return t;
  }
  if (!a) {
    a = b;
    b = NULL;
  }
  insert_cheapest(a, t);
  if (b)
    splice(t, b);
  return t;
}

static Tree tsp(Tree t, int sz)
{
  Tree leftval, rightval;

  if (t->sz <= sz)
    return conquer(t);
  leftval = t->left ? tsp(t->left, sz) : NULL;
  rightval = t->right ? tsp(t->right, sz) : NULL;
  return merge(leftval, rightval, t);
}

static void print_tour(Tree tour)
{
  Tree p = tour;
  double len = 0, back = 0;
  int n = 0, m = 0;

  do {
    len += distance(p, p->next);
    n++;
    p = p->next;
  } while (p != tour);
  do {
    back += distance(p, p->prev);
    m++;
    p = p->prev;
  } while (p != tour);
  printf("tour: %d cities forward, %d backward, length %.4f (%.4f)\n", n, m, len, back);
}

static void free_tree(Tree t)
{
  if (!t)
    return;
  free_tree(t->left);
  free_tree(t->right);
  free(t);
}

int main(int argc, char *argv[])
{
  Tree t, tour;
  int num = 32768, sz = 150;

  if (argc > 1) num = atoi(argv[1]);
  if (argc > 2) sz = atoi(argv[2]);
  if (num < 1) num = 1;
  if (sz < 1) sz = 1;
  printf("Building tree of size %d\n", num);
  t = build_tree(num, 0, 0.0, 1.0, 0.0, 1.0);
  printf("Past build\n");
  tour = tsp(t, sz);
  print_tour(tour);
  free_tree(t);
  return 0;
}
