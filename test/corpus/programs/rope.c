/* rope.c - a text rope as an implicit treap with lazy reversal.
 *
 * In the style of competitive-programming and editor-buffer C: each node
 * holds one character, its subtree size and a pending-reverse flag; the
 * sequence is split by position and merged back.  Both common ways of
 * writing split are used: one returns the two halves as a struct by value
 * (`struct halves split(struct rnode *t, int k)`), the other writes them
 * through out parameters, recursing with `&t->right` as the output slot
 * (`split_at(t->right, k, &t->right, r)`).  A rope is built from a string
 * in linear time with a stack of node pointers (malloc'd array); cut /
 * paste / reverse edits are applied, and the text is read back with an
 * explicit stack iterator.  Nodes of deleted ranges go to a free list
 * that new nodes are taken from.
 *
 * Usage: rope [length [edits]]     (default 100000 40000)
 */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT rnode {
    struct rnode *left, *right;
    unsigned prio;
    int size;
    unsigned char rev;
    char ch;
};

struct halves {
    struct rnode *l, *r;
};

static struct rnode *free_nodes;
static long fresh, reused;
static unsigned long rs = 0x9E3779B97F4A7C15UL;

static unsigned rnd(void)
{
    rs ^= rs >> 12;
    rs ^= rs << 25;
    rs ^= rs >> 27;
    return (unsigned)((rs * 2685821657736338717UL) >> 32);
}

static struct rnode *node(char ch)
{
    struct rnode *n;

    if (free_nodes) {
        n = free_nodes;
        free_nodes = n->right;
        reused++;
    } else {
        n = malloc(sizeof *n);
        if (!n)
            abort();
        fresh++;
    }
    n->left = n->right = NULL;
    n->prio = rnd();
    n->size = 1;
    n->rev = 0;
    n->ch = ch;
    return n;
}

static void discard(struct rnode *t)
{
    if (!t)
        return;
    discard(t->left);
    discard(t->right);
    t->left = NULL;
    t->right = free_nodes;
    free_nodes = t;
}

#define SZ(t) ((t) ? (t)->size : 0)

static void push(struct rnode *t)
{
    if (t && t->rev) {
        struct rnode *tmp = t->left;

        t->left = t->right;
        t->right = tmp;
        if (t->left)
            t->left->rev ^= 1;
        if (t->right)
            t->right->rev ^= 1;
        t->rev = 0;
    }
}

static void pull(struct rnode *t)
{
    t->size = 1 + SZ(t->left) + SZ(t->right);
}

/* first k characters to l, the rest to r */
static void split_at(struct rnode *t, int k, struct rnode **l, struct rnode **r)
{
    if (!t) {
        *l = *r = NULL;
        return;
    }
    push(t);
    if (SZ(t->left) < k) {
        split_at(t->right, k - SZ(t->left) - 1, &t->right, r);
        *l = t;
    } else {
        split_at(t->left, k, l, &t->left);
        *r = t;
    }
    pull(t);
}

static struct halves split(struct rnode *t, int k)
{
    struct halves h;

    split_at(t, k, &h.l, &h.r);
    return h;
}

static struct rnode *merge(struct rnode *a, struct rnode *b)
{
    if (!a)
        return b;
    if (!b)
        return a;
    if (a->prio > b->prio) {
        push(a);
        a->right = merge(a->right, b);
        pull(a);
        return a;
    }
    push(b);
    b->left = merge(a, b->left);
    pull(b);
    return b;
}

/* linear-time build: the rightmost path kept on a stack */
static struct rnode *build(const char *s, int n)
{
    struct rnode **stk = malloc((n + 1) * sizeof *stk);
    int top = 0, i;
    struct rnode *root;

    for (i = 0; i < n; i++) {
        struct rnode *x = node(s[i]), *last = NULL;

        while (top > 0 && stk[top - 1]->prio < x->prio) {
            last = stk[--top];
            pull(last);
        }
        x->left = last;
        if (top > 0)
            stk[top - 1]->right = x;
        stk[top++] = x;
    }
    while (top > 0)
        pull(stk[--top]);
    root = n > 0 ? stk[0] : NULL;
    free(stk);
    return root;
}

/* reads the text out with an explicit stack; returns the length */
static int text(struct rnode *t, char *out, int max)
{
    struct rnode *stack[128];
    int sp = 0, n = 0;

    while ((t || sp > 0) && n < max) {
        while (t) {
            push(t);
            if (sp == 128)
                abort();
            stack[sp++] = t;
            t = t->left;
        }
        t = stack[--sp];
        out[n++] = t->ch;
        t = t->right;
    }
    return n;
}

static int depth(const struct rnode *t)
{
    int a, b;

    if (!t)
        return 0;
    a = depth(t->left);
    b = depth(t->right);
    return 1 + (a > b ? a : b);
}

static unsigned long digest(const char *s, int n)
{
    unsigned long h = 1469598103934665603UL;
    int i;

    for (i = 0; i < n; i++)
        h = (h ^ (unsigned char)s[i]) * 1099511628211UL;
    return h;
}

int main(int argc, char **argv)
{
    int len = argc > 1 ? atoi(argv[1]) : 100000;
    int edits = argc > 2 ? atoi(argv[2]) : 40000;
    char *buf, *out;
    struct rnode *rope, *a, *b, *c;
    int i, n, cap;

    if (len < 10)
        len = 10;
    cap = 4 * len + 64;
    buf = malloc(cap);
    out = malloc(cap);
    for (i = 0; i < len; i++)
        buf[i] = "abcdefghijklmnopqrstuvwxyz .,"[rnd() % 29];
    rope = build(buf, len);
    printf("built %d, depth %d\n", SZ(rope), depth(rope));
    for (i = 0; i < edits; i++) {
        int size = SZ(rope);
        int x = (int)(rnd() % (unsigned)(size + 1));
        int y = (int)(rnd() % (unsigned)(size + 1));

        if (x > y) {
            int t = x;
            x = y;
            y = t;
        }
        switch (rnd() % 4) {
        case 0: {                               /* reverse [x, y) */
            struct halves h1 = split(rope, y);
            struct halves h2 = split(h1.l, x);

            if (h2.r)
                h2.r->rev ^= 1;
            rope = merge(merge(h2.l, h2.r), h1.r);
            break;
        }
        case 1:                                 /* cut [x, y) and paste at the front */
            split_at(rope, y, &a, &c);
            split_at(a, x, &a, &b);
            rope = merge(b, merge(a, c));
            break;
        case 2:                                 /* delete a short range */
            split_at(rope, x, &a, &b);
            split_at(b, (y - x) % 16, &b, &c);
            discard(b);
            rope = merge(a, c);
            break;
        default: {                              /* insert a short string */
            char ins[24];
            int k = 1 + (int)(rnd() % 20), j;

            if (size > 4 * len - 32)
                break;
            for (j = 0; j < k; j++)
                ins[j] = (char)('A' + (i + j) % 26);
            split_at(rope, x, &a, &c);
            rope = merge(merge(a, build(ins, k)), c);
            break;
        }
        }
        if (i % 10000 == 0) {
            n = text(rope, out, cap);
            printf("edit %d: length %d digest %016lx\n", i, n, digest(out, n));
        }
    }
    n = text(rope, out, cap);
    printf("final length %d digest %016lx depth %d\n", n, digest(out, n), depth(rope));
    printf("nodes fresh %ld reused %ld\n", fresh, reused);
    printf("head: %.40s\n", out);
    discard(rope);
    while (free_nodes) {
        a = free_nodes;
        free_nodes = a->right;
        free(a);
    }
    free(buf);
    free(out);
    return 0;
}
