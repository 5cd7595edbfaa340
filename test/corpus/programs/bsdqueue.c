/* bsdqueue.c - a multilevel feedback scheduler built on <sys/queue.h>.
 *
 * In the style of BSD kernels and daemons that use the queue(3) macros
 * for every list: jobs sit on one of several run queues (TAILQ), on a
 * list of all live jobs (LIST), and finished jobs are logged on a singly
 * linked tail queue (STAILQ).  The scheduler runs the first job of the
 * highest non-empty queue for a quantum, demotes jobs that use the whole
 * quantum, periodically boosts every job back to the top queue with
 * TAILQ_CONCAT, and admits new jobs as they arrive.  Shapes: the system
 * header's macros as written (entries hold a pointer to the previous
 * element's next field, `struct job **tqe_prev`), an array of queue heads
 * as a global, a LIST_HEAD initialised statically, the _FOREACH macros,
 * removal while walking.
 *
 * Usage: bsdqueue [jobs]      (default 60000)
 */
#include <compactptr.h>
#include <sys/queue.h>
#include <stdio.h>
#include <stdlib.h>

#define NPRIO 4
#define BOOST_EVERY 5000

struct CP_COMPACT job {
  int id;
  int prio;
  int remaining;                 /* time units of work left */
  int arrived;
  TAILQ_ENTRY(job) runq;
  LIST_ENTRY(job) all;
};

struct CP_COMPACT done {
  int id;
  int finished;
  int turnaround;
  STAILQ_ENTRY(done) link;
};

TAILQ_HEAD(jobq, job);
static struct jobq runqueue[NPRIO];
static LIST_HEAD(, job) alljobs = LIST_HEAD_INITIALIZER(alljobs);
static STAILQ_HEAD(, done) donelog = STAILQ_HEAD_INITIALIZER(donelog);

static const int quantum[NPRIO] = { 2, 4, 8, 16 };
static int nlive, maxlive;

static unsigned int rs = 1u;
static int rnd(int n)
{
  rs = rs * 214013u + 2531011u;
  return (int)((rs >> 16) & 0x7fff) % n;
}

static void admit(int id, int now)
{
  struct job *j = malloc(sizeof(*j));

  j->id = id;
  j->prio = 0;
  j->remaining = 1 + rnd(8) * (rnd(10) == 0 ? 9 : 1);
  j->arrived = now;
  TAILQ_INSERT_TAIL(&runqueue[0], j, runq);
  LIST_INSERT_HEAD(&alljobs, j, all);
  if (++nlive > maxlive)
    maxlive = nlive;
}

static struct job *pick(void)
{
  int p;

  for (p = 0; p < NPRIO; p++)
    if (!TAILQ_EMPTY(&runqueue[p]))
      return TAILQ_FIRST(&runqueue[p]);
  return NULL;
}

static void boost(void)
{
  struct job *j;
  int p;

  for (p = 1; p < NPRIO; p++) {
    TAILQ_FOREACH(j, &runqueue[p], runq)
      j->prio = 0;
    TAILQ_CONCAT(&runqueue[0], &runqueue[p], runq);
  }
}

static void finish(struct job *j, int now)
{
  struct done *d = malloc(sizeof(*d));

  d->id = j->id;
  d->finished = now;
  d->turnaround = now - j->arrived;
  STAILQ_INSERT_TAIL(&donelog, d, link);
  TAILQ_REMOVE(&runqueue[j->prio], j, runq);
  LIST_REMOVE(j, all);
  free(j);
  nlive--;
}

/* Drop jobs that have waited too long: walk the all-jobs list and remove
 * from both lists as we go (the successor is read before the removal). */
static int reap(int now, int limit)
{
  struct job *j, *next;
  int reaped = 0;

  for (j = LIST_FIRST(&alljobs); j != NULL; j = next) {
    next = LIST_NEXT(j, all);
    if (now - j->arrived > limit && j->prio == NPRIO - 1) {
      TAILQ_REMOVE(&runqueue[j->prio], j, runq);
      LIST_REMOVE(j, all);
      free(j);
      nlive--;
      reaped++;
    }
  }
  return reaped;
}

int main(int argc, char *argv[])
{
  int njobs = argc > 1 ? atoi(argv[1]) : 60000;
  int now = 0, admitted = 0, reaped = 0, p, count = 0, next_arrival = 0;
  long sum = 0, turn = 0;
  struct job *j;
  struct done *d;

  for (p = 0; p < NPRIO; p++)
    TAILQ_INIT(&runqueue[p]);
  while (admitted < njobs || !LIST_EMPTY(&alljobs)) {
    int q;

    while (admitted < njobs && next_arrival <= now) {
      admit(admitted++, now);
      next_arrival += rnd(15);
    }
    if ((j = pick()) == NULL) {
      now++;
      continue;
    }
    q = quantum[j->prio];
    if (j->remaining <= q) {
      now += j->remaining;
      finish(j, now);
    } else {
      now += q;
      j->remaining -= q;
      TAILQ_REMOVE(&runqueue[j->prio], j, runq);
      if (j->prio < NPRIO - 1)
        j->prio++;
      TAILQ_INSERT_TAIL(&runqueue[j->prio], j, runq);
    }
    if (now / BOOST_EVERY != (now - q) / BOOST_EVERY)
      boost();
    if (now % 1000 < q)
      reaped += reap(now, 2 * BOOST_EVERY);
  }
  STAILQ_FOREACH(d, &donelog, link) {
    count++;
    sum = (sum * 31 + d->id * 7 + d->finished) % 1000000007;
    turn += d->turnaround;
  }
  printf("jobs %d finished %d reaped %d at time %d, most live %d\n", njobs, count, reaped, now,
         maxlive);
  printf("log checksum %ld, mean turnaround %ld\n", sum, count ? turn / count : 0);
  while (!STAILQ_EMPTY(&donelog)) {
    d = STAILQ_FIRST(&donelog);
    STAILQ_REMOVE_HEAD(&donelog, link);
    free(d);
  }
  return 0;
}
