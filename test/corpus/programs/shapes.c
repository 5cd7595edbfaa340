/* shapes.c - objects with vtables, kept in generic intrusive trees and a quadtree.
 *
 * In the style of object-oriented C (GObject-less toolkits, drawing
 * programs, the "shape" example of many C courses): every shape begins
 * with a base struct whose first member is a pointer to a table of
 * function pointers (area, perimeter, scale, name), and derived structs
 * begin with the base.  Shapes are allocated in batches, one malloc'd
 * array per batch and kind (`struct circle *items = malloc(n * sizeof
 * *items)`); a shape finds its batch by comparing its address against the
 * array's bounds (p >= b->items && p < b->items + b->n).  Each shape is
 * linked into two trees at once through embedded links, `struct tlink
 * by_area, by_pos;`, handled by one generic treap that knows nothing of
 * shapes: it takes a comparison callback, and the callbacks get back to
 * the shape with container_of.  A point quadtree over the shapes keeps
 * arrays of shape pointers in its nodes.
 *
 * Usage: shapes [count [rounds]]       (default 30000 6)
 */
#include <compactptr.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

#define container_of(ptr, type, member) \
    ((type *)((char *)(ptr) - offsetof(type, member)))

/* ---- a generic treap over embedded links -------------------------------- */

struct CP_COMPACT tlink {
    struct tlink *left, *right;
    unsigned prio;
};

typedef int (*tcmp_fn)(const struct tlink *, const struct tlink *);
typedef void (*tvisit_fn)(struct tlink *, void *);

static unsigned long seed = 42;

static unsigned rnd(void)
{
    seed = seed * 2862933555777941757UL + 3037000493UL;
    return (unsigned)(seed >> 32);
}

static void t_insert(struct tlink **root, struct tlink *n, tcmp_fn cmp)
{
    struct tlink *t = *root;

    if (!t) {
        n->left = n->right = NULL;
        *root = n;
        return;
    }
    if (cmp(n, t) < 0) {
        t_insert(&t->left, n, cmp);
        if (t->left->prio > t->prio) {
            struct tlink *l = t->left;
            t->left = l->right;
            l->right = t;
            *root = l;
        }
    } else {
        t_insert(&t->right, n, cmp);
        if (t->right->prio > t->prio) {
            struct tlink *r = t->right;
            t->right = r->left;
            r->left = t;
            *root = r;
        }
    }
}

static struct tlink *t_join(struct tlink *a, struct tlink *b)
{
    if (!a)
        return b;
    if (!b)
        return a;
    if (a->prio > b->prio) {
        a->right = t_join(a->right, b);
        return a;
    }
    b->left = t_join(a, b->left);
    return b;
}

/* removes exactly n (found by cmp, then by identity) */
static int t_remove(struct tlink **root, struct tlink *n, tcmp_fn cmp)
{
    while (*root) {
        struct tlink *t = *root;
        int c;

        if (t == n) {
            *root = t_join(t->left, t->right);
            n->left = n->right = NULL;
            return 1;
        }
        c = cmp(n, t);
        root = c < 0 ? &t->left : &t->right;
    }
    return 0;
}

static void t_walk(struct tlink *t, tvisit_fn visit, void *ctx)
{
    while (t) {
        t_walk(t->left, visit, ctx);
        visit(t, ctx);
        t = t->right;
    }
}

/* ---- shapes ------------------------------------------------------------- */

struct shape;

struct shape_ops {
    const char *name;
    long (*area)(const struct shape *);
    long (*perimeter)(const struct shape *);
    void (*scale)(struct shape *, int num, int den);
};

struct shape {
    const struct shape_ops *ops;
    int id;
    int x, y;
    int alive;
    struct tlink by_area;
    struct tlink by_pos;
};

struct circle {
    struct shape base;
    int r;
};

struct rect {
    struct shape base;
    int w, h;
};

static long circle_area(const struct shape *s)
{
    const struct circle *c = (const struct circle *)s;
    return 355L * c->r * c->r / 113;
}

static long circle_perimeter(const struct shape *s)
{
    const struct circle *c = (const struct circle *)s;
    return 710L * c->r / 113;
}

static void circle_scale(struct shape *s, int num, int den)
{
    struct circle *c = (struct circle *)s;
    c->r = c->r * num / den + 1;
}

static long rect_area(const struct shape *s)
{
    const struct rect *r = (const struct rect *)s;
    return (long)r->w * r->h;
}

static long rect_perimeter(const struct shape *s)
{
    const struct rect *r = (const struct rect *)s;
    return 2L * (r->w + r->h);
}

static void rect_scale(struct shape *s, int num, int den)
{
    struct rect *r = (struct rect *)s;
    r->w = r->w * num / den + 1;
    r->h = r->h * den / num + 1;
}

static const struct shape_ops circle_ops = { "circle", circle_area, circle_perimeter, circle_scale };
static const struct shape_ops rect_ops = { "rect", rect_area, rect_perimeter, rect_scale };

static int cmp_area(const struct tlink *a, const struct tlink *b)
{
    const struct shape *x = container_of(a, struct shape, by_area);
    const struct shape *y = container_of(b, struct shape, by_area);
    long ax = x->ops->area(x), ay = y->ops->area(y);

    if (ax != ay)
        return ax < ay ? -1 : 1;
    return x->id - y->id;
}

static int cmp_pos(const struct tlink *a, const struct tlink *b)
{
    const struct shape *x = container_of(a, struct shape, by_pos);
    const struct shape *y = container_of(b, struct shape, by_pos);

    if (x->y != y->y)
        return x->y < y->y ? -1 : 1;
    if (x->x != y->x)
        return x->x < y->x ? -1 : 1;
    return x->id - y->id;
}

/* batches: one array per kind */
struct batch {
    struct batch *next;
    int n;
    struct circle *circles;
    struct rect *rects;
};

static struct batch *batches;
static struct tlink *area_root, *pos_root;
static int next_id;

static void init_shape(struct shape *s, const struct shape_ops *ops)
{
    s->ops = ops;
    s->id = next_id++;
    s->x = (int)(rnd() % 4096);
    s->y = (int)(rnd() % 4096);
    s->alive = 1;
    s->by_area.prio = rnd();
    s->by_pos.prio = rnd();
    t_insert(&area_root, &s->by_area, cmp_area);
    t_insert(&pos_root, &s->by_pos, cmp_pos);
}

static void new_batch(int n)
{
    struct batch *b = malloc(sizeof *b);
    int i;

    b->n = n;
    b->circles = malloc(n * sizeof *b->circles);
    b->rects = malloc(n * sizeof *b->rects);
    for (i = 0; i < n; i++) {
        b->circles[i].r = 1 + (int)(rnd() % 100);
        init_shape(&b->circles[i].base, &circle_ops);
        b->rects[i].w = 1 + (int)(rnd() % 150);
        b->rects[i].h = 1 + (int)(rnd() % 150);
        init_shape(&b->rects[i].base, &rect_ops);
    }
    b->next = batches;
    batches = b;
}

/* which batch, and which slot, holds s? */
static int locate(const struct shape *s, int *slot)
{
    const struct batch *b;
    int k = 0;

    for (b = batches; b; b = b->next, k++) {
        if (s->ops == &circle_ops) {
            const struct circle *c = (const struct circle *)s;

            if (c >= b->circles && c < b->circles + b->n) {
                *slot = (int)(c - b->circles);
                return k;
            }
        } else {
            const struct rect *r = (const struct rect *)s;

            if (r >= b->rects && r < b->rects + b->n) {
                *slot = (int)(r - b->rects);
                return k;
            }
        }
    }
    return -1;
}

/* ---- a point quadtree --------------------------------------------------- */

#define QCAP 8

static long q_overflow;

struct qnode {
    int x0, y0, size;
    int n;
    struct qnode *kid[4];
    struct shape *items[QCAP];
};

static struct qnode *qnew(int x0, int y0, int size)
{
    struct qnode *q = calloc(1, sizeof *q);

    q->x0 = x0;
    q->y0 = y0;
    q->size = size;
    return q;
}

static void qinsert(struct qnode *q, struct shape *s)
{
    for (;;) {
        int half = q->size / 2, k;

        if (q->n < QCAP) {
            q->items[q->n++] = s;
            return;
        }
        if (half == 0) {
            q_overflow++;
            return;
        }
        k = (s->x >= q->x0 + half) + 2 * (s->y >= q->y0 + half);
        if (!q->kid[k])
            q->kid[k] = qnew(q->x0 + (k & 1) * half, q->y0 + (k >> 1) * half, half);
        q = q->kid[k];
    }
}

static long qquery(const struct qnode *q, int x0, int y0, int x1, int y1, long *cnt)
{
    long sum = 0;
    int i;

    if (!q || q->x0 >= x1 || q->y0 >= y1 || q->x0 + q->size <= x0 || q->y0 + q->size <= y0)
        return 0;
    for (i = 0; i < q->n; i++) {
        const struct shape *s = q->items[i];

        if (s->alive && s->x >= x0 && s->x < x1 && s->y >= y0 && s->y < y1) {
            sum += s->ops->perimeter(s);
            ++*cnt;
        }
    }
    for (i = 0; i < 4; i++)
        sum += qquery(q->kid[i], x0, y0, x1, y1, cnt);
    return sum;
}

static void qfree(struct qnode *q)
{
    int i;

    if (!q)
        return;
    for (i = 0; i < 4; i++)
        qfree(q->kid[i]);
    free(q);
}

/* ---- walking ------------------------------------------------------------ */

struct tally {
    long n;
    unsigned long hash;
    long last;
    int sorted;
};

static void tally_area(struct tlink *l, void *ctx)
{
    struct tally *t = ctx;
    struct shape *s = container_of(l, struct shape, by_area);
    long a = s->ops->area(s);

    if (a < t->last)
        t->sorted = 0;
    t->last = a;
    t->n++;
    t->hash = t->hash * 1000003UL + (unsigned long)a * 7 + (unsigned long)s->id;
}

static void tally_pos(struct tlink *l, void *ctx)
{
    struct tally *t = ctx;
    struct shape *s = container_of(l, struct shape, by_pos);
    int slot = -1, b = locate(s, &slot);

    t->n++;
    t->hash = t->hash * 31 + (unsigned long)(s->x ^ s->y) + (unsigned long)(b * 1000 + slot);
}

int main(int argc, char **argv)
{
    int count = argc > 1 ? atoi(argv[1]) : 30000;
    int rounds = argc > 2 ? atoi(argv[2]) : 6;
    int per = 2000, r, i;
    struct qnode *qt;
    struct batch *b;

    for (i = 0; i < count; i += per)
        new_batch(count - i < per ? count - i : per);
    for (r = 0; r < rounds; r++) {
        struct tally ta = { 0, 0, -1, 1 }, tp = { 0, 0, 0, 1 };
        long cnt = 0, per_sum;
        int x0, y0;

        /* scale a share of the shapes: their area changes, so re-insert */
        for (b = batches; b; b = b->next) {
            for (i = r % 5; i < b->n; i += 5) {
                struct shape *s = i & 1 ? &b->circles[i].base : &b->rects[i].base;

                if (!s->alive)
                    continue;
                t_remove(&area_root, &s->by_area, cmp_area);
                s->ops->scale(s, 3 + r, 4);
                t_insert(&area_root, &s->by_area, cmp_area);
            }
            /* kill some */
            for (i = r; i < b->n; i += 97) {
                struct shape *s = &b->rects[i].base;

                if (s->alive) {
                    s->alive = 0;
                    t_remove(&area_root, &s->by_area, cmp_area);
                    t_remove(&pos_root, &s->by_pos, cmp_pos);
                }
            }
        }
        if (r == rounds / 2)
            new_batch(per);
        t_walk(area_root, tally_area, &ta);
        t_walk(pos_root, tally_pos, &tp);
        qt = qnew(0, 0, 4096);
        for (b = batches; b; b = b->next)
            for (i = 0; i < b->n; i++) {
                qinsert(qt, &b->circles[i].base);
                qinsert(qt, &b->rects[i].base);
            }
        x0 = (int)(rnd() % 3000);
        y0 = (int)(rnd() % 3000);
        per_sum = qquery(qt, x0, y0, x0 + 1000, y0 + 1000, &cnt);
        qfree(qt);
        printf("round %d: area %ld shapes (sorted %d) %016lx  pos %ld %016lx  window %ld perim %ld\n",
               r, ta.n, ta.sorted, ta.hash, tp.n, tp.hash, cnt, per_sum);
    }
    {
        struct shape *big;
        struct tlink *l = area_root;

        while (l->right)
            l = l->right;
        big = container_of(l, struct shape, by_area);
        printf("largest: %s #%d area %ld (quadtree overflow %ld)\n", big->ops->name, big->id,
               big->ops->area(big), q_overflow);
    }
    while (batches) {
        b = batches;
        batches = b->next;
        free(b->circles);
        free(b->rects);
        free(b);
    }
    return 0;
}
