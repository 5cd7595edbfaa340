/* nodepool.c - a treap whose nodes come from a free-list pool.
 *
 * In the style of the node pools of C servers and interpreters: nodes are
 * carved out of blocks that hold a header and a flexible array of nodes,
 * `struct pool_block { struct pool_block *next; int used; struct tnode
 * nodes[]; }`, allocated with malloc(sizeof *b + n * sizeof b->nodes[0]);
 * a freed node is pushed onto the pool's free list through its own link
 * field, node_alloc pops it again.  A second pool of the same shape takes
 * its storage as a plain array, malloc(n * sizeof(struct tnode)).  A
 * randomized treap (rotations through `struct tnode **`) is churned with
 * inserts and deletes so that nodes are recycled many times.
 *
 * Usage: nodepool [operations [keyspace]]     (default 300000 20000)
 */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT tnode {
    struct tnode *left, *right;   /* left is the free-list link when free */
    unsigned key;
    unsigned prio;
    unsigned count;               /* multiplicity of key */
    unsigned size;                /* nodes in subtree, counting multiplicity */
};

struct pool_block {
    struct pool_block *next;
    int used;
    int cap;
    struct tnode nodes[];
};

struct pool {
    struct pool_block *blocks;
    struct tnode *free_list;
    struct tnode *array;          /* second kind of storage: one big array */
    int array_used, array_cap;
    long live, allocs, recycled;
    int block_nodes;
};

static struct pool pool;

static unsigned long rng_state = 88172645463325252UL;

static unsigned rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (unsigned)(rng_state >> 11);
}

static void pool_init(struct pool *p, int block_nodes, int array_cap)
{
    memset(p, 0, sizeof *p);
    p->block_nodes = block_nodes;
    p->array = malloc(array_cap * sizeof(struct tnode));
    if (!p->array) {
        perror("malloc");
        exit(1);
    }
    p->array_cap = array_cap;
}

static struct tnode *node_alloc(struct pool *p)
{
    struct tnode *n;

    p->allocs++;
    p->live++;
    if (p->free_list) {
        n = p->free_list;
        p->free_list = n->left;
        p->recycled++;
        return n;
    }
    if (p->array_used < p->array_cap)
        return &p->array[p->array_used++];
    if (!p->blocks || p->blocks->used == p->blocks->cap) {
        struct pool_block *b;

        b = malloc(sizeof *b + p->block_nodes * sizeof b->nodes[0]);
        if (!b) {
            perror("malloc");
            exit(1);
        }
        b->used = 0;
        b->cap = p->block_nodes;
        b->next = p->blocks;
        p->blocks = b;
    }
    n = &p->blocks->nodes[p->blocks->used++];
    return n;
}

static void node_free(struct pool *p, struct tnode *n)
{
    n->right = NULL;
    n->left = p->free_list;
    p->free_list = n;
    p->live--;
}

static void pool_destroy(struct pool *p)
{
    struct pool_block *b, *next;

    for (b = p->blocks; b; b = next) {
        next = b->next;
        free(b);
    }
    free(p->array);
    p->blocks = NULL;
    p->free_list = NULL;
    p->array = NULL;
}

/* ---- the treap ---------------------------------------------------------- */

#define SIZE(t) ((t) ? (t)->size : 0u)

static void update(struct tnode *t)
{
    t->size = t->count + SIZE(t->left) + SIZE(t->right);
}

static void rotate_right(struct tnode **tp)
{
    struct tnode *t = *tp, *l = t->left;

    t->left = l->right;
    l->right = t;
    update(t);
    update(l);
    *tp = l;
}

static void rotate_left(struct tnode **tp)
{
    struct tnode *t = *tp, *r = t->right;

    t->right = r->left;
    r->left = t;
    update(t);
    update(r);
    *tp = r;
}

static void insert(struct tnode **tp, unsigned key)
{
    struct tnode *t = *tp;

    if (!t) {
        t = node_alloc(&pool);
        t->left = t->right = NULL;
        t->key = key;
        t->prio = rnd();
        t->count = 1;
        t->size = 1;
        *tp = t;
        return;
    }
    if (key == t->key) {
        t->count++;
    } else if (key < t->key) {
        insert(&t->left, key);
        if (t->left->prio > t->prio) {
            rotate_right(tp);
            t = *tp;
        }
    } else {
        insert(&t->right, key);
        if (t->right->prio > t->prio) {
            rotate_left(tp);
            t = *tp;
        }
    }
    update(t);
}

/* removes one occurrence of key; returns 1 if found */
static int erase(struct tnode **tp, unsigned key)
{
    struct tnode *t = *tp;
    int found;

    if (!t)
        return 0;
    if (key < t->key) {
        found = erase(&t->left, key);
    } else if (key > t->key) {
        found = erase(&t->right, key);
    } else if (t->count > 1) {
        t->count--;
        found = 1;
    } else if (!t->left || !t->right) {
        *tp = t->left ? t->left : t->right;
        node_free(&pool, t);
        return 1;
    } else {
        if (t->left->prio > t->right->prio) {
            rotate_right(tp);
            found = erase(&(*tp)->right, key);
        } else {
            rotate_left(tp);
            found = erase(&(*tp)->left, key);
        }
        t = *tp;
    }
    if (found)
        update(t);
    return found;
}

static unsigned kth(struct tnode *t, unsigned k)
{
    while (t) {
        unsigned ls = SIZE(t->left);

        if (k < ls) {
            t = t->left;
        } else if (k < ls + t->count) {
            return t->key;
        } else {
            k -= ls + t->count;
            t = t->right;
        }
    }
    return ~0u;
}

static unsigned long walk(const struct tnode *t, unsigned long h, int depth, int *maxdepth)
{
    if (!t)
        return h;
    if (depth > *maxdepth)
        *maxdepth = depth;
    h = walk(t->left, h, depth + 1, maxdepth);
    h = h * 1000003UL ^ (t->key * 31UL + t->count);
    return walk(t->right, h, depth + 1, maxdepth);
}

static void release(struct tnode *t)
{
    if (!t)
        return;
    release(t->left);
    release(t->right);
    node_free(&pool, t);
}

int main(int argc, char **argv)
{
    long ops = argc > 1 ? atol(argv[1]) : 300000;
    unsigned keyspace = argc > 2 ? (unsigned)atol(argv[2]) : 20000;
    struct tnode *root = NULL;
    long i, hits = 0, misses = 0;
    unsigned long qsum = 0;
    int depth = 0;

    if (keyspace < 1)
        keyspace = 1;
    pool_init(&pool, 128, 1024);
    for (i = 0; i < ops; i++) {
        unsigned r = rnd();
        unsigned key = r % keyspace;

        switch ((r >> 20) % 8) {
        case 0: case 1: case 2: case 3:
            insert(&root, key);
            break;
        case 4: case 5: case 6:
            if (erase(&root, key))
                hits++;
            else
                misses++;
            break;
        default:
            if (root)
                qsum += kth(root, key % root->size);
            break;
        }
        if (i % (ops / 4 + 1) == ops / 8) {
            unsigned long h = walk(root, 0, 0, &depth);
            printf("step %ld: size %u live %ld hash %lx\n", i, SIZE(root), pool.live, h);
        }
    }
    printf("final: size %u live %ld allocs %ld recycled %ld\n", SIZE(root), pool.live,
           pool.allocs, pool.recycled);
    printf("erase hits %ld misses %ld kth-sum %lu\n", hits, misses, qsum);
    printf("hash %lx depth<=%d\n", walk(root, 0, 0, &depth), depth < 100 ? 100 : depth);
    release(root);
    printf("after release: live %ld\n", pool.live);
    pool_destroy(&pool);
    return 0;
}
