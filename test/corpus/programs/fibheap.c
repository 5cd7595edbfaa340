/* Fibonacci heap (CLRS) with circular doubly-linked root and child lists,
 * used by Dijkstra over a generated sparse graph. */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>

typedef struct CP_COMPACT fib_node {
    long key;
    int degree;
    unsigned char mark;
    struct fib_node *parent, *child, *left, *right;
    struct vertex *v;
} fib_node;

struct CP_COMPACT edge { int to; int w; struct edge *next; };

struct CP_COMPACT vertex {
    int id;
    long dist;
    struct edge *adj;
    fib_node *hn;
    struct vertex *pred;
};

typedef struct fib_heap { fib_node *min; long n; } fib_heap;

#define LIST_INIT(x) ((x)->left = (x)->right = (x))
static void list_splice_after(fib_node *a, fib_node *b) { /* insert b (single) after a */
    b->right = a->right; b->left = a;
    a->right->left = b; a->right = b;
}
static void list_remove(fib_node *x) {
    x->left->right = x->right; x->right->left = x->left;
    x->left = x->right = x;
}

static fib_node *fib_insert(fib_heap *h, long key, struct vertex *v) {
    fib_node *x = calloc(1, sizeof *x);
    x->key = key; x->v = v;
    LIST_INIT(x);
    if (!h->min) h->min = x;
    else { list_splice_after(h->min, x); if (key < h->min->key) h->min = x; }
    h->n++;
    return x;
}

static void fib_link(fib_heap *h, fib_node *y, fib_node *x) {
    (void)h;
    list_remove(y);
    if (!x->child) { x->child = y; LIST_INIT(y); }
    else list_splice_after(x->child, y);
    y->parent = x;
    x->degree++;
    y->mark = 0;
}

static void consolidate(fib_heap *h) {
    fib_node *A[64] = {0};
    fib_node *w, *next, *start;
    int d, i, nroots = 0;
    fib_node **roots;
    w = h->min;
    do { nroots++; w = w->right; } while (w != h->min);
    roots = malloc(nroots * sizeof *roots);
    for (i = 0, w = h->min; i < nroots; i++, w = w->right) roots[i] = w;
    for (i = 0; i < nroots; i++) {
        fib_node *x = roots[i];
        d = x->degree;
        while (A[d]) {
            fib_node *y = A[d];
            if (x->key > y->key || (x->key == y->key && x->v->id > y->v->id)) { fib_node *t = x; x = y; y = t; }
            fib_link(h, y, x);
            A[d] = NULL;
            d++;
        }
        A[d] = x;
    }
    free(roots);
    h->min = NULL;
    for (d = 0; d < 64; d++) {
        if (!A[d]) continue;
        if (!h->min) { h->min = A[d]; LIST_INIT(A[d]); }
        else {
            list_splice_after(h->min, A[d]);
            if (A[d]->key < h->min->key || (A[d]->key == h->min->key && A[d]->v->id < h->min->v->id))
                h->min = A[d];
        }
    }
    (void)next; (void)start;
}

static fib_node *fib_extract_min(fib_heap *h) {
    fib_node *z = h->min, *c;
    if (!z) return NULL;
    if ((c = z->child) != NULL) {
        fib_node *k = c;
        int cnt = z->degree, i;
        for (i = 0; i < cnt; i++) {
            fib_node *nx = k->right;
            k->parent = NULL;
            list_remove(k);
            list_splice_after(z, k);
            k = nx;
        }
        z->child = NULL;
    }
    if (z->right == z) h->min = NULL;
    else {
        h->min = z->right;
        list_remove(z);
        consolidate(h);
    }
    h->n--;
    return z;
}

static void cut(fib_heap *h, fib_node *x, fib_node *y) {
    if (y->child == x) y->child = (x->right == x) ? NULL : x->right;
    list_remove(x);
    y->degree--;
    list_splice_after(h->min, x);
    x->parent = NULL;
    x->mark = 0;
}
static void cascading_cut(fib_heap *h, fib_node *y) {
    fib_node *z = y->parent;
    if (z) {
        if (!y->mark) y->mark = 1;
        else { cut(h, y, z); cascading_cut(h, z); }
    }
}
static void fib_decrease_key(fib_heap *h, fib_node *x, long k) {
    fib_node *y;
    x->key = k;
    y = x->parent;
    if (y && x->key < y->key) { cut(h, x, y); cascading_cut(h, y); }
    if (x->key < h->min->key) h->min = x;
}

static unsigned int seed = 2024;
static unsigned int rnd(void) { seed = seed * 1103515245u + 12345u; return (seed >> 8) & 0xffffff; }

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 20000, i, deg = 6, e;
    struct vertex **V = malloc(n * sizeof(struct vertex *));
    fib_heap H = { NULL, 0 };
    long total = 0, reached = 0, maxd = 0;
    unsigned long chk = 0;
    if (n < 2 || !V)
        return 1;
    for (i = 0; i < n; i++) {
        V[i] = malloc(sizeof(struct vertex));
        V[i]->id = i; V[i]->dist = LONG_MAX; V[i]->adj = NULL; V[i]->hn = NULL; V[i]->pred = NULL;
    }
    for (i = 0; i < n; i++)
        for (e = 0; e < deg; e++) {
            struct edge *ed = malloc(sizeof *ed);
            ed->to = (e == 0) ? (i + 1) % n : (int)(rnd() % n);
            ed->w = 1 + rnd() % 1000;
            ed->next = V[i]->adj; V[i]->adj = ed;
        }
    V[0]->dist = 0;
    for (i = 0; i < n; i++) V[i]->hn = fib_insert(&H, V[i]->dist, V[i]);
    while (H.n) {
        fib_node *m = fib_extract_min(&H);
        struct vertex *u = m->v;
        struct edge *ed;
        u->hn = NULL;
        free(m);
        if (u->dist == LONG_MAX) continue;
        reached++;
        for (ed = u->adj; ed; ed = ed->next) {
            struct vertex *t = V[ed->to];
            if (t->hn && u->dist + ed->w < t->dist) {
                t->dist = u->dist + ed->w;
                t->pred = u;
                fib_decrease_key(&H, t->hn, t->dist);
            }
        }
    }
    for (i = 0; i < n; i++) {
        int hops = 0; struct vertex *p;
        total += V[i]->dist;
        if (V[i]->dist > maxd) maxd = V[i]->dist;
        for (p = V[i]; p->pred; p = p->pred) hops++;
        chk = chk * 31 + V[i]->dist * 7 + hops;
    }
    printf("reached %ld total %ld max %ld chk %lu\n", reached, total, maxd, chk);
    for (i = 0; i < n; i++) {
        struct edge *ed = V[i]->adj, *nx;
        for (; ed; ed = nx) { nx = ed->next; free(ed); }
        free(V[i]);
    }
    free(V);
    return 0;
}
