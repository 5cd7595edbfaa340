// Roots in two shapes real code writes: the head of a lock-free stack, a
// global `_Atomic(struct node *)` (it was no root: after the switch it
// pointed into the released arena), and a `const char *` holding a node's
// name array decayed (`s = n->name`, which is `&n->name[0]`; it was no
// root either).  The switch happens while both are live; every mode
// prints what the native build prints.
// RUN: %clang %cflags -O1 %s -o %t.native && %t.native > %t.expected
// RUN: %clang %cflags -O1 -Wall -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %t | diff %t.expected -
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_HIGH_WATER=10 COMPACTPTR_STATS=1 COMPACTPTR_VERIFY=1 %t 2>%t.stats | diff %t.expected -
// RUN: FileCheck --check-prefix=STATS %s < %t.stats
// RUN: %clang %cflags -O1 -Wall -Werror -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co && %t.co | diff %t.expected -
// RUN: %clang %cflags -O1 -Wall -Werror -fplugin=%plugin -fplugin-arg-compactptr-mode=wide %s %runtime -o %t.w && %t.w | diff %t.expected -
// STATS: compactptr: switch to wide mode (high-water mark)
#include <compactptr.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT node {
  int key;
  char name[12];
  struct node *next;
};

static _Atomic(struct node *) top;

static void push(int key) {
  struct node *n = calloc(1, sizeof *n);
  n->key = key;
  snprintf(n->name, sizeof n->name, "n%d", key);
  struct node *old = atomic_load(&top);
  do
    n->next = old;
  while (!atomic_compare_exchange_weak(&top, &old, n));
}

int main(void) {
  long sum = 0;
  int count = 0;
  push(-1);
  const char *first = atomic_load(&top)->name;
  for (int i = 0; i < 40000; i++)
    push(i);
  for (struct node *p = atomic_load(&top); p; p = p->next) {
    sum += p->key;
    count++;
  }
  printf("%d nodes, sum %ld, first '%s'\n", count, sum, first);
  return 0;
}
