/* graph.c - adjacency-list graph: BFS and DFS, then node and edge frees.
 *
 * n vertices, each allocated separately and indexed by a root array, with
 * `deg` random out-edges each (edge nodes on a singly linked adjacency
 * list), plus a ring through all vertices so everything is reachable.
 * Rounds: BFS from a source through an intrusive queue link, iterative DFS
 * with an explicit stack (a root array), then delete 1/8 of the vertices:
 * every edge into or out of them is freed, then the vertices, and new
 * vertices with new edges take their place.
 * Self-check: BFS distances are consistent (every edge out of a reached
 * vertex u leads to a reached v with d[v] <= d[u] + 1), BFS and DFS reach
 * the same number of vertices, and the edges freed at the end match the
 * running count.
 *
 * Nodes: edge 16 bytes native (malloc chunk 32), 8 compact; vertex 32
 * bytes native (chunk 48), 20 compact.
 * Usage: graph [n] [rounds] [deg]   defaults: 15000 3 6 (quick);
 *        full: 600000 2 6
 * Output: "ok graph n=... reached=..." or "FAIL ..." with exit 1. */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct vertex;

struct CP_COMPACT edge {
  struct vertex *to;
  struct edge *next;
};

struct CP_COMPACT vertex {
  int id;
  int dist;
  struct edge *adj;
  struct vertex *qnext; /* BFS queue */
  int dead;
};

static unsigned long long rs = 0xABCDEF0123456789ULL;
static unsigned long rnd(unsigned long bound) {
  rs ^= rs >> 12;
  rs ^= rs << 25;
  rs ^= rs >> 27;
  return (unsigned long)((rs * 2685821657736338717ULL) >> 11) % bound;
}

static long nedges;

static void add_edge(struct vertex *from, struct vertex *to) {
  struct edge *e = malloc(sizeof(struct edge));
  if (!e) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  e->to = to;
  e->next = from->adj;
  from->adj = e;
  nedges++;
}

static struct vertex *new_vertex(int id) {
  struct vertex *v = malloc(sizeof(struct vertex));
  if (!v) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  v->id = id;
  v->dist = -1;
  v->adj = NULL;
  v->qnext = NULL;
  v->dead = 0;
  return v;
}

/* Returns the number of vertices reached; checks distances. */
static long bfs(struct vertex **vs, long n, struct vertex *src, long *dsum) {
  struct vertex *head = src, *tail = src;
  long i, reached = 0;
  for (i = 0; i < n; i++) {
    vs[i]->dist = -1;
    vs[i]->qnext = NULL;
  }
  src->dist = 0;
  *dsum = 0;
  while (head) {
    struct edge *e;
    reached++;
    *dsum += head->dist;
    for (e = head->adj; e; e = e->next)
      if (e->to->dist < 0) {
        e->to->dist = head->dist + 1;
        tail->qnext = e->to;
        tail = e->to;
      }
    head = head->qnext;
  }
  for (i = 0; i < n; i++) { /* consistency */
    struct edge *e;
    if (vs[i]->dist < 0) continue;
    for (e = vs[i]->adj; e; e = e->next)
      if (e->to->dist < 0 || e->to->dist > vs[i]->dist + 1) return -1;
  }
  return reached;
}

static long dfs(struct vertex **vs, long n, struct vertex *src,
                struct vertex **stack) {
  long i, sp = 0, reached = 0;
  for (i = 0; i < n; i++) vs[i]->dist = -1;
  stack[sp++] = src;
  src->dist = 0;
  while (sp) {
    struct vertex *v = stack[--sp];
    struct edge *e;
    reached++;
    for (e = v->adj; e; e = e->next)
      if (e->to->dist < 0) {
        e->to->dist = v->dist + 1;
        stack[sp++] = e->to;
      }
  }
  return reached;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 15000;
  int rounds = argc > 2 ? atoi(argv[2]) : 3, r;
  int deg = argc > 3 ? atoi(argv[3]) : 6, d;
  struct vertex **vs, **stack;
  long i, reached = 0, dsum = 0, freed_edges = 0, next_id;
  unsigned long long total_dsum = 0;
  if (n < 16 || n > 50000000 || rounds < 0 || deg < 1) {
    fprintf(stderr, "usage: graph [n] [rounds] [deg]\n");
    return 2;
  }
  vs = malloc((size_t)n * sizeof(struct vertex *));
  stack = malloc((size_t)n * sizeof(struct vertex *));
  if (!vs || !stack) return 2;
  for (i = 0; i < n; i++) vs[i] = new_vertex((int)i);
  next_id = n;
  for (i = 0; i < n; i++) {
    add_edge(vs[i], vs[(i + 1) % n]);
    for (d = 0; d < deg; d++) add_edge(vs[i], vs[rnd((unsigned long)n)]);
  }
  for (r = 0; r <= rounds; r++) {
    long dreached;
    struct vertex *src = vs[rnd((unsigned long)n)];
    reached = bfs(vs, n, src, &dsum);
    if (reached < 0) {
      printf("FAIL graph round=%d inconsistent BFS distances\n", r);
      return 1;
    }
    dreached = dfs(vs, n, src, stack);
    if (dreached != reached) {
      printf("FAIL graph round=%d bfs reached %ld, dfs reached %ld\n", r,
             reached, dreached);
      return 1;
    }
    total_dsum += (unsigned long long)dsum;
    if (r == rounds) break;
    /* delete every vertex with rnd < 1/8: free edges into and out of them */
    for (i = 0; i < n; i++) vs[i]->dead = rnd(8) == 0;
    for (i = 0; i < n; i++) {
      struct edge *e = vs[i]->adj, *prev = NULL;
      while (e) {
        struct edge *nx = e->next;
        if (vs[i]->dead || e->to->dead) {
          if (prev) prev->next = nx;
          else vs[i]->adj = nx;
          free(e);
          freed_edges++;
          nedges--;
        } else {
          prev = e;
        }
        e = nx;
      }
    }
    for (i = 0; i < n; i++)
      if (vs[i]->dead) {
        free(vs[i]);
        vs[i] = new_vertex((int)next_id++);
        vs[i]->dead = -1; /* fresh in this round */
      }
    /* fresh vertices get new edges; the ring is restored everywhere */
    for (i = 0; i < n; i++) {
      if (vs[i]->adj == NULL || vs[i]->dead < 0) {
        add_edge(vs[i], vs[(i + 1) % n]);
        if (vs[i]->dead < 0)
          for (d = 0; d < deg; d++) add_edge(vs[i], vs[rnd((unsigned long)n)]);
      }
    }
    for (i = 0; i < n; i++) /* ring edge into each fresh vertex */
      if (vs[(i + 1) % n]->dead < 0 && vs[i]->dead == 0)
        add_edge(vs[i], vs[(i + 1) % n]);
    for (i = 0; i < n; i++) vs[i]->dead = 0;
  }
  {
    long counted = 0;
    for (i = 0; i < n; i++) {
      struct edge *e = vs[i]->adj;
      while (e) {
        struct edge *nx = e->next;
        free(e);
        counted++;
        e = nx;
      }
      free(vs[i]);
    }
    if (counted != nedges) {
      printf("FAIL graph edge count %ld, expected %ld\n", counted, nedges);
      return 1;
    }
  }
  free(vs);
  free(stack);
  printf("ok graph n=%ld rounds=%d reached=%ld dist_sum=%llu freed_edges=%ld "
         "new_vertices=%ld\n", n, rounds, reached, total_dsum, freed_edges,
         next_id - n);
  return 0;
}
