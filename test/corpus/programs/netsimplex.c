/*
 * netsimplex.c - a small minimum-cost-flow solver in the style of SPEC's mcf
 *         (primal network simplex with an artificial root, block pricing,
 *         and column generation that grows the arc array with realloc).
 *
 * usage: netsimplex [nodes] [arcs-per-node] [seed]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <compactptr.h>

typedef long cost_t;
typedef long flow_t;

#define UP    1
#define DOWN  0
#define AT_LOWER 1
#define AT_UPPER 2
#define BASIC    0

#define BIGM   100000000L
#define BLOCK  300

typedef struct node node_t;
typedef struct arc arc_t;

struct CP_COMPACT node {
  long number;
  cost_t potential;
  int orientation;
  long depth;
  node_t *pred;
  node_t *child;
  node_t *sibling;
  node_t *sibling_prev;
  arc_t *basic_arc;
  arc_t *firstout, *firstin;
  flow_t flow;           /* flow on basic_arc */
  long supply;
  long mark;
};

struct CP_COMPACT arc {
  node_t *tail, *head;
  arc_t *nextout, *nextin;
  cost_t cost;
  flow_t flow;
  flow_t cap;
  int ident;
  long org_cost;
};

typedef struct network {
  char name[64];
  long n, n_trips;
  long m, max_m, m_org;
  long iterations, bound_exchanges, checksum;
  cost_t optcost;
  node_t *nodes, *stop_nodes;
  arc_t *arcs, *stop_arcs;
  arc_t *dummy_arcs, *stop_dummy;
} network_t;

static unsigned long rng_state;
static unsigned long rng(void)
{
  rng_state = rng_state * 6364136223846793005UL + 1442695040888963407UL;
  return rng_state >> 33;
}

/* ---------------- network construction ---------------- */

static void add_arc(network_t *net, long t, long h, cost_t c, flow_t cap)
{
  arc_t *arc = net->stop_arcs++;
  arc->tail = net->nodes + t;
  arc->head = net->nodes + h;
  arc->cost = arc->org_cost = c;
  arc->cap = cap;
  arc->flow = 0;
  arc->ident = AT_LOWER;
  arc->nextout = arc->tail->firstout;
  arc->tail->firstout = arc;
  arc->nextin = arc->head->firstin;
  arc->head->firstin = arc;
  net->m++;
}

/* grow the arc array; fix every pointer into it the way mcf does */
static int resize_prob(network_t *net, long new_max)
{
  arc_t *arc;
  node_t *node, *stop, *root;
  size_t off;

  arc = (arc_t *)realloc(net->arcs, new_max * sizeof(arc_t));
  if (!arc) {
    fprintf(stderr, "network %s: not enough memory\n", net->name);
    return -1;
  }
  off = (size_t)arc - (size_t)net->arcs;
  net->max_m = new_max;
  net->arcs = arc;
  net->stop_arcs = arc + net->m;

  root = net->nodes;
  for (node = root, stop = net->stop_nodes; node < stop; node++) {
    if (node != root && node->basic_arc >= net->dummy_arcs && node->basic_arc < net->stop_dummy)
      ; /* dummy arcs live in their own array */
    else if (node != root)
      node->basic_arc = (arc_t *)((size_t)node->basic_arc + off);
    if (node->firstout)
      node->firstout = (arc_t *)((size_t)node->firstout + off);
    if (node->firstin)
      node->firstin = (arc_t *)((size_t)node->firstin + off);
  }
  for (arc = net->arcs; arc < net->stop_arcs; arc++) {
    if (arc->nextout)
      arc->nextout = (arc_t *)((size_t)arc->nextout + off);
    if (arc->nextin)
      arc->nextin = (arc_t *)((size_t)arc->nextin + off);
  }
  return 0;
}

static void read_problem(network_t *net, long n, long per)
{
  long i, k, total = 0;
  strcpy(net->name, "generated");
  net->n = n;
  net->nodes = (node_t *)calloc(n + 1, sizeof(node_t));
  net->stop_nodes = net->nodes + n + 1;
  net->max_m = n * per / 2 + 16;
  net->arcs = (arc_t *)calloc(net->max_m, sizeof(arc_t));
  net->dummy_arcs = (arc_t *)calloc(n, sizeof(arc_t));
  net->stop_dummy = net->dummy_arcs + n;
  net->stop_arcs = net->arcs;
  if (!net->nodes || !net->arcs || !net->dummy_arcs) {
    fprintf(stderr, "read_problem: out of memory\n");
    exit(1);
  }
  for (i = 0; i <= n; i++)
    net->nodes[i].number = i;
  for (i = 1; i <= n; i++) {
    long s = (long)(rng() % 41) - 20;
    if (i == n) s = -total;
    net->nodes[i].supply = s;
    total += s;
  }
  /* initial arcs: a ring (so a feasible flow exists) plus random arcs */
  for (i = 1; i <= n; i++)
    add_arc(net, i, i % n + 1, 50 + (cost_t)(rng() % 50), 1000000);
  for (k = n; k < net->max_m; k++) {
    long t = 1 + (long)(rng() % n), h = 1 + (long)(rng() % n);
    if (t == h) continue;
    cost_t c = 1 + (cost_t)(rng() % 1000);
    flow_t cap = 5 + (flow_t)(rng() % 60); /* in order: arguments are not */
    add_arc(net, t, h, c, cap);
  }
  net->m_org = net->m;
}

/* artificial start: every node hangs from the root by a dummy arc */
static void primal_start_artificial(network_t *net)
{
  node_t *node, *root = net->nodes;
  arc_t *arc = net->dummy_arcs;
  root->pred = root->child = root->sibling = root->sibling_prev = NULL;
  root->basic_arc = NULL;
  root->depth = 0;
  root->potential = -BIGM;
  node_t *last = NULL;
  for (node = root + 1; node < net->stop_nodes; node++, arc++) {
    node->pred = root;
    node->child = NULL;
    node->depth = 1;
    node->basic_arc = arc;
    arc->cost = BIGM;
    arc->cap = BIGM;
    arc->ident = BASIC;
    if (node->supply >= 0) {
      node->orientation = UP;
      arc->tail = node; arc->head = root;
      node->potential = root->potential + BIGM;  /* cost + pi(tail) - pi(head) = 0 */
      node->potential = -BIGM - BIGM;
    } else {
      node->orientation = DOWN;
      arc->tail = root; arc->head = node;
      node->potential = root->potential + BIGM;
    }
    arc->flow = node->supply >= 0 ? node->supply : -node->supply;
    node->flow = arc->flow;
    node->sibling = NULL;
    node->sibling_prev = last;
    if (last) last->sibling = node; else root->child = node;
    last = node;
  }
}

/* ---------------- tree maintenance ---------------- */

static cost_t red_cost(const arc_t *a)
{
  return a->cost + a->tail->potential - a->head->potential;
}

static void cut_child(node_t *x)
{
  if (x->sibling_prev) x->sibling_prev->sibling = x->sibling;
  else x->pred->child = x->sibling;
  if (x->sibling) x->sibling->sibling_prev = x->sibling_prev;
  x->sibling = x->sibling_prev = NULL;
}

static void hang_child(node_t *x, node_t *parent)
{
  x->pred = parent;
  x->sibling_prev = NULL;
  x->sibling = parent->child;
  if (parent->child) parent->child->sibling_prev = x;
  parent->child = x;
}

/* recompute depth and potentials below q, non-recursively via the tree */
static long refresh_subtree(node_t *q)
{
  node_t *x = q, *stop = q;
  long visited = 0;
  for (;;) {
    arc_t *a = x->basic_arc;
    x->depth = x->pred->depth + 1;
    if (a->tail == x) x->potential = a->head->potential - a->cost;
    else x->potential = a->tail->potential + a->cost;
    visited++;
    if (x->child) { x = x->child; continue; }
    while (x != stop && !x->sibling) x = x->pred;
    if (x == stop) break;
    x = x->sibling;
  }
  return visited;
}

static arc_t *price_block(network_t *net, arc_t **cursor)
{
  arc_t *arc, *best = NULL;
  cost_t best_v = 0;
  long scanned = 0, m = net->stop_arcs - net->arcs;
  arc = *cursor;
  while (scanned < m) {
    cost_t rc;
    if (arc >= net->stop_arcs) arc = net->arcs;
    if (arc->ident == AT_LOWER && (rc = red_cost(arc)) < 0 && -rc > best_v) {
      best = arc; best_v = -rc;
    } else if (arc->ident == AT_UPPER && (rc = red_cost(arc)) > 0 && rc > best_v) {
      best = arc; best_v = rc;
    }
    arc++; scanned++;
    if (best && scanned % BLOCK == 0) break;
  }
  *cursor = arc;
  return best;
}

/* residual capacity of the tree arc between w and w->pred when flow moves
 * from w towards w->pred (up) or from w->pred towards w (down) */
static flow_t tree_residual(const node_t *w, int up)
{
  const arc_t *a = w->basic_arc;
  int along = (a->tail == w) == up;
  return along ? a->cap - a->flow : a->flow;
}

static void tree_push(node_t *w, int up, flow_t d)
{
  arc_t *a = w->basic_arc;
  if ((a->tail == w) == up) a->flow += d; else a->flow -= d;
  w->flow = a->flow;
}

static void pivot(network_t *net, arc_t *in)
{
  node_t *from, *to, *u, *v, *join, *leave_w = NULL, *q, *p;
  int leave_side = 0;
  flow_t delta;

  if (in->ident == AT_LOWER) { from = in->tail; to = in->head; delta = in->cap - in->flow; }
  else { from = in->head; to = in->tail; delta = in->flow; }

  /* find the join and the blocking arc: flow goes from->to on 'in',
   * up from 'to' to the join, down from the join to 'from' */
  u = to; v = from;
  while (u != v) {
    if (u->depth >= v->depth) {
      flow_t r = tree_residual(u, 1);
      if (r < delta || (r == delta && leave_side == 0)) { delta = r; leave_w = u; leave_side = 1; }
      u = u->pred;
    } else {
      flow_t r = tree_residual(v, 0);
      if (r < delta) { delta = r; leave_w = v; leave_side = 2; }
      v = v->pred;
    }
  }
  join = u;

  if (delta > 0) {
    if (in->ident == AT_LOWER) in->flow += delta; else in->flow -= delta;
    for (u = to; u != join; u = u->pred) tree_push(u, 1, delta);
    for (v = from; v != join; v = v->pred) tree_push(v, 0, delta);
  }
  net->iterations++;

  if (!leave_w) {                      /* bound exchange */
    in->ident = in->ident == AT_LOWER ? AT_UPPER : AT_LOWER;
    net->bound_exchanges++;
    return;
  }

  /* the leaving arc cuts the subtree of leave_w; it contains 'to' or 'from' */
  {
    arc_t *out = leave_w->basic_arc;
    if (out >= net->arcs && out < net->stop_arcs)
      out->ident = out->flow == 0 ? AT_LOWER : AT_UPPER;
  }
  if (leave_side == 1) { q = to; p = from; } else { q = from; p = to; }
  in->ident = BASIC;

  /* reverse the path q .. leave_w and hang it from p by 'in' */
  {
    node_t *x = q, *newp = p;
    arc_t *newarc = in;
    for (;;) {
      node_t *oldp = x->pred;
      arc_t *olda = x->basic_arc;
      int last = x == leave_w;
      cut_child(x);
      hang_child(x, newp);
      x->basic_arc = newarc;
      x->orientation = newarc->tail == x ? UP : DOWN;
      x->flow = newarc->flow;
      if (last) break;
      newp = x; newarc = olda; x = oldp;
    }
  }
  net->checksum += refresh_subtree(q);
}

static long primal_net_simplex(network_t *net)
{
  arc_t *cursor = net->arcs, *in;
  long before = net->iterations;
  while ((in = price_block(net, &cursor)) != NULL)
    pivot(net, in);
  return net->iterations - before;
}

static cost_t flow_cost(network_t *net)
{
  arc_t *arc;
  node_t *node;
  cost_t c = 0;
  long art = 0;
  for (arc = net->arcs; arc < net->stop_arcs; arc++)
    c += arc->flow * arc->org_cost;
  for (node = net->nodes + 1; node < net->stop_nodes; node++)
    if (node->basic_arc >= net->dummy_arcs && node->basic_arc < net->stop_dummy)
      art += node->basic_arc->flow;
  if (art) printf("  artificial flow left: %ld\n", art);
  return c;
}

/* column generation: add arcs between nodes whose potentials say they pay */
static long price_out(network_t *net, long want)
{
  long added = 0, tries = 0;
  if (net->m + want > net->max_m)
    if (resize_prob(net, net->max_m + want + net->max_m / 4) != 0)
      return 0;
  while (added < want && tries < want * 20) {
    long t = 1 + (long)(rng() % net->n), h = 1 + (long)(rng() % net->n);
    cost_t c = 1 + (cost_t)(rng() % 1000);
    tries++;
    if (t == h) continue;
    if (c + net->nodes[t].potential - net->nodes[h].potential >= 0) continue;
    add_arc(net, t, h, c, 5 + (flow_t)(rng() % 60));
    added++;
  }
  return added;
}

static void check_flow(network_t *net)
{
  node_t *node;
  arc_t *arc;
  long bad = 0;
  long *bal = calloc(net->n + 1, sizeof *bal);
  for (arc = net->arcs; arc < net->stop_arcs; arc++) {
    if (arc->flow < 0 || arc->flow > arc->cap) bad++;
    bal[arc->tail - net->nodes] -= arc->flow;
    bal[arc->head - net->nodes] += arc->flow;
  }
  for (node = net->nodes + 1; node < net->stop_nodes; node++) {
    arc_t *a = node->basic_arc;
    long idx = node - net->nodes;
    if (a >= net->dummy_arcs && a < net->stop_dummy) {
      if (a->tail == node) bal[idx] -= a->flow; else bal[idx] += a->flow;
    }
    if (bal[idx] + node->supply != 0) bad++;
  }
  printf("  flow check: %s (%ld violations)\n", bad ? "FAILED" : "ok", bad);
  free(bal);
}

static network_t net;

int main(int argc, char **argv)
{
  long n = argc > 1 ? atol(argv[1]) : 1500;
  long per = argc > 2 ? atol(argv[2]) : 24;
  int round;
  rng_state = argc > 3 ? strtoul(argv[3], NULL, 10) : 12345;

  read_problem(&net, n, per);
  printf("nodes %ld, arcs %ld (max %ld)\n", net.n, net.m, net.max_m);
  primal_start_artificial(&net);
  for (node_t *c = net.nodes->child; c; c = c->sibling)
    refresh_subtree(c);

  for (round = 0; round < 4; round++) {
    long it = primal_net_simplex(&net);
    long added;
    printf("round %d: %ld pivots, cost %ld\n", round, it, flow_cost(&net));
    check_flow(&net);
    added = price_out(&net, net.n * 3);
    printf("  price_out added %ld arcs, m=%ld max_m=%ld\n", added, net.m, net.max_m);
    if (!added) break;
  }
  net.optcost = flow_cost(&net);
  printf("optimal cost %ld, iterations %ld, bound exchanges %ld, checksum %ld\n",
         net.optcost, net.iterations, net.bound_exchanges, net.checksum);
  {
    /* summary of the spanning tree */
    node_t *node;
    long maxd = 0, leaves = 0;
    cost_t psum = 0;
    for (node = net.nodes + 1; node < net.stop_nodes; node++) {
      if (node->depth > maxd) maxd = node->depth;
      if (!node->child) leaves++;
      psum += node->potential % 1000003;
    }
    printf("tree: depth %ld, leaves %ld, potential sum %ld\n", maxd, leaves, psum);
  }
  free(net.arcs);
  free(net.dummy_arcs);
  free(net.nodes);
  return 0;
}
