// A spin loop's poll (docs/plugin.md, section 4a) saves what is live at
// the start of the loop's body, where the cursor its `for` declares is in
// scope too.  Here the function has a frame of slots (h is live across
// push), and the poll switches (cp_request_switch in the iteration
// before): the cursor was not in the frame, was not saved, and read the
// released arena after the switch (exit 70).
// REQUIRES: plugin
// RUN: %clang %cflags -O1 -Werror %s -o %t.native
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %t.native > %t.expect
// RUN: env COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t > %t.out 2> %t.err
// RUN: diff %t.expect %t.out
// RUN: FileCheck %s < %t.err
// RUN: %rewrite -mode=switchable %s -- %cflags | FileCheck --check-prefix=TEXT %s
// CHECK: compactptr: switch to wide mode {{.*}} verified
// TEXT: for (struct node *p = keep; p && {{.*}} { if (cp__safepoint_due()) { {{.*}}cp__slotframe.s[{{[0-9]}}] = p){{.*}}; cp_safepoint_slow();
#include <compactptr.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef COMPACTPTR_RUNTIME // the native build
#define cp_request_switch() ((void)0)
#endif

struct CP_COMPACT node {
  long key;
  struct node *next;
};

static atomic_long visits;
static atomic_int stop;

static struct node *push(struct node *h, long k) {
  struct node *n = malloc(sizeof *n);
  n->key = k;
  n->next = h;
  return n;
}

static long walk(struct node *h) {
  long s = 0;
  struct node *keep = push(h, 7); // h is live across the call: a frame
  s += keep->key + h->key;
  for (struct node *p = keep; p && !atomic_load(&stop); p = p->next) {
    atomic_fetch_add(&visits, 1); // its condition reads an atomic: it polls
    if (p->key == 500)
      cp_request_switch(); // the next iteration's poll switches
    s += p->key;
  }
  return s;
}

int main(void) {
  struct node *h = NULL;
  long i;
  for (i = 0; i < 1000; i++)
    h = push(h, i);
  printf("sum %ld\n", walk(h));
  printf("visits %ld\n", (long)atomic_load(&visits));
  return 0;
}
