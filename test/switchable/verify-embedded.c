// COMPACTPTR_VERIFY accepts a pointer to a compact struct embedded in a
// bigger heap object at a non-zero offset, at any depth: a list header
// inside its owner (`it->back = &o->head`, `&o->ward.waiting`: the shape of
// Olden's health) and an intrusive node that is not its container's first
// member, walked back to the container with container_of.  (It stopped
// with "a 'owner' object, where a 'item' is expected", though the switch
// translates these pointers correctly.)
// REQUIRES: plugin
// RUN: %clang %cflags -O2 -Wall -Werror %s -o %t.native && %t.native > %t.native.out
// RUN: FileCheck --check-prefix=OUT %s < %t.native.out
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=switchable %s %runtime -o %t
// RUN: env COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.native.out -
// RUN: FileCheck %s < %t.err
// OUT: 16 8
// CHECK-NOT: verify
// CHECK: compactptr: switch to wide mode (cp_switch_to_wide()) after 9 allocations: {{.*}}, verified
#include <compactptr.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT item {
  struct item *next, *back;
  int v;
};
struct ward {
  long beds;
  struct item waiting;
};
/* First fields differ from item's: no common initial sequence. */
struct CP_COMPACT owner {
  struct owner *link;
  long pad;
  struct item head;
  struct ward ward;
};
struct CP_COMPACT task {
  int prio;
  struct task *peer;
  struct item node;
};
#define container_of(p, T, m) ((T *)(void *)((char *)(p) - offsetof(T, m)))

int main(void) {
  struct owner *o = malloc(sizeof *o);
  o->head.next = &o->head;
  o->ward.waiting.next = &o->ward.waiting;
  struct task *t[8];
  for (int i = 0; i < 8; i++) {
    t[i] = malloc(sizeof *t[i]);
    t[i]->prio = i;
    struct item *h = i % 2 ? &o->head : &o->ward.waiting;
    t[i]->node.back = h;
    t[i]->node.next = h->next;
    h->next = &t[i]->node;
  }
  cp_switch_to_wide();
  long s = 0, n = 0;
  for (struct item *p = o->head.next; p != &o->head; p = p->next)
    s += container_of(p, struct task, node)->prio, n += p->back == &o->head;
  for (struct item *p = o->ward.waiting.next; p != &o->ward.waiting; p = p->next)
    s += 0 * container_of(p, struct task, node)->prio, n += p->back == &o->ward.waiting;
  printf("%ld %ld\n", s, n);
  return 0;
}
