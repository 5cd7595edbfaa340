/* evloop.c - an event loop with intrusive queues, in the style of libuv
 * before 1.45.
 *
 * Every handle and request embeds `QUEUE` members, a `void *[2]` that
 * links objects through the members themselves; QUEUE_DATA gets the object
 * back with offsetof.  The loop keeps its handles, its timers (sorted by
 * due time) and its pending requests in such queues.  Each tick the timers
 * that are due run their callbacks, which queue requests and may restart
 * the timer; then the pending queue is moved into a local QUEUE and
 * drained, each request's callback allocating a log entry, as
 * uv__run_pending moves the loop's queue before calling back.  Handles
 * close when their count runs out and are freed at the end of the tick.
 *
 * Usage: evloop [handles] [ticks]      (defaults 3000, 60)
 */
#include <compactptr.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

typedef void *QUEUE[2];

#define QUEUE_NEXT(q) (*(QUEUE **)&((*(q))[0]))
#define QUEUE_PREV(q) (*(QUEUE **)&((*(q))[1]))
#define QUEUE_PREV_NEXT(q) (QUEUE_NEXT(QUEUE_PREV(q)))
#define QUEUE_NEXT_PREV(q) (QUEUE_PREV(QUEUE_NEXT(q)))
#define QUEUE_DATA(ptr, type, field)                                          \
  ((type *)((char *)(ptr) - offsetof(type, field)))
#define QUEUE_FOREACH(q, h)                                                   \
  for ((q) = QUEUE_NEXT(h); (q) != (h); (q) = QUEUE_NEXT(q))
#define QUEUE_EMPTY(q) ((const QUEUE *)(q) == (const QUEUE *)QUEUE_NEXT(q))
#define QUEUE_HEAD(q) (QUEUE_NEXT(q))
#define QUEUE_INIT(q)                                                         \
  do {                                                                        \
    QUEUE_NEXT(q) = (q);                                                      \
    QUEUE_PREV(q) = (q);                                                      \
  } while (0)
#define QUEUE_SPLIT(h, q, n)                                                  \
  do {                                                                        \
    QUEUE_PREV(n) = QUEUE_PREV(h);                                            \
    QUEUE_PREV_NEXT(n) = (n);                                                 \
    QUEUE_NEXT(n) = (q);                                                      \
    QUEUE_PREV(h) = QUEUE_PREV(q);                                            \
    QUEUE_PREV_NEXT(h) = (h);                                                 \
    QUEUE_PREV(q) = (n);                                                      \
  } while (0)
#define QUEUE_MOVE(h, n)                                                      \
  do {                                                                        \
    if (QUEUE_EMPTY(h))                                                       \
      QUEUE_INIT(n);                                                          \
    else {                                                                    \
      QUEUE *q_ = QUEUE_HEAD(h);                                              \
      QUEUE_SPLIT(h, q_, n);                                                  \
    }                                                                         \
  } while (0)
#define QUEUE_INSERT_TAIL(h, q)                                               \
  do {                                                                        \
    QUEUE_NEXT(q) = (h);                                                      \
    QUEUE_PREV(q) = QUEUE_PREV(h);                                            \
    QUEUE_PREV_NEXT(q) = (q);                                                 \
    QUEUE_PREV(h) = (q);                                                      \
  } while (0)
#define QUEUE_REMOVE(q)                                                       \
  do {                                                                        \
    QUEUE_PREV_NEXT(q) = QUEUE_NEXT(q);                                       \
    QUEUE_NEXT_PREV(q) = QUEUE_PREV(q);                                       \
  } while (0)

typedef struct ev_loop_s ev_loop_t;
typedef struct ev_timer_s ev_timer_t;
typedef struct ev_req_s ev_req_t;
typedef void (*ev_timer_cb)(ev_timer_t *);
typedef void (*ev_req_cb)(ev_req_t *);

struct CP_COMPACT ev_loop_s {
  unsigned long now;
  unsigned long active;
  QUEUE handle_queue;
  QUEUE timer_queue;
  QUEUE pending_queue;
  QUEUE closing_queue;
};

struct CP_COMPACT ev_timer_s {
  ev_loop_t *loop;
  ev_timer_cb cb;
  unsigned long due;
  unsigned long repeat;
  int id;
  int left;
  QUEUE handle_queue;
  QUEUE node; /* in timer_queue or closing_queue, or alone */
};

struct CP_COMPACT ev_req_s {
  ev_timer_t *owner;
  ev_req_cb cb;
  unsigned long seq;
  QUEUE queue;
};

struct CP_COMPACT log_entry {
  unsigned long value;
  struct log_entry *next;
};

static struct log_entry *log_head;
static unsigned long log_count, checksum, seq;
static unsigned long seed = 12345;

static unsigned long next_random(void) {
  seed = seed * 6364136223846793005UL + 1442695040888963407UL;
  return seed >> 33;
}

static void timer_start(ev_timer_t *t, unsigned long timeout) {
  ev_loop_t *loop = t->loop;
  QUEUE *q;
  t->due = loop->now + timeout;
  QUEUE_FOREACH(q, &loop->timer_queue) {
    ev_timer_t *o = QUEUE_DATA(q, ev_timer_t, node);
    if (o->due > t->due || (o->due == t->due && o->id > t->id))
      break;
  }
  /* before q */
  QUEUE_NEXT(&t->node) = q;
  QUEUE_PREV(&t->node) = QUEUE_PREV(q);
  QUEUE_PREV_NEXT(&t->node) = &t->node;
  QUEUE_PREV(q) = &t->node;
}

static void req_done(ev_req_t *r) {
  struct log_entry *e = malloc(sizeof *e);
  e->value = r->seq * 31 + (unsigned long)r->owner->id;
  e->next = log_head;
  log_head = e;
  log_count++;
  checksum = checksum * 1000003UL + e->value;
}

static void on_timer(ev_timer_t *t) {
  ev_req_t *r = malloc(sizeof *r);
  r->owner = t;
  r->cb = req_done;
  r->seq = seq++;
  QUEUE_INSERT_TAIL(&t->loop->pending_queue, &r->queue);
  if (--t->left > 0)
    timer_start(t, t->repeat + next_random() % 7);
  else
    QUEUE_INSERT_TAIL(&t->loop->closing_queue, &t->node);
}

static ev_timer_t *timer_new(ev_loop_t *loop, int id) {
  ev_timer_t *t = malloc(sizeof *t);
  t->loop = loop;
  t->cb = on_timer;
  t->id = id;
  t->left = 1 + (int)(next_random() % 4);
  t->repeat = 1 + next_random() % 20;
  QUEUE_INSERT_TAIL(&loop->handle_queue, &t->handle_queue);
  loop->active++;
  return t;
}

static void run_timers(ev_loop_t *loop) {
  while (!QUEUE_EMPTY(&loop->timer_queue)) {
    QUEUE *q = QUEUE_HEAD(&loop->timer_queue);
    ev_timer_t *t = QUEUE_DATA(q, ev_timer_t, node);
    if (t->due > loop->now)
      break;
    QUEUE_REMOVE(q);
    QUEUE_INIT(q);
    t->cb(t);
  }
}

static void run_pending(ev_loop_t *loop) {
  QUEUE pq;
  QUEUE *q;
  QUEUE_MOVE(&loop->pending_queue, &pq);
  while (!QUEUE_EMPTY(&pq)) {
    ev_req_t *r;
    q = QUEUE_HEAD(&pq);
    QUEUE_REMOVE(q);
    r = QUEUE_DATA(q, ev_req_t, queue);
    r->cb(r);
    free(r);
  }
}

static void run_closing(ev_loop_t *loop) {
  while (!QUEUE_EMPTY(&loop->closing_queue)) {
    QUEUE *q = QUEUE_HEAD(&loop->closing_queue);
    ev_timer_t *t = QUEUE_DATA(q, ev_timer_t, node);
    QUEUE_REMOVE(q);
    QUEUE_REMOVE(&t->handle_queue);
    loop->active--;
    checksum ^= (unsigned long)t->id << 7;
    free(t);
  }
}

int main(int argc, char **argv) {
  int handles = argc > 1 ? atoi(argv[1]) : 3000;
  int ticks = argc > 2 ? atoi(argv[2]) : 60, i;
  ev_loop_t *loop = calloc(1, sizeof *loop);
  QUEUE *q;
  unsigned long waiting = 0;
  QUEUE_INIT(&loop->handle_queue);
  QUEUE_INIT(&loop->timer_queue);
  QUEUE_INIT(&loop->pending_queue);
  QUEUE_INIT(&loop->closing_queue);
  for (i = 0; i < handles; i++) {
    ev_timer_t *t = timer_new(loop, i);
    timer_start(t, next_random() % 40);
  }
  for (i = 0; i < ticks; i++) {
    loop->now++;
    run_timers(loop);
    run_pending(loop);
    run_closing(loop);
  }
  QUEUE_FOREACH(q, &loop->timer_queue)
  waiting++;
  printf("active %lu waiting %lu logged %lu checksum %lu\n", loop->active,
         waiting, log_count, checksum);
  while (!QUEUE_EMPTY(&loop->handle_queue)) {
    ev_timer_t *t;
    q = QUEUE_HEAD(&loop->handle_queue);
    t = QUEUE_DATA(q, ev_timer_t, handle_queue);
    QUEUE_REMOVE(q);
    free(t);
  }
  while (log_head) {
    struct log_entry *e = log_head;
    log_head = e->next;
    free(e);
  }
  free(loop);
  return 0;
}
