/* reactor.c - a single-threaded event loop in the style of small C
 * reactors (libevent, libev, the loops of small servers): timers in a
 * binary min-heap, a FIFO of deferred tasks whose callbacks take a
 * `void *arg` (a connection, a timer, a request), per-connection state and
 * a free list of request objects.  What the program keeps as `void *` is
 * compact objects, in untyped fields of compact structs (a task's `arg`,
 * a timer's `arg`) and in the parameters of callbacks called through
 * function pointers.  Simulated clock; deterministic.  Size: the budget
 * of connections (argv[1]).
 */
#include <compactptr.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct loop;
typedef void (*task_fn)(struct loop *lp, void *arg);
typedef void (*timer_fn)(struct loop *lp, void *arg);

struct CP_COMPACT task {
    struct task *next;
    task_fn fn;
    void *arg;
};

struct CP_COMPACT timer {
    uint64_t when;
    uint64_t seq;
    timer_fn fn;
    void *arg;
    int heap_idx;
    int repeat;
    uint64_t interval;
};

struct CP_COMPACT request {
    struct request *next; /* per-connection pending list, or free list */
    struct conn *owner;
    uint32_t id;
    uint32_t bytes;
    char tag[8];
};

struct CP_COMPACT conn {
    struct conn *next_all;
    struct request *pending;
    struct timer *idle_timer;
    uint64_t total;
    uint32_t id;
    uint32_t nreq;
    int closed;
};

struct loop {
    uint64_t now;
    uint64_t seq;
    struct task *q_head;
    struct task *q_tail;
    struct timer **heap;
    int heap_len, heap_cap;
    struct conn *conns;
    struct request *free_reqs;
    uint64_t hash;
    long ntasks, ntimers_fired, nconns_open;
};

/* ---- task queue ---- */
static void loop_defer(struct loop *lp, task_fn fn, void *arg)
{
    struct task *t = malloc(sizeof *t);
    if (!t) abort();
    t->fn = fn;
    t->arg = arg;
    t->next = NULL;
    if (lp->q_tail) lp->q_tail->next = t; else lp->q_head = t;
    lp->q_tail = t;
}

static int run_tasks(struct loop *lp)
{
    int n = 0;
    struct task *t;
    while ((t = lp->q_head) != NULL) {
        lp->q_head = t->next;
        if (!lp->q_head) lp->q_tail = NULL;
        t->fn(lp, t->arg);
        free(t);
        lp->ntasks++;
        n++;
    }
    return n;
}

/* ---- timer heap ---- */
static int timer_less(const struct timer *a, const struct timer *b)
{
    if (a->when != b->when) return a->when < b->when;
    return a->seq < b->seq;
}

static void heap_swap(struct loop *lp, int i, int j)
{
    struct timer *t = lp->heap[i];
    lp->heap[i] = lp->heap[j];
    lp->heap[j] = t;
    lp->heap[i]->heap_idx = i;
    lp->heap[j]->heap_idx = j;
}

static void heap_up(struct loop *lp, int i)
{
    while (i > 0) {
        int p = (i - 1) / 2;
        if (!timer_less(lp->heap[i], lp->heap[p])) break;
        heap_swap(lp, i, p);
        i = p;
    }
}

static void heap_down(struct loop *lp, int i)
{
    for (;;) {
        int l = 2 * i + 1, r = l + 1, m = i;
        if (l < lp->heap_len && timer_less(lp->heap[l], lp->heap[m])) m = l;
        if (r < lp->heap_len && timer_less(lp->heap[r], lp->heap[m])) m = r;
        if (m == i) break;
        heap_swap(lp, i, m);
        i = m;
    }
}

static struct timer *timer_start(struct loop *lp, uint64_t delay, uint64_t interval, timer_fn fn, void *arg)
{
    struct timer *t = malloc(sizeof *t);
    if (!t) abort();
    t->when = lp->now + delay;
    t->seq = lp->seq++;
    t->fn = fn;
    t->arg = arg;
    t->repeat = interval != 0;
    t->interval = interval;
    if (lp->heap_len == lp->heap_cap) {
        lp->heap_cap = lp->heap_cap ? lp->heap_cap * 2 : 16;
        lp->heap = realloc(lp->heap, (size_t)lp->heap_cap * sizeof *lp->heap);
        if (!lp->heap) abort();
    }
    t->heap_idx = lp->heap_len;
    lp->heap[lp->heap_len++] = t;
    heap_up(lp, t->heap_idx);
    return t;
}

static void timer_cancel(struct loop *lp, struct timer *t)
{
    int i = t->heap_idx;
    if (i < 0) return;
    lp->heap_len--;
    if (i != lp->heap_len) {
        lp->heap[i] = lp->heap[lp->heap_len];
        lp->heap[i]->heap_idx = i;
        heap_down(lp, i);
        heap_up(lp, i);
    }
    t->heap_idx = -1;
    free(t);
}

static int run_timers(struct loop *lp)
{
    int n = 0;
    while (lp->heap_len && lp->heap[0]->when <= lp->now) {
        struct timer *t = lp->heap[0];
        heap_swap(lp, 0, lp->heap_len - 1);
        lp->heap_len--;
        heap_down(lp, 0);
        t->heap_idx = -1;
        lp->ntimers_fired++;
        n++;
        if (t->repeat) {
            t->when = lp->now + t->interval;
            t->seq = lp->seq++;
            t->heap_idx = lp->heap_len;
            lp->heap[lp->heap_len++] = t;
            heap_up(lp, t->heap_idx);
            t->fn(lp, t->arg);
        } else {
            timer_fn fn = t->fn;
            void *arg = t->arg;
            free(t);
            fn(lp, arg);
        }
    }
    return n;
}

/* ---- application: connections and requests ---- */
static uint32_t rs = 12345;
static uint32_t rnd(void) { rs = rs * 1103515245u + 12345u; return (rs >> 8) & 0xffffff; }

static void mix(struct loop *lp, uint64_t v) { lp->hash = (lp->hash ^ v) * 0x100000001b3ull; }

static struct request *req_alloc(struct loop *lp)
{
    struct request *r = lp->free_reqs;
    if (r) { lp->free_reqs = r->next; return r; }
    r = malloc(sizeof *r);
    if (!r) abort();
    return r;
}


static void on_request_task(struct loop *lp, void *arg)
{
    struct request *r = arg;
    struct conn *c = r->owner;
    struct request **pp;
    c->total += r->bytes;
    mix(lp, (uint64_t)r->id * 131 + r->bytes + (uint64_t)(unsigned char)r->tag[1]);
    /* unlink from the pending list */
    for (pp = &c->pending; *pp; pp = &(*pp)->next)
        if (*pp == r) { *pp = r->next; break; }
    r->next = lp->free_reqs;
    lp->free_reqs = r;
}

static void on_idle(struct loop *lp, void *arg);

static void conn_touch(struct loop *lp, struct conn *c)
{
    if (c->idle_timer) timer_cancel(lp, c->idle_timer);
    c->idle_timer = timer_start(lp, 500 + rnd() % 500, 0, on_idle, c);
}

static void on_data(struct loop *lp, void *arg)
{
    struct conn *c = arg;
    int k, n = 1 + (int)(rnd() % 4);
    if (c->closed) return;
    for (k = 0; k < n; k++) {
        struct request *r = req_alloc(lp);
        r->owner = c;
        r->id = c->nreq++;
        r->bytes = rnd() % 1500;
        snprintf(r->tag, sizeof r->tag, "r%u", r->id % 1000);
        r->next = c->pending;
        c->pending = r;
        loop_defer(lp, on_request_task, r);
    }
    conn_touch(lp, c);
    if (rnd() % 3) timer_start(lp, 1 + rnd() % 50, 0, on_data, c);
}

static void on_idle(struct loop *lp, void *arg)
{
    struct conn *c = arg;
    c->idle_timer = NULL;
    c->closed = 1;
    lp->nconns_open--;
    mix(lp, c->id * 7 + c->total);
}

static void on_accept(struct loop *lp, void *arg)
{
    long *budget = arg;
    int k, n = 1 + (int)(rnd() % 8);
    for (k = 0; k < n && *budget > 0; k++, (*budget)--) {
        struct conn *c = calloc(1, sizeof *c);
        if (!c) abort();
        c->id = (uint32_t)*budget;
        c->next_all = lp->conns;
        lp->conns = c;
        lp->nconns_open++;
        timer_start(lp, rnd() % 20, 0, on_data, c);
        conn_touch(lp, c);
    }
}

static void on_stats(struct loop *lp, void *arg)
{
    uint64_t *ticks = arg;
    (*ticks)++;
    mix(lp, lp->now ^ (uint64_t)lp->heap_len);
}

int main(int argc, char **argv)
{
    long budget = argc > 1 ? atol(argv[1]) : 50000;
    uint64_t ticks = 0, total = 0;
    struct loop L;
    struct timer *acc, *st;
    struct conn *c;
    long nfree = 0;

    memset(&L, 0, sizeof L);
    L.hash = 1469598103934665603ull;
    acc = timer_start(&L, 0, 3, on_accept, &budget);
    st = timer_start(&L, 0, 1000, on_stats, &ticks);
    while (L.now < 100000000) {
        int did = run_timers(&L);
        did += run_tasks(&L);
        if (budget == 0 && acc) { timer_cancel(&L, acc); acc = NULL; }
        if (budget == 0 && L.nconns_open == 0 && L.heap_len <= 1) break;
        if (!did && L.heap_len) L.now = L.heap[0]->when > L.now ? L.heap[0]->when : L.now + 1;
        else L.now++;
    }
    timer_cancel(&L, st);
    for (c = L.conns; c; c = c->next_all) total += c->total + c->nreq;
    while (L.free_reqs) {
        struct request *r = L.free_reqs;
        L.free_reqs = r->next;
        free(r);
        nfree++;
    }
    while (L.conns) {
        c = L.conns;
        L.conns = c->next_all;
        free(c);
    }
    free(L.heap);
    printf("now=%llu tasks=%ld timers=%ld ticks=%llu total=%llu reqs=%ld\n",
           (unsigned long long)L.now, L.ntasks, L.ntimers_fired, (unsigned long long)ticks,
           (unsigned long long)total, nfree);
    printf("checksum=%llu\n", (unsigned long long)L.hash);
    return 0;
}
