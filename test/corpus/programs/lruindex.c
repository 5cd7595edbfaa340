/* LRU cache: doubly linked recency list + chained hash index; snapshot of
 * node pointers into a global realloc'd array, qsort/bsearch through void*
 * comparators, pointer '<' ordering, const and volatile node pointers,
 * a static local freelist cache, whole-node struct assignment, an array of
 * small structs holding node pointers inside each node, per-node callbacks. */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT item;

struct ref { struct item *to; int weight; };

typedef void (*evict_cb)(struct item *);

struct CP_COMPACT item {
    unsigned key;
    long value;
    struct item *prev, *next;      /* recency list */
    struct item *hnext;            /* hash chain */
    struct ref refs[3];            /* embedded array of structs with node pointers */
    evict_cb on_evict;
};

struct cache {
    struct item **buckets;
    unsigned nbuckets;
    struct item *head, *tail;
    unsigned count, cap;
    long evictions;
};

static struct item **snap;     /* global array of node pointers, realloc'd */
static size_t nsnap, capsnap;
static long evict_sum;

static void cb_plain(struct item *it) { evict_sum += it->value; }
static void cb_weighted(struct item *it) {
    int i; for (i = 0; i < 3; i++) if (it->refs[i].to) evict_sum += it->refs[i].weight;
}

static struct item *item_alloc(void) {
    static struct item *freelist;   /* static local cache of nodes */
    struct item *it;
    if (freelist) { it = freelist; freelist = it->hnext; }
    else it = malloc(sizeof *it);
    return it;
}
static void item_release(struct item *it) {
    free(it);
}

static void list_unlink(struct cache *c, struct item *it) {
    if (it->prev) it->prev->next = it->next; else c->head = it->next;
    if (it->next) it->next->prev = it->prev; else c->tail = it->prev;
    it->prev = it->next = NULL;
}
static void list_push_front(struct cache *c, struct item *it) {
    it->prev = NULL; it->next = c->head;
    if (c->head) c->head->prev = it; else c->tail = it;
    c->head = it;
}

static struct item *lookup(const struct cache *c, unsigned key) {
    struct item *const *pp = &c->buckets[key % c->nbuckets];
    const struct item *it;
    for (it = *pp; it; it = it->hnext)
        if (it->key == key) return (struct item *)it;
    return NULL;
}

static void hash_remove(struct cache *c, struct item *it) {
    struct item **pp = &c->buckets[it->key % c->nbuckets];
    while (*pp != it) pp = &(*pp)->hnext;
    *pp = it->hnext;
}

static void evict(struct cache *c) {
    struct item *v = c->tail;
    int i;
    list_unlink(c, v);
    hash_remove(c, v);
    if (v->on_evict) v->on_evict(v);
    /* drop refs to v from others: scan list */
    {
        struct item *o;
        for (o = c->head; o; o = o->next)
            for (i = 0; i < 3; i++) if (o->refs[i].to == v) o->refs[i].to = NULL;
    }
    c->count--; c->evictions++;
    item_release(v);
}

static struct item *put(struct cache *c, unsigned key, long value) {
    struct item *it = lookup(c, key);
    int i;
    if (it) { it->value += value; list_unlink(c, it); list_push_front(c, it); return it; }
    if (c->count >= c->cap) evict(c);
    it = item_alloc();
    memset(it, 0, sizeof *it);
    it->key = key; it->value = value;
    it->on_evict = (key & 1) ? cb_weighted : cb_plain;
    for (i = 0; i < 3; i++) { it->refs[i].to = c->head; it->refs[i].weight = (int)(key % 13) + i; }
    it->hnext = c->buckets[key % c->nbuckets];
    c->buckets[key % c->nbuckets] = it;
    list_push_front(c, it);
    c->count++;
    return it;
}

static int cmp_key(const void *a, const void *b) {
    const struct item *x = *(const struct item *const *)a, *y = *(const struct item *const *)b;
    return x->key < y->key ? -1 : x->key > y->key;
}
static int cmp_addr(const void *a, const void *b) {
    const struct item *x = *(struct item **)a, *y = *(struct item **)b;
    return (x < y) ? -1 : (x > y);
}
static int cmp_find(const void *k, const void *e) {
    unsigned key = *(const unsigned *)k; const struct item *y = *(struct item *const *)e;
    return key < y->key ? -1 : key > y->key;
}

static void take_snapshot(struct cache *c) {
    struct item *it;
    nsnap = 0;
    for (it = c->head; it; it = it->next) {
        int i;
        if (nsnap + 4 > capsnap) { capsnap = capsnap ? capsnap * 2 : 16; snap = realloc(snap, capsnap * sizeof *snap); }
        snap[nsnap++] = it;
        for (i = 0; i < 3; i++) if (it->refs[i].to) snap[nsnap++] = it->refs[i].to;
    }
}

static unsigned seed = 1;
static unsigned rnd(void) { seed ^= seed << 13; seed ^= seed >> 17; seed ^= seed << 5; return seed; }

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 200000, i;
    struct cache c = { 0 };
    unsigned long chk = 0;
    size_t uniq, k;
    volatile struct item *last = NULL;
    c.nbuckets = 1024; c.cap = 4000;
    c.buckets = calloc(c.nbuckets, sizeof *c.buckets);
    for (i = 0; i < n; i++) {
        unsigned key = rnd() % 9000;
        struct item *it = put(&c, key, i % 100);
        last = it;
        if (i % 5000 == 4999) {
            struct item tmp;
            /* swap payloads of head and tail by whole-struct copies, then repair links */
            struct item *h = c.head, *t = c.tail;
            if (h != t) {
                tmp = *h;
                h->value = t->value; t->value = tmp.value;
                chk += tmp.key + tmp.refs[0].weight;
            }
        }
    }
    chk += last->key;
    take_snapshot(&c);
    qsort(snap, nsnap, sizeof *snap, cmp_addr);
    for (uniq = 0, k = 0; k < nsnap; k++) if (k == 0 || snap[k] != snap[k - 1]) snap[uniq++] = snap[k];
    printf("entries %u snapshot %zu unique %zu evictions %ld evict_sum %ld\n",
           c.count, nsnap, uniq, c.evictions, evict_sum);
    qsort(snap, uniq, sizeof *snap, cmp_key);
    for (i = 0; i < 20000; i++) {
        unsigned key = rnd() % 9000;
        struct item **f = bsearch(&key, snap, uniq, sizeof *snap, cmp_find);
        if (f) chk = chk * 3 + (*f)->value + ((*f)->refs[1].to ? (*f)->refs[1].to->key : 7);
    }
    {
        struct item *lo = snap[0], *hi = snap[0];
        for (k = 1; k < uniq; k++) { if (snap[k] < lo) lo = snap[k]; if (snap[k] > hi) hi = snap[k]; }
        chk += (lo != hi);
    }
    printf("chk %lu\n", chk);
    while (c.head) { struct item *it = c.head; list_unlink(&c, it); item_release(it); }
    free(c.buckets); free(snap);
    return 0;
}
