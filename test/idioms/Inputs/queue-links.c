/* Fields that keep the address of a link: a queue's `struct msg **tail`
 * beside its head (a queue in the heap, one on the stack, one in a global
 * struct), and <sys/queue.h>'s TAILQ, LIST and STAILQ, whose entries keep
 * the address of the previous element's next field (`tqe_prev`,
 * `le_prev`) and whose heads keep the last one (`tqh_last`,
 * `stqh_last`).  Pushes, pops, removal from the middle while walking, and
 * TAILQ_CONCAT, so that the addresses kept point into every kind of slot:
 * a field of a heap object, a head in the heap, a head in a global.
 *
 * Usage: queue-links [rounds]      (default 200000)
 */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/queue.h>

struct CP_COMPACT msg {
  long seq;
  struct msg *next;
};

struct mailbox {
  struct msg *head;
  struct msg **tail;
  long count;
};

struct CP_COMPACT task {
  int id;
  int cost;
  TAILQ_ENTRY(task) run;
  LIST_ENTRY(task) all;
  STAILQ_ENTRY(task) log;
};
TAILQ_HEAD(runq, task);
LIST_HEAD(tasklist, task);
STAILQ_HEAD(tasklog, task);

struct sched {
  struct runq ready, waiting;
  struct tasklog done;
  long ran;
};

/* C-style inheritance: a counted mailbox opens with a mailbox's fields,
 * and the mailbox functions are handed one by a cast. */
struct counted_box {
  struct msg *head;
  struct msg **tail;
  long count;
  long total;
};

static struct mailbox global_box;
/* Never handed out by address: a root of the program's own memory (its
 * tail is moved by the switch where it is, not as a heap object's). */
static struct mailbox direct_box;
static struct tasklist everyone = LIST_HEAD_INITIALIZER(everyone);

static void box_init(struct mailbox *b) {
  b->head = NULL;
  b->tail = &b->head;
  b->count = 0;
}

/* A base struct's function handed any box as `void *`. */
static void box_init_any(void *vb) {
  struct mailbox *b = vb;
  b->head = NULL;
  b->tail = &b->head;
  b->count = 0;
}

static void box_put(struct mailbox *b, long seq) {
  struct msg *m = malloc(sizeof *m);
  m->seq = seq;
  m->next = NULL;
  *b->tail = m;
  b->tail = &m->next;
  b->count++;
}

static long box_take(struct mailbox *b) {
  struct msg *m = b->head;
  long seq = m->seq;
  if (!(b->head = m->next))
    b->tail = &b->head;
  free(m);
  b->count--;
  return seq;
}

static unsigned rnd_state = 12345u;
static unsigned rnd(unsigned n) {
  rnd_state = rnd_state * 1103515245u + 12345u;
  return (rnd_state >> 16) % n;
}

static struct task *spawn(struct sched *s, int id) {
  struct task *t = calloc(1, sizeof *t);
  t->id = id;
  t->cost = (int)rnd(9) + 1;
  LIST_INSERT_HEAD(&everyone, t, all);
  if (rnd(3) == 0)
    TAILQ_INSERT_HEAD(&s->ready, t, run);
  else
    TAILQ_INSERT_TAIL(&s->ready, t, run);
  return t;
}

static void step(struct sched *s) {
  struct task *t = TAILQ_FIRST(&s->ready);
  if (!t)
    return;
  TAILQ_REMOVE(&s->ready, t, run);
  s->ran += t->cost;
  if (--t->cost > 0) {
    TAILQ_INSERT_TAIL(&s->waiting, t, run);
  } else {
    LIST_REMOVE(t, all);
    STAILQ_INSERT_TAIL(&s->done, t, log);
  }
}

int main(int argc, char **argv) {
  long rounds = argc > 1 ? atol(argv[1]) : 200000;
  struct sched *s = malloc(sizeof *s);
  struct mailbox local;
  struct mailbox *heap_box = malloc(sizeof *heap_box);
  TAILQ_INIT(&s->ready);
  TAILQ_INIT(&s->waiting);
  STAILQ_INIT(&s->done);
  s->ran = 0;
  box_init(&global_box);
  box_init(&local);
  box_init(heap_box);
  struct counted_box *cb = malloc(sizeof *cb);
  box_init_any(cb);
  cb->total = 0;
  direct_box.head = NULL;
  direct_box.tail = NULL;
  long sum = 0;
  for (long i = 0; i < rounds; i++) {
    spawn(s, (int)i);
    box_put(i % 3 == 0 ? &global_box : i % 3 == 1 ? &local : heap_box, i);
    step(s);
    step(s);
    if (i % 4 == 0) {
      box_put((struct mailbox *)cb, i);
      cb->total += i;
    }
    if (i % 5 == 0) {
      struct msg *m = malloc(sizeof *m);
      m->seq = i;
      m->next = NULL;
      if (direct_box.tail)
        *direct_box.tail = m;
      else
        direct_box.head = m;
      direct_box.tail = &m->next;
      direct_box.count++;
    }
    if (i % 7 == 6) {
      sum += box_take(&local) + box_take(heap_box);
      if (global_box.count)
        sum ^= box_take(&global_box);
    }
    if (i % 1000 == 999) {
      /* Back to the ready queue; every tenth waiting task is cancelled,
       * removed from the middle of both lists while walking. */
      struct task *t, *n;
      int k = 0;
      for (t = TAILQ_FIRST(&s->waiting); t; t = n) {
        n = TAILQ_NEXT(t, run);
        if (++k % 10 == 0) {
          TAILQ_REMOVE(&s->waiting, t, run);
          LIST_REMOVE(t, all);
          free(t);
        }
      }
      TAILQ_CONCAT(&s->ready, &s->waiting, run);
    }
  }
  /* A local head initialized with its own address (the object lives in
   * the compact heap: its initializer must see where). */
  struct runq mine = TAILQ_HEAD_INITIALIZER(mine);
  struct msg ring = {-1, &ring};
  for (int k = 0; k < 3; k++) {
    struct task *n = calloc(1, sizeof *n);
    n->id = -k;
    TAILQ_INSERT_TAIL(&mine, n, run);
  }
  long live = 0, finished = 0, order = 0;
  struct task *t;
  TAILQ_FOREACH(t, &mine, run) order += t->id;
  /* Backwards: TAILQ_LAST and TAILQ_PREV read a link's address as a head. */
  TAILQ_FOREACH_REVERSE(t, &s->ready, runq, run) order = order * 3 + t->cost;
  if ((t = TAILQ_LAST(&s->ready, runq)) && TAILQ_PREV(t, runq, run))
    order += TAILQ_PREV(t, runq, run)->id;
  order += ring.next->next->seq;
  LIST_FOREACH(t, &everyone, all) live++;
  STAILQ_FOREACH(t, &s->done, log) {
    finished++;
    order = order * 31 + t->id;
  }
  TAILQ_FOREACH(t, &s->ready, run) order ^= t->cost;
  while (local.count)
    sum = sum * 7 + box_take(&local);
  while (heap_box->count)
    sum = sum * 5 + box_take(heap_box);
  while (global_box.count)
    sum = sum * 3 + box_take(&global_box);
  /* Appended through the derived type's own field. */
  struct msg *last = malloc(sizeof *last);
  last->seq = 7;
  last->next = NULL;
  *cb->tail = last;
  cb->tail = &last->next;
  for (struct msg *m = cb->head; m; m = m->next)
    sum = sum * 11 + (m->seq & 31);
  sum += cb->total;
  for (struct msg *m = direct_box.head; m; m = m->next)
    sum = sum * 3 + (m->seq & 15);
  printf("ran=%ld live=%ld finished=%ld order=%ld sum=%ld\n", s->ran, live,
         finished, order, sum);
  return 0;
}
