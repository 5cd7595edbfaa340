/* kruskal.c - minimum spanning forest with union-find (Kruskal).
 *
 * In the style of the disjoint-set forests of textbooks and competitive
 * programming libraries, but with heap-allocated set nodes instead of an
 * index array: each vertex is a node with a parent pointer and a rank,
 * find() compresses paths recursively, union links by rank.  Edges are
 * structs holding two node pointers and a weight, kept in one array that
 * is sorted with qsort and a comparator; a second pass counts components
 * with a path-halving find written as a loop.  Shapes: self-pointing
 * parent links (a root points at itself), recursion that rewrites fields
 * on the way back, an array of structs that hold node pointers sorted by
 * qsort, a comparator that reads fields through `const void *`.
 *
 * Usage: kruskal [vertices [edges-per-vertex]]      (default 100000 4)
 */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct CP_COMPACT uf_node {
  struct uf_node *parent;
  int rank;
  int id;
  long size;
} uf_node;

typedef struct edge {
  uf_node *u, *v;
  int w;
  int id;
} edge;

static uf_node *make_set(int id)
{
  uf_node *x = malloc(sizeof(uf_node));

  x->parent = x;
  x->rank = 0;
  x->id = id;
  x->size = 1;
  return x;
}

static uf_node *find(uf_node *x)
{
  if (x->parent != x)
    x->parent = find(x->parent);
  return x->parent;
}

/* path halving, iterative */
static uf_node *find_halving(uf_node *x)
{
  while (x->parent != x) {
    x->parent = x->parent->parent;
    x = x->parent;
  }
  return x;
}

static int unite(uf_node *a, uf_node *b)
{
  a = find(a);
  b = find(b);
  if (a == b)
    return 0;
  if (a->rank < b->rank) {
    uf_node *t = a;
    a = b;
    b = t;
  }
  b->parent = a;
  a->size += b->size;
  if (a->rank == b->rank)
    a->rank++;
  return 1;
}

static int edge_cmp(const void *pa, const void *pb)
{
  const edge *a = pa, *b = pb;

  if (a->w != b->w)
    return a->w < b->w ? -1 : 1;
  return a->id - b->id;        /* a total order: qsort is not stable */
}

int main(int argc, char *argv[])
{
  int n = argc > 1 ? atoi(argv[1]) : 100000;
  int deg = argc > 2 ? atoi(argv[2]) : 4;
  int m, i, used = 0, components = 0;
  uf_node **v;
  edge *e;
  long long weight = 0;
  long biggest = 0;
  unsigned long long s = 42;

  if (n < 2) n = 2;
  if (deg < 1) deg = 1;
  m = n / 2 * deg;              /* sparse: leaves several components */
  v = malloc(n * sizeof(uf_node *));
  e = malloc(m * sizeof(edge));
  for (i = 0; i < n; i++)
    v[i] = make_set(i);
  for (i = 0; i < m; i++) {
    int a, b;

    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    a = (int)((s >> 33) % (unsigned)n);
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    b = (int)((s >> 33) % (unsigned)n);
    e[i].u = v[a];
    e[i].v = v[b];
    e[i].w = (int)((s >> 13) % 100000);
    e[i].id = i;
  }
  qsort(e, m, sizeof(edge), edge_cmp);
  for (i = 0; i < m; i++)
    if (unite(e[i].u, e[i].v)) {
      weight += e[i].w;
      used++;
    }
  for (i = 0; i < n; i++) {
    uf_node *r = find_halving(v[i]);

    if (r == v[i]) {
      components++;
      if (r->size > biggest)
        biggest = r->size;
    }
  }
  printf("vertices %d edges %d: forest of %d edges, weight %lld\n", n, m, used, weight);
  printf("components %d, largest %ld, first edge %d..%d w %d\n", components, biggest,
         e[0].u->id, e[0].v->id, e[0].w);
  free(e);
  for (i = 0; i < n; i++)
    free(v[i]);
  free(v);
  return 0;
}
