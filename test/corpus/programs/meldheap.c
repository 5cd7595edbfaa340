/* meldheap.c - pairing heaps and leftist heaps: Dijkstra and a k-way merge.
 *
 * In the style of algorithm-library C (Fredman/Sedgewick/Sleator/Tarjan's
 * pairing heap as textbooks give it, Crane's leftist heap): the pairing
 * heap keeps children as a leftmost-child / next-sibling list with a
 * `prev` link that points at the parent for a first child, so that
 * decrease-key can cut a node out; delete-min pairs the children in two
 * passes using a growable array of node pointers.  Dijkstra runs on a
 * random graph whose vertices are one malloc'd array of structs
 * (`&g->v[i]`), edges on lists.  Afterwards the vertices are sorted by
 * distance with qsort over an array of pointers, and looked up with
 * bsearch by a key struct.  A leftist heap (recursive merge, swap
 * children by rank) merges k sorted runs of items.
 *
 * Usage: meldheap [vertices [degree]]     (default 60000 6)
 */
#include <compactptr.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- pairing heap over graph vertices ----------------------------------- */

struct edge;

struct CP_COMPACT vertex {
    long dist;
    int id;
    int done;
    struct vertex *child, *next, *prev;   /* pairing-heap links */
    struct edge *edges;
    struct vertex *pred;                  /* shortest-path tree */
};

struct CP_COMPACT edge {
    struct vertex *to;
    int w;
    struct edge *next;
};

struct graph {
    int n;
    struct vertex *v;
};

static struct vertex **pairbuf;
static int pairbuf_cap;

static struct vertex *meld(struct vertex *a, struct vertex *b)
{
    if (!a)
        return b;
    if (!b)
        return a;
    if (b->dist < a->dist || (b->dist == a->dist && b->id < a->id)) {
        struct vertex *t = a;
        a = b;
        b = t;
    }
    /* b becomes the first child of a */
    b->next = a->child;
    if (a->child)
        a->child->prev = b;
    b->prev = a;
    a->child = b;
    a->next = a->prev = NULL;
    return a;
}

static struct vertex *pop_min(struct vertex *root)
{
    struct vertex *c = root->child;
    int n = 0, i;

    while (c) {
        struct vertex *nx = c->next;

        if (n == pairbuf_cap) {
            pairbuf_cap = pairbuf_cap ? 2 * pairbuf_cap : 16;
            pairbuf = realloc(pairbuf, pairbuf_cap * sizeof *pairbuf);
            if (!pairbuf)
                exit(1);
        }
        c->next = c->prev = NULL;
        pairbuf[n++] = c;
        c = nx;
    }
    root->child = NULL;
    if (n == 0)
        return NULL;
    for (i = 0; i + 1 < n; i += 2)
        pairbuf[i / 2] = meld(pairbuf[i], pairbuf[i + 1]);
    if (n & 1)
        pairbuf[(n - 1) / 2] = pairbuf[n - 1];
    n = (n + 1) / 2;
    for (i = n - 1; i > 0; i--)
        pairbuf[i - 1] = meld(pairbuf[i - 1], pairbuf[i]);
    return pairbuf[0];
}

/* cut x (not the root) out of its parent's child list */
static void cut(struct vertex *x)
{
    if (x->prev->child == x)
        x->prev->child = x->next;
    else
        x->prev->next = x->next;
    if (x->next)
        x->next->prev = x->prev;
    x->next = x->prev = NULL;
}

static struct vertex *decrease_key(struct vertex *root, struct vertex *x, long d)
{
    x->dist = d;
    if (x == root)
        return root;
    if (x->prev || x->next)
        cut(x);
    return meld(root, x);
}

static unsigned long seed = 1;

static unsigned rnd(void)
{
    seed = seed * 6364136223846793005UL + 1;
    return (unsigned)(seed >> 33);
}

static void build(struct graph *g, int n, int deg)
{
    int i, k;

    g->n = n;
    g->v = calloc(n, sizeof *g->v);
    if (!g->v)
        exit(1);
    for (i = 0; i < n; i++)
        g->v[i].id = i;
    for (i = 0; i < n; i++) {
        for (k = 0; k < deg; k++) {
            struct edge *e = malloc(sizeof *e);
            int j = k == 0 ? (i + 1) % n : (int)(rnd() % (unsigned)n);

            e->to = &g->v[j];
            e->w = 1 + (int)(rnd() % 1000);
            e->next = g->v[i].edges;
            g->v[i].edges = e;
        }
    }
}

static long dijkstra(struct graph *g, struct vertex *src)
{
    struct vertex *heap = NULL;
    struct vertex *v;
    long pops = 0, decreases = 0;
    int i;

    for (i = 0; i < g->n; i++) {
        v = &g->v[i];
        v->dist = LONG_MAX;
        v->done = 0;
        v->child = v->next = v->prev = v->pred = NULL;
    }
    src->dist = 0;
    heap = src;
    while (heap) {
        struct vertex *u = heap;
        struct edge *e;

        heap = pop_min(u);
        u->done = 1;
        pops++;
        for (e = u->edges; e; e = e->next) {
            struct vertex *t = e->to;
            long nd = u->dist + e->w;

            if (t->done || nd >= t->dist)
                continue;
            t->pred = u;
            if (t->dist == LONG_MAX) {
                t->dist = nd;
                heap = meld(heap, t);
            } else {
                heap = decrease_key(heap, t, nd);
                decreases++;
            }
        }
    }
    return pops * 1000003L + decreases;
}

static int by_dist(const void *a, const void *b)
{
    const struct vertex *x = *(struct vertex *const *)a;
    const struct vertex *y = *(struct vertex *const *)b;

    if (x->dist != y->dist)
        return x->dist < y->dist ? -1 : 1;
    return x->id - y->id;
}

/* ---- leftist heap of items ---------------------------------------------- */

struct CP_COMPACT item {
    int key;
    int run;
    int rank;
    struct item *left, *right;
};

static struct item *lmerge(struct item *a, struct item *b)
{
    struct item *t;

    if (!a)
        return b;
    if (!b)
        return a;
    if (b->key < a->key || (b->key == a->key && b->run < a->run)) {
        t = a;
        a = b;
        b = t;
    }
    a->right = lmerge(a->right, b);
    if (!a->left || a->left->rank < a->right->rank) {
        t = a->left;
        a->left = a->right;
        a->right = t;
    }
    a->rank = a->right ? a->right->rank + 1 : 1;
    return a;
}

static struct item *new_item(int key, int run)
{
    struct item *it = malloc(sizeof *it);

    it->key = key;
    it->run = run;
    it->rank = 1;
    it->left = it->right = NULL;
    return it;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 60000;
    int deg = argc > 2 ? atoi(argv[2]) : 6;
    struct graph g;
    struct vertex **order, **hit, key, *kp;
    struct item *h = NULL, *it;
    long sig, far = 0, found = 0, hops = 0;
    unsigned long hash = 0;
    int i, k, runs = 64;

    if (n < 2)
        n = 2;
    build(&g, n, deg);
    sig = dijkstra(&g, &g.v[0]);
    order = malloc(n * sizeof(struct vertex *));
    for (i = 0; i < n; i++)
        order[i] = &g.v[i];
    qsort(order, n, sizeof order[0], by_dist);
    for (i = 0; i < n; i++)
        hash = hash * 31 + (unsigned long)order[i]->id;
    for (kp = order[n - 1]; kp->pred; kp = kp->pred)
        hops++;
    far = order[n - 1]->dist;
    for (i = 0; i < 2000; i++) {
        struct vertex *target = &g.v[rnd() % (unsigned)n];

        key.dist = target->dist + (i & 1);
        key.id = target->id;
        kp = &key;
        hit = bsearch(&kp, order, n, sizeof order[0], by_dist);
        if (hit && *hit == target)
            found++;
    }
    printf("dijkstra sig %ld farthest %ld (%d hops %ld) order-hash %lx bsearch %ld\n", sig, far,
           order[n - 1]->id, hops, hash, found);

    /* second source, reusing the vertex links */
    sig = dijkstra(&g, &g.v[n / 2]);
    printf("second sig %ld dist[0] %ld\n", sig, g.v[0].dist);

    /* k-way merge of sorted runs with a leftist heap */
    for (k = 0; k < runs; k++) {
        int base = (int)(rnd() % 100);

        for (i = 0; i < n / runs; i++) {
            base += (int)(rnd() % 50);
            h = lmerge(h, new_item(base, k));
        }
    }
    hash = 0;
    i = 0;
    while (h) {
        it = h;
        h = lmerge(it->left, it->right);
        hash = hash * 1000003UL + (unsigned long)it->key * 131 + (unsigned long)it->run;
        i++;
        free(it);
    }
    printf("merged %d items hash %lx\n", i, hash);

    for (i = 0; i < n; i++) {
        struct edge *e, *next;

        for (e = g.v[i].edges; e; e = next) {
            next = e->next;
            free(e);
        }
    }
    free(order);
    free(g.v);
    free(pairbuf);
    return 0;
}
