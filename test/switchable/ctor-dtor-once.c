// A constructor or destructor that reads compact objects and reaches no
// safepoint would be dual, but its compact clone copied the definition's
// text, attribute included, so it ran a second time at start-up or exit
// (before: "ctor 2" and two "fini" lines, with no switch at all).  Such a
// function is checked instead: one body.
// REQUIRES: plugin
// RUN: %rewrite --plan -mode=switchable %s -- %cflags | FileCheck --check-prefix=PLAN %s
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %clang %cflags -O1 %s -o %t.native
// RUN: %t.native | FileCheck %s
// RUN: %t | FileCheck %s
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_STATS=1 %t 2> %t.err | FileCheck %s
// RUN: grep -q 'switch to wide mode' %t.err
// PLAN: plan: early (line [[@LINE+13]]): checked: cannot be dual: a constructor or destructor (a second body would run too)
// PLAN: plan: late (line [[@LINE+18]]): checked: cannot be dual: a constructor or destructor (a second body would run too)
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  long v;
  struct node *next;
};
static struct node *head;
static int early_runs;

__attribute__((constructor)) static void early(void) {
  early_runs++;
  if (head)
    head->v += 100;
}

__attribute__((destructor)) static void late(void) {
  long n = 0, s = 0;
  for (struct node *p = head; p; p = p->next, n++)
    s += p->v;
  printf("fini %ld %ld\n", n, s);
}

int main(void) {
  for (int i = 0; i < 20000; i++) {
    struct node *n = malloc(sizeof *n);
    n->v = i;
    n->next = head;
    head = n;
  }
  printf("ctor %d\n", early_runs);
  return 0;
}
// CHECK: ctor 1
// CHECK-NEXT: fini 20000 199990000
// CHECK-NOT: fini
