/* graph.c - directed graph with cycles and self-loops: vertices on an
 * all-vertices list, adjacency lists of edge nodes (two compact types that
 * point at each other), BFS through an intrusive queue link, recursive DFS
 * with colours counting back edges, deleting vertices with all edges into
 * them, and a full free.
 * Usage: graph [n]   (default 1000) */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct vertex;

struct CP_COMPACT edge {
  struct vertex *to;
  struct edge *next;
  int weight;
};

struct CP_COMPACT vertex {
  int id;
  int colour; /* 0 white, 1 grey, 2 black; BFS distance reuses dist */
  int dist;
  struct edge *out;
  struct vertex *next_all;
  struct vertex *qnext;
};

static unsigned long long g_seed = 42;
static unsigned rnd(unsigned bound) {
  g_seed = g_seed * 2862933555777941757ULL + 3037000493ULL;
  return (unsigned)(g_seed >> 32) % bound;
}

static void add_edge(struct vertex *from, struct vertex *to, int w) {
  struct edge *e = malloc(sizeof(struct edge));
  if (!e) exit(2);
  e->to = to;
  e->weight = w;
  e->next = from->out;
  from->out = e;
}

static void reset(struct vertex *all) {
  for (; all; all = all->next_all) {
    all->colour = 0;
    all->dist = -1;
    all->qnext = NULL;
  }
}

static long bfs(struct vertex *all, struct vertex *src, long *dist_sum) {
  struct vertex *head = src, *tail = src;
  long reached = 0;
  reset(all);
  src->dist = 0;
  *dist_sum = 0;
  while (head) {
    struct edge *e;
    reached++;
    *dist_sum += head->dist;
    for (e = head->out; e; e = e->next)
      if (e->to->dist < 0) {
        e->to->dist = head->dist + 1;
        tail->qnext = e->to;
        tail = e->to;
      }
    head = head->qnext;
  }
  return reached;
}

static void dfs(struct vertex *v, long *back, long *self, long *visited) {
  struct edge *e;
  v->colour = 1;
  ++*visited;
  for (e = v->out; e; e = e->next) {
    if (e->to == v) ++*self;
    else if (e->to->colour == 1) ++*back;
    else if (e->to->colour == 0) dfs(e->to, back, self, visited);
  }
  v->colour = 2;
}

static void free_edges(struct edge *e) {
  while (e) {
    struct edge *nx = e->next;
    free(e);
    e = nx;
  }
}

/* Removes every edge into v from every vertex, then v itself. */
static struct vertex *delete_vertex(struct vertex *all, struct vertex *v,
                                    long *edges_freed) {
  struct vertex *u, *prev = NULL;
  for (u = all; u; u = u->next_all) {
    while (u->out && u->out->to == v) {
      struct edge *d = u->out;
      u->out = d->next;
      free(d);
      ++*edges_freed;
    }
    if (u->out) {
      struct edge *e = u->out;
      while (e->next) {
        if (e->next->to == v) {
          struct edge *d = e->next;
          e->next = d->next;
          free(d);
          ++*edges_freed;
        } else {
          e = e->next;
        }
      }
    }
  }
  for (u = all; u != v; u = u->next_all) prev = u;
  if (prev) prev->next_all = v->next_all;
  else all = v->next_all;
  free_edges(v->out);
  free(v);
  return all;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
  struct vertex *all = NULL, *last = NULL, *v;
  long i, m, nedges = 0, reached, dsum, back, self, visited, freed = 0;
  if (n < 4) n = 4;
  if (n > 30000) n = 30000; /* recursive DFS depth */

  for (i = 0; i < n; i++) {
    v = calloc(1, sizeof *v);
    if (!v) exit(2);
    v->id = (int)i;
    if (last) last->next_all = v;
    else all = v;
    last = v;
  }
  /* a ring through all vertices (one big cycle), random chords, self loops */
  m = n * 3;
  {
    struct vertex **ix = malloc((size_t)n * sizeof(struct vertex *));
    if (!ix) exit(2);
    for (i = 0, v = all; v; v = v->next_all) ix[i++] = v;
    for (i = 0; i < n; i++) add_edge(ix[i], ix[(i + 1) % n], 1), nedges++;
    for (i = 0; i < m; i++) {
      /* separate statements: argument evaluation order is unspecified */
      unsigned a = rnd((unsigned)n), b = rnd((unsigned)n);
      int w = (int)rnd(100);
      add_edge(ix[a], ix[b], w);
      nedges++;
    }
    for (i = 0; i < n; i += 17) add_edge(ix[i], ix[i], 0), nedges++;
    free(ix);
  }
  reached = bfs(all, all, &dsum);
  printf("edges=%ld bfs reached=%ld dist_sum=%ld\n", nedges, reached, dsum);
  reset(all);
  back = self = visited = 0;
  dfs(all, &back, &self, &visited);
  printf("dfs visited=%ld back=%ld self=%ld\n", visited, back, self);

  /* delete every 3rd vertex */
  {
    int k = 0;
    struct vertex *nx;
    for (v = all; v; v = nx) {
      nx = v->next_all;
      if (k++ % 3 == 1) all = delete_vertex(all, v, &freed);
    }
  }
  reached = bfs(all, all, &dsum);
  {
    long left = 0, ledges = 0;
    unsigned long h = 0;
    struct edge *e;
    for (v = all; v; v = v->next_all) {
      left++;
      for (e = v->out; e; e = e->next) {
        ledges++;
        h = h * 7 + (unsigned long)(e->to->id * 3 + e->weight);
      }
    }
    printf("after delete vertices=%ld edges=%ld freed_edges=%ld bfs=%ld "
           "dist_sum=%ld hash=%lu\n", left, ledges, freed, reached, dsum, h);
  }
  while (all) {
    v = all->next_all;
    free_edges(all->out);
    free(all);
    all = v;
  }
  return 0;
}
