// The Linux kernel's list poison values: list_del() leaves LIST_POISON1
// and LIST_POISON2 in the removed entry's links, `(void *)0x100 +
// POISON_POINTER_DELTA` and `(void *)0x122 + ...`, and a test compares a
// link with them.  With the delta 0 (as most architectures configure it)
// the values are sentinels below a handle's reach: they round-trip through
// compact fields and the switch leaves them alone.  Before, both spellings
// with the `void *` arithmetic were refused in every mode ("a pointer
// moved through a buffer", as if a pool made them).  With the delta of
// x86-64 (0xdead000000000000) no handle can hold them: the store is
// refused where it is written; before, it compiled and stopped the
// program at run time with a message about foreign allocators and no line.
// REQUIRES: plugin
// RUN: %clang %cflags -DDELTA=0xdead000000000000UL -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -DDELTA=0xdead000000000000UL -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -DDELTA=0xdead000000000000UL -fplugin=%plugin -fplugin-arg-compactptr-mode=wide -fsyntax-only -Xclang -verify=none %s
// RUN: %clang %cflags -O1 %s -o %t.native && %t.native > %t.expect
// RUN: %clang %cflags -O1 -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co && %t.co | diff %t.expect -
// RUN: %clang %cflags -O1 -fplugin=%plugin %s %runtime -o %t
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: grep -q 'switch to wide mode (high-water mark).*verified' %t.err
// RUN: FileCheck %s < %t.expect
// CHECK: removed 25000 poisoned 25000 left 25000 sum 625000000
// none-no-diagnostics
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef DELTA
#define DELTA 0
#endif
#define LIST_POISON1 ((void *)0x100 + DELTA)
#define LIST_POISON2 ((void *)0x122 + DELTA)

struct CP_COMPACT list_head {
  struct list_head *next, *prev;
};
struct CP_COMPACT item {
  struct list_head link;
  long key;
};

static void list_add_tail(struct list_head *e, struct list_head *h) {
  e->prev = h->prev;
  e->next = h;
  h->prev->next = e;
  h->prev = e;
}

static void list_del(struct list_head *e) {
  e->next->prev = e->prev;
  e->prev->next = e->next;
  e->next = LIST_POISON1; // expected-error {{the constant address 0xdead000000000100 stored into field 'next' is beyond what a handle holds (addresses below 4 GiB): the store would stop the program; use a sentinel below it, such as the kernel's list poison values without POISON_POINTER_DELTA ((void *)0x100)}}
  e->prev = LIST_POISON2; // expected-error {{the constant address 0xdead000000000122 stored into field 'prev'}}
}

int main(void) {
  struct list_head *head = malloc(sizeof *head);
  struct item **removed = malloc(25000 * sizeof *removed);
  long sum = 0, poisoned = 0, left = 0, n = 0;
  head->next = head->prev = head;
  for (long i = 0; i < 50000; i++) {
    struct item *it = malloc(sizeof *it);
    it->key = i;
    list_add_tail(&it->link, head);
  }
  for (struct list_head *p = head->next, *nx; p != head; p = nx) {
    nx = p->next;
    struct item *it = (struct item *)p;
    if (it->key % 2 == 0) {
      list_del(p);
      removed[n++] = it;
    }
  }
  for (long i = 0; i < n; i++)
    poisoned += removed[i]->link.next == LIST_POISON1 &&
                removed[i]->link.prev == LIST_POISON2;
  for (struct list_head *p = head->next; p != head; p = p->next) {
    left++;
    sum += ((struct item *)p)->key;
  }
  printf("removed %ld poisoned %ld left %ld sum %ld\n", n, poisoned, left, sum);
  return 0;
}
