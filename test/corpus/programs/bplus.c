/* bplus.c - a B+ tree whose nodes keep their children in a flexible array.
 *
 * In the style of database and file-system index code: the fan-out is a
 * run-time parameter, so a node is allocated as
 * malloc(sizeof(*n) + k * sizeof(n->kids[0])) with `struct bpnode
 * *kids[]` at its end; the keys live in a separately malloc'd int array.
 * Internal nodes start small and are realloc'd to the full fan-out when
 * they fill up (the parent's slot is updated from the descent path, a
 * local array of node pointers and indices).  Leaves are chained through
 * `next` for range scans.  Children are shifted with memmove, split with
 * memcpy.  Deletion is lazy (keys are removed from leaves, empty leaves
 * stay), as in many real indexes.
 *
 * Usage: bplus [keys [order]]      (default 200000 16)
 */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT bpnode {
    int nkeys;
    int cap;                /* room in kids[] (internal) or keys[] (leaf) */
    int leaf;
    int *keys;
    struct bpnode *next;    /* leaf chain */
    struct bpnode *kids[];  /* nkeys + 1 children when internal */
};

struct path_elem {
    struct bpnode *node;
    int idx;
};

static int order = 16;
static long nodes_made, reallocs;

static void *xmalloc(size_t n)
{
    void *p = malloc(n);

    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    return p;
}

static struct bpnode *new_leaf(void)
{
    struct bpnode *n = malloc(sizeof(*n));

    if (!n)
        exit(1);
    n->nkeys = 0;
    n->cap = order;
    n->leaf = 1;
    n->keys = xmalloc(order * sizeof(int));
    n->next = NULL;
    nodes_made++;
    return n;
}

static struct bpnode *new_internal(int kids)
{
    struct bpnode *n = malloc(sizeof(*n) + kids * sizeof(n->kids[0]));

    if (!n)
        exit(1);
    n->nkeys = 0;
    n->cap = kids;
    n->leaf = 0;
    n->keys = xmalloc(order * sizeof(int));
    n->next = NULL;
    memset(n->kids, 0, kids * sizeof(n->kids[0]));
    nodes_made++;
    return n;
}

static struct bpnode *grow_internal(struct bpnode *n)
{
    int newcap = n->cap * 2 > order + 1 ? order + 1 : n->cap * 2;
    struct bpnode *m = realloc(n, sizeof(*m) + newcap * sizeof(m->kids[0]));

    if (!m)
        exit(1);
    m->cap = newcap;
    reallocs++;
    return m;
}

static int find_slot(const struct bpnode *n, int key)
{
    int lo = 0, hi = n->nkeys;

    while (lo < hi) {
        int mid = (lo + hi) / 2;

        if (n->keys[mid] <= key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* inserts key/child at position idx of internal node n (which has room) */
static void internal_put(struct bpnode *n, int idx, int key, struct bpnode *right)
{
    memmove(&n->keys[idx + 1], &n->keys[idx], (n->nkeys - idx) * sizeof(int));
    memmove(&n->kids[idx + 2], &n->kids[idx + 1], (n->nkeys - idx) * sizeof(n->kids[0]));
    n->keys[idx] = key;
    n->kids[idx + 1] = right;
    n->nkeys++;
}

static struct bpnode *insert(struct bpnode *root, int key, int *dup)
{
    struct path_elem path[64];
    int depth = 0, i, sep;
    struct bpnode *n = root, *right;

    while (!n->leaf) {
        i = find_slot(n, key);
        path[depth].node = n;
        path[depth].idx = i;
        depth++;
        n = n->kids[i];
    }
    i = find_slot(n, key);
    if (i > 0 && n->keys[i - 1] == key) {
        *dup = 1;
        return root;
    }
    *dup = 0;
    if (n->nkeys < order) {
        memmove(&n->keys[i + 1], &n->keys[i], (n->nkeys - i) * sizeof(int));
        n->keys[i] = key;
        n->nkeys++;
        return root;
    }
    /* split the leaf: a temporary of order + 1 keys */
    {
        int tmp[order + 1];
        int half = (order + 1) / 2;

        memcpy(tmp, n->keys, i * sizeof(int));
        tmp[i] = key;
        memcpy(tmp + i + 1, n->keys + i, (order - i) * sizeof(int));
        right = new_leaf();
        memcpy(n->keys, tmp, half * sizeof(int));
        n->nkeys = half;
        memcpy(right->keys, tmp + half, (order + 1 - half) * sizeof(int));
        right->nkeys = order + 1 - half;
        right->next = n->next;
        n->next = right;
        sep = right->keys[0];
    }
    /* carry the separator up */
    while (depth > 0) {
        struct bpnode *p = path[--depth].node;
        int idx = path[depth].idx;

        if (p->nkeys + 2 > p->cap && p->cap < order + 1) {
            struct bpnode *q = grow_internal(p);

            if (depth > 0)
                path[depth - 1].node->kids[path[depth - 1].idx] = q;
            else
                root = q;
            p = q;
        }
        if (p->nkeys < order) {
            internal_put(p, idx, sep, right);
            return root;
        }
        /* split the internal node p: order keys + 1 new */
        {
            int tk[order + 1];
            struct bpnode **tc = xmalloc((order + 2) * sizeof(struct bpnode *));
            int mid = (order + 1) / 2, k;
            struct bpnode *q;

            memcpy(tk, p->keys, idx * sizeof(int));
            tk[idx] = sep;
            memcpy(tk + idx + 1, p->keys + idx, (order - idx) * sizeof(int));
            for (k = 0; k <= idx; k++)
                tc[k] = p->kids[k];
            tc[idx + 1] = right;
            for (k = idx + 1; k <= order; k++)
                tc[k + 1] = p->kids[k];

            q = new_internal(order + 1);
            p->nkeys = mid;
            memcpy(p->keys, tk, mid * sizeof(int));
            for (k = 0; k <= mid; k++)
                p->kids[k] = tc[k];
            for (k = mid + 1; k <= order; k++)
                p->kids[k] = NULL;
            q->nkeys = order - mid;
            memcpy(q->keys, tk + mid + 1, q->nkeys * sizeof(int));
            for (k = 0; k <= q->nkeys; k++)
                q->kids[k] = tc[mid + 1 + k];
            sep = tk[mid];
            right = q;
            free(tc);
        }
    }
    /* new root */
    {
        struct bpnode *r = new_internal(2);

        r->kids[0] = root;
        r->kids[1] = right;
        r->keys[0] = sep;
        r->nkeys = 1;
        return r;
    }
}

static struct bpnode *find_leaf(struct bpnode *n, int key)
{
    while (!n->leaf)
        n = n->kids[find_slot(n, key)];
    return n;
}

static int contains(struct bpnode *root, int key)
{
    struct bpnode *l = find_leaf(root, key);
    int i = find_slot(l, key);

    return i > 0 && l->keys[i - 1] == key;
}

static int erase(struct bpnode *root, int key)
{
    struct bpnode *l = find_leaf(root, key);
    int i = find_slot(l, key);

    if (i == 0 || l->keys[i - 1] != key)
        return 0;
    memmove(&l->keys[i - 1], &l->keys[i], (l->nkeys - i) * sizeof(int));
    l->nkeys--;
    return 1;
}

/* sum and count of keys in [lo, hi) by walking the leaf chain */
static long range(struct bpnode *root, int lo, int hi, long *count)
{
    struct bpnode *l = find_leaf(root, lo);
    long sum = 0;
    int i;

    *count = 0;
    for (; l; l = l->next) {
        for (i = 0; i < l->nkeys; i++) {
            if (l->keys[i] >= hi)
                return sum;
            if (l->keys[i] >= lo) {
                sum += l->keys[i];
                ++*count;
            }
        }
    }
    return sum;
}

static int height(const struct bpnode *n)
{
    int h = 1;

    while (!n->leaf) {
        n = n->kids[0];
        h++;
    }
    return h;
}

static long check(const struct bpnode *n, long *leaves)
{
    long total = 0;
    int i;

    if (n->leaf) {
        ++*leaves;
        return n->nkeys;
    }
    for (i = 0; i <= n->nkeys; i++)
        total += check(n->kids[i], leaves);
    return total;
}

static void destroy(struct bpnode *n)
{
    int i;

    if (!n->leaf)
        for (i = 0; i <= n->nkeys; i++)
            destroy(n->kids[i]);
    free(n->keys);
    free(n);
}

int main(int argc, char **argv)
{
    long nkeys = argc > 1 ? atol(argv[1]) : 200000;
    struct bpnode *root;
    unsigned long x = 12345;
    long i, dups = 0, found = 0, erased = 0, leaves = 0, cnt;
    int dup;

    order = argc > 2 ? atoi(argv[2]) : 16;
    if (order < 3)
        order = 3;
    root = new_leaf();
    for (i = 0; i < nkeys; i++) {
        x = x * 6364136223846793005UL + 1442695040888963407UL;
        root = insert(root, (int)((x >> 33) % (unsigned long)(nkeys * 4)), &dup);
        dups += dup;
    }
    x = 999;
    for (i = 0; i < nkeys; i++) {
        x = x * 6364136223846793005UL + 1442695040888963407UL;
        found += contains(root, (int)((x >> 33) % (unsigned long)(nkeys * 4)));
    }
    for (i = 0; i < nkeys * 4; i += 3)
        erased += erase(root, (int)i);
    printf("inserted %ld dups %ld found %ld erased %ld\n", nkeys, dups, found, erased);
    cnt = check(root, &leaves);
    printf("keys %ld leaves %ld height %d nodes %ld reallocs %ld\n", cnt, leaves, height(root),
           nodes_made, reallocs);
    for (i = 0; i < 5; i++) {
        int lo = (int)(i * nkeys * 4 / 5), hi = lo + (int)(nkeys / 3);
        long s = range(root, lo, hi, &cnt);

        printf("range [%d,%d): %ld keys, sum %ld\n", lo, hi, cnt, s);
    }
    destroy(root);
    return 0;
}
