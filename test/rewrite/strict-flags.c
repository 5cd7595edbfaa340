/*
The code the plugin generates is clean C89 under strict warnings, in
every mode: -std=c89 -Wall -Wextra -Wpedantic -Wconversion -Wcast-qual
-Wshadow -Werror.  (GNU extensions the rewrite needs -- statement
expressions, __typeof__, attributes -- are marked __extension__ or use
the reserved spellings.)  A realistic program: several compact types, a
handle array, by-value copies, allocation and root arrays, loops in
main; switchable also runs with a switch mid-run.
REQUIRES: plugin
RUN: %clang %cflags -std=c89 -O1 %s -o %t.native && %t.native > %t.native.out
RUN: %clang %cflags -std=c89 -Wall -Wextra -Wpedantic -Wconversion -Wcast-qual -Wshadow -Werror -O1 -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co
RUN: %clang %cflags -std=c89 -Wall -Wextra -Wpedantic -Wconversion -Wcast-qual -Wshadow -Werror -O1 -fplugin=%plugin -fplugin-arg-compactptr-mode=switchable %s %runtime -o %t.sw
RUN: %clang %cflags -std=c89 -Wall -Wextra -Wpedantic -Wconversion -Wcast-qual -Wshadow -Werror -O1 -fplugin=%plugin -fplugin-arg-compactptr-mode=wide %s %runtime -o %t.wide
RUN: %t.co > %t.co.out && diff %t.native.out %t.co.out
RUN: %t.sw > %t.sw.out && diff %t.native.out %t.sw.out
RUN: %t.wide > %t.wide.out && diff %t.native.out %t.wide.out
RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_HIGH_WATER=30 COMPACTPTR_STATS=1 COMPACTPTR_VERIFY=1 %t.sw > %t.switch.out 2> %t.switch.err
RUN: diff %t.native.out %t.switch.out && grep -q 'compactptr: switch to wide mode' %t.switch.err
(The RUN lines sit in a block comment: C89 has no // comments.)
*/
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT edge;
struct CP_COMPACT vertex {
  long id;
  struct edge *adj;
  struct vertex *kids[3];
  double weight;
};
struct CP_COMPACT edge {
  struct vertex *to;
  struct edge *next;
  int cost;
};
typedef struct graph { /* inferred compact: it points to vertices */
  struct vertex **all;
  unsigned long n;
} graph_t;

static struct vertex *mkv(long id) {
  struct vertex *v = (struct vertex *)malloc(sizeof(struct vertex));
  int i;
  v->id = id;
  v->adj = NULL;
  v->weight = (double)id / 2.0;
  for (i = 0; i < 3; i++)
    v->kids[i] = NULL;
  return v;
}

static void link_to(struct vertex *a, struct vertex *b, int cost) {
  struct edge *e = (struct edge *)calloc(1, sizeof *e);
  e->to = b;
  e->cost = cost;
  e->next = a->adj;
  a->adj = e;
}

static long cost_sum(const struct vertex *v) {
  long s = 0;
  const struct edge *e;
  for (e = v->adj; e != NULL; e = e->next)
    s += e->cost + e->to->id;
  return s;
}

static struct vertex snapshot(const struct vertex *v) { return *v; }

static void settle(void) { cp_safepoint(); }

int main(void) {
  graph_t g;
  struct vertex copy;
  long total = 0;
  unsigned long i, n = 4000;
  g.n = 0;
  g.all = (struct vertex **)malloc(16 * sizeof(struct vertex *));
  for (i = 0; i < n; i++) {
    struct vertex *v = mkv((long)i); /* a declaration first: after the poll */
    if ((i & (i - 1)) == 0 && i >= 16)
      g.all = (struct vertex **)realloc(g.all, 2 * i * sizeof(struct vertex *));
    g.all[g.n++] = v;
  }
  for (i = 0; i < n; i++) {
    link_to(g.all[i], g.all[(i * 7) % n], (int)(i % 5));
    g.all[i]->kids[i % 3] = g.all[(i + 1) % n];
  }
  for (i = 0; i < n; i++)
    total += cost_sum(g.all[i]);
  for (i = 0; i < 4; i++) { /* a safepoint inside: polled, not versioned */
    struct vertex *v = g.all[i];
    settle();
    total += v->kids[i % 3] != NULL;
  }
  copy = snapshot(g.all[5]);
  copy.id += 1000;
  copy.adj = g.all[6]->adj; /* vertex 6 keeps its own edges */
  *g.all[6] = copy;
  printf("%ld %ld %ld %.1f\n", total, g.all[6]->id, g.all[7]->kids[1]->id,
         g.all[9]->weight);
  for (i = 0; i < n; i++) {
    while (g.all[i]->adj != NULL) {
      struct edge *e = g.all[i]->adj;
      g.all[i]->adj = e->next;
      free(e);
    }
  }
  for (i = 0; i < n; i++)
    free(g.all[i]);
  free(g.all);
  return 0;
}
