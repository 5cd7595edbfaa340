/* graphsearch.c - BFS, Dijkstra and DFS on an adjacency-list graph.
 *
 * In the style of the graph code of algorithm textbooks (Sedgewick's
 * "Algorithms in C", Skiena) with vertex records instead of indices:
 * vertices live in one calloc'd array and carry their search state
 * (distance, parent, colour, heap position); each vertex has a singly
 * linked list of edge records pointing at the target vertex.  BFS uses an
 * intrusive queue through a `qnext` field, Dijkstra a binary heap that is
 * a malloc'd array of vertex pointers whose entries know their own
 * position (decrease-key), and a recursive DFS classifies edges and
 * computes finishing times.  Shapes: pointers into an array of nodes
 * (`&g->v[i]`), two node types pointing at each other, a heap array of
 * node pointers with swaps, parent pointers followed to rebuild a path,
 * a graph header struct holding the array.
 *
 * Usage: graphsearch [vertices [degree]]       (default 60000 5)
 */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>

enum { WHITE, GREY, BLACK };

struct CP_COMPACT vertex {
  int id;
  int color;
  long dist;
  int heappos;
  int disc, fin;
  struct vertex *parent;
  struct vertex *qnext;          /* BFS queue */
  struct edge *adj;
};

struct CP_COMPACT edge {
  struct vertex *to;
  int weight;
  struct edge *next;
};

struct graph {
  int nv;
  long ne;
  struct vertex *v;
};

static struct graph *graph_new(int n)
{
  struct graph *g = malloc(sizeof *g);
  int i;

  g->nv = n;
  g->ne = 0;
  g->v = calloc(n, sizeof(struct vertex));
  for (i = 0; i < n; i++)
    g->v[i].id = i;
  return g;
}

static void add_edge(struct graph *g, int a, int b, int w)
{
  struct edge *e = malloc(sizeof *e);

  e->to = &g->v[b];
  e->weight = w;
  e->next = g->v[a].adj;
  g->v[a].adj = e;
  g->ne++;
}

static void reset(struct graph *g)
{
  struct vertex *u;

  for (u = g->v; u < g->v + g->nv; u++) {
    u->color = WHITE;
    u->dist = LONG_MAX;
    u->parent = NULL;
    u->qnext = NULL;
  }
}

static long bfs(struct graph *g, struct vertex *s, int *reached)
{
  struct vertex *head = s, *tail = s, *u;
  long sum = 0;
  struct edge *e;

  reset(g);
  s->color = GREY;
  s->dist = 0;
  *reached = 0;
  for (u = head; u != NULL; u = u->qnext) {
    ++*reached;
    sum += u->dist;
    for (e = u->adj; e; e = e->next)
      if (e->to->color == WHITE) {
        e->to->color = GREY;
        e->to->dist = u->dist + 1;
        e->to->parent = u;
        tail->qnext = e->to;
        tail = e->to;
      }
    u->color = BLACK;
  }
  return sum;
}

/* binary min-heap on dist */
static struct vertex **heap;
static int heapn;

static void heap_swap(int i, int j)
{
  struct vertex *t = heap[i];

  heap[i] = heap[j];
  heap[j] = t;
  heap[i]->heappos = i;
  heap[j]->heappos = j;
}

static void sift_up(int i)
{
  while (i > 0 && heap[(i - 1) / 2]->dist > heap[i]->dist) {
    heap_swap(i, (i - 1) / 2);
    i = (i - 1) / 2;
  }
}

static void sift_down(int i)
{
  for (;;) {
    int l = 2 * i + 1, r = l + 1, m = i;

    if (l < heapn && heap[l]->dist < heap[m]->dist) m = l;
    if (r < heapn && heap[r]->dist < heap[m]->dist) m = r;
    if (m == i)
      return;
    heap_swap(i, m);
    i = m;
  }
}

static long dijkstra(struct graph *g, struct vertex *s, long *maxd)
{
  struct vertex *u;
  struct edge *e;
  long sum = 0;

  reset(g);
  heap = malloc(g->nv * sizeof(struct vertex *));
  heapn = 0;
  s->dist = 0;
  s->heappos = 0;
  heap[heapn++] = s;
  s->color = GREY;
  *maxd = 0;
  while (heapn > 0) {
    u = heap[0];
    heap_swap(0, --heapn);
    sift_down(0);
    u->color = BLACK;
    sum += u->dist;
    if (u->dist > *maxd)
      *maxd = u->dist;
    for (e = u->adj; e; e = e->next) {
      struct vertex *w = e->to;

      if (w->color != BLACK && u->dist + e->weight < w->dist) {
        w->dist = u->dist + e->weight;
        w->parent = u;
        if (w->color == WHITE) {
          w->color = GREY;
          w->heappos = heapn;
          heap[heapn++] = w;
        }
        sift_up(w->heappos);
      }
    }
  }
  free(heap);
  heap = NULL;
  return sum;
}

static int timer, back_edges;

static void dfs_visit(struct vertex *u, int depth)
{
  struct edge *e;

  u->color = GREY;
  u->disc = ++timer;
  for (e = u->adj; e; e = e->next) {
    if (e->to->color == WHITE && depth < 5000) {
      e->to->parent = u;
      dfs_visit(e->to, depth + 1);
    } else if (e->to->color == GREY) {
      back_edges++;
    }
  }
  u->color = BLACK;
  u->fin = ++timer;
}

static int path_length(struct vertex *t)
{
  int n = 0;

  for (; t->parent; t = t->parent)
    n++;
  return n;
}

int main(int argc, char *argv[])
{
  int n = argc > 1 ? atoi(argv[1]) : 60000, deg = argc > 2 ? atoi(argv[2]) : 5;
  struct graph *g;
  unsigned long long s = 7;
  int i, j, reached;
  long sum, maxd, finsum = 0;
  struct vertex *u;

  if (n < 2) n = 2;
  g = graph_new(n);
  for (i = 0; i < n; i++)
    for (j = 0; j < deg; j++) {
      int to;

      s = s * 2862933555777941757ULL + 3037000493ULL;
      to = j == 0 ? (i + 1) % n : (int)((s >> 33) % (unsigned)n);
      add_edge(g, i, to, 1 + (int)((s >> 20) % 1000));
    }
  sum = bfs(g, &g->v[0], &reached);
  printf("%d vertices %ld edges; bfs reached %d, distance sum %ld, path to last %d\n", n,
         g->ne, reached, sum, path_length(&g->v[n - 1]));
  sum = dijkstra(g, &g->v[0], &maxd);
  printf("dijkstra: distance sum %ld, max %ld, hops to last %d\n", sum, maxd,
         path_length(&g->v[n - 1]));
  reset(g);
  for (u = g->v; u < g->v + n; u++)
    if (u->color == WHITE)
      dfs_visit(u, 0);
  for (u = g->v; u < g->v + n; u++)
    finsum += (long)(u->fin - u->disc) % 1000;
  printf("dfs: back edges %d, finishing checksum %ld\n", back_edges, finsum);
  for (i = 0; i < n; i++)
    while (g->v[i].adj) {
      struct edge *e = g->v[i].adj;

      g->v[i].adj = e->next;
      free(e);
    }
  free(g->v);
  free(g);
  return 0;
}
