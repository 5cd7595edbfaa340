// A timer's signal handler walks the list the main loop grows.  The
// switch, which moves every node and gives the compact arena back slab by
// slab, must not be interrupted by it: the handler would walk a list half
// moved (it counted the wrong length, or faulted).  The switching thread
// holds asynchronous signals until the world resumes, so every walk sees
// the list whole, before or after the switch.  The timer ticks every
// millisecond and COMPACTPTR_VERIFY lengthens the switch (the heap is
// checked before and after), so before the fix ticks landed inside it in
// every run tried.
// REQUIRES: plugin
// RUN: %clang %cflags -O1 %s -o %t.native && %t.native > %t.native.out
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: env COMPACTPTR_ARENA_LIMIT=4M COMPACTPTR_HIGH_WATER=25 COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t > %t.out 2> %t.err
// RUN: diff %t.native.out %t.out && FileCheck %s < %t.err
// CHECK: compactptr: switch to wide mode
#include <compactptr.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/time.h>

struct CP_COMPACT node { long key; struct node *next; };

static struct node *volatile head;
static volatile long length, wrong, walks;

/* Counts the list; the main loop links a node before it counts it. */
static void on_tick(int sig) {
  (void)sig;
  long want = length, n = 0;
  for (struct node *p = head; p; p = p->next)
    n++;
  if (n != want && n != want + 1)
    wrong++;
  walks++;
}

int main(void) {
  struct sigaction sa = {0};
  sa.sa_handler = on_tick;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGALRM, &sa, NULL);
  struct itimerval every = {{0, 1000}, {0, 1000}};
  setitimer(ITIMER_REAL, &every, NULL);
  for (long i = 0; i < 100000; i++) {
    struct node *x = malloc(sizeof *x);
    x->key = i;
    x->next = head;
    head = x;
    length = i + 1;
  }
  struct itimerval off = {{0, 0}, {0, 0}};
  setitimer(ITIMER_REAL, &off, NULL);
  long sum = 0;
  for (struct node *p = head; p; p = p->next)
    sum += p->key;
  printf("sum %ld, walks that saw a broken list: %ld\n", sum, wrong);
  return 0;
}
