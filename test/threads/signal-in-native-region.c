// A timer's handler counts a list that a worker grows, and the timer's
// signal lands on main, which sleeps in nanosleep (a blocking call: the
// plugin makes it a native region, where the switch treats main as
// stopped).  The worker's allocations start the switch; a tick during it
// ran the handler on a heap half moved (a segfault in 7 of 8 runs).  The
// handler is compiled to take main out of its region first, so the switch
// waits for the handler, and every count sees the list whole.  Whether a
// tick falls inside the switch depends on timing: without the fix one run
// in six crashed here with COMPACTPTR_VERIFY (which lengthens the switch),
// so the test runs the program six times.
// REQUIRES: plugin
// RUN: %clang %cflags -O1 %s -lpthread -o %t.native && %t.native > %t.expected
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: env COMPACTPTR_ARENA_LIMIT=4M COMPACTPTR_HIGH_WATER=25 COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t > %t.out 2> %t.err
// RUN: diff %t.expected %t.out && FileCheck %s < %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=4M COMPACTPTR_HIGH_WATER=25 COMPACTPTR_VERIFY=1 %t | diff %t.expected -
// RUN: env COMPACTPTR_ARENA_LIMIT=4M COMPACTPTR_HIGH_WATER=25 COMPACTPTR_VERIFY=1 %t | diff %t.expected -
// RUN: env COMPACTPTR_ARENA_LIMIT=4M COMPACTPTR_HIGH_WATER=25 COMPACTPTR_VERIFY=1 %t | diff %t.expected -
// RUN: env COMPACTPTR_ARENA_LIMIT=4M COMPACTPTR_HIGH_WATER=25 COMPACTPTR_VERIFY=1 %t | diff %t.expected -
// RUN: env COMPACTPTR_ARENA_LIMIT=4M COMPACTPTR_HIGH_WATER=25 COMPACTPTR_VERIFY=1 %t | diff %t.expected -
// CHECK: compactptr: switch to wide mode
#include <compactptr.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>
#include <time.h>

struct CP_COMPACT link { long n; struct link *next; };

static struct link *volatile first;
static volatile long linked, broken;
static volatile int finished;

static void count_links(int sig) {
  (void)sig;
  long expect = linked, seen = 0;
  for (struct link *l = first; l; l = l->next)
    seen++;
  if (seen != expect && seen != expect + 1)
    broken++;
}

static void *grow(void *arg) {
  (void)arg;
  sigset_t alarm;
  sigemptyset(&alarm);
  sigaddset(&alarm, SIGALRM);
  pthread_sigmask(SIG_BLOCK, &alarm, NULL); /* the ticks go to main */
  for (long i = 0; i < 100000; i++) {
    struct link *l = malloc(sizeof *l);
    l->n = i;
    l->next = first;
    first = l;
    linked = i + 1;
  }
  finished = 1;
  return NULL;
}

int main(void) {
  struct sigaction sa = {0};
  sa.sa_handler = count_links;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGALRM, &sa, NULL);
  struct itimerval every = {{0, 500}, {0, 500}};
  setitimer(ITIMER_REAL, &every, NULL);
  pthread_t t;
  pthread_create(&t, NULL, grow, NULL);
  while (!finished) {
    struct timespec nap = {0, 200 * 1000};
    nanosleep(&nap, NULL);
  }
  pthread_join(t, NULL);
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  long sum = 0;
  for (struct link *l = first; l; l = l->next)
    sum += l->n;
  printf("sum %ld, counts that saw a broken list: %ld\n", sum, broken);
  return 0;
}
