// The kernel's list_for_each_entry_safe keeps the next element in a
// cursor computed before the body runs; on the last element that cursor
// is container_of of the list head itself, which is no element: an
// address before the head, where the head's owner has other bytes (here
// the head is a global, a member of a global struct, and a heap object).
// A switch in the body of the last element left the cursor pointing at
// whatever the compact address held: "a compact pointer was used after
// the switch" (exit 70), SIGSEGV in a fuller program, and under
// COMPACTPTR_VERIFY "root slot holds ..., a 'list_head' object, where a
// 'item' is expected".  The switch moves such a root with the member its
// address plus the member's offset names.
// REQUIRES: plugin
// RUN: %clang %cflags -O2 -Wall -Werror %s -o %t.native && %t.native > %t.native.out
// RUN: FileCheck --check-prefix=OUT %s < %t.native.out
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.compact
// RUN: %t.compact | diff %t.native.out -
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=switchable %s %runtime -o %t
// RUN: env COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t switch 2> %t.err | diff %t.native.out -
// RUN: FileCheck %s < %t.err
// RUN: %clang %cflags -O0 -fplugin=%plugin -fplugin-arg-compactptr-mode=switchable %s %runtime -o %t.O0
// RUN: env COMPACTPTR_VERIFY=1 %t.O0 switch | diff %t.native.out -
// OUT: global: visited 3 sum 3 after 103
// OUT: member: visited 3 sum 3 after 103
// OUT: heap: visited 3 sum 3 after 103
// CHECK: compactptr: switch to wide mode (cp_switch_to_wide()) after 5 allocations: {{.*}}, verified
#include <compactptr.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT list_head {
  struct list_head *next, *prev;
};
/* The link is not the first member: container_of steps back by a
 * different number of bytes in each layout. */
struct item {
  int v;
  struct list_head link;
};
struct queue {
  long count;
  struct list_head tasks;
};

#define container_of(p, T, m) ((T *)((char *)(p) - offsetof(T, m)))
#define list_entry(p, T, m) container_of(p, T, m)
#define list_for_each_entry_safe(pos, n, head, member)                         \
  for (pos = list_entry((head)->next, __typeof__(*pos), member),               \
      n = list_entry(pos->member.next, __typeof__(*pos), member);              \
       &pos->member != (head);                                                 \
       pos = n, n = list_entry(n->member.next, __typeof__(*n), member))

static struct list_head global_head;
static struct queue global_queue;

static void list_init(struct list_head *h) { h->next = h->prev = h; }
static void list_add_tail(struct list_head *e, struct list_head *h) {
  e->prev = h->prev;
  e->next = h;
  h->prev->next = e;
  h->prev = e;
}

static int switch_in_loop; /* argv[1]: a switchable build switches */

static void run(const char *name, struct list_head *head) {
  list_init(head);
  for (int i = 0; i < 3; i++) {
    struct item *it = malloc(sizeof *it);
    it->v = i;
    list_add_tail(&it->link, head);
  }
  struct item *pos, *n;
  int visited = 0, sum = 0;
  list_for_each_entry_safe(pos, n, head, link) {
    visited++;
    sum += pos->v;
    /* The last element: n is container_of(head).  A switch here. */
    if (&n->link == head && switch_in_loop)
      cp_switch_to_wide(); /* the later calls find it done */
  }
  /* The loop ended through the moved cursor; the list is still whole. */
  for (int i = 0; i < 100; i++) {
    struct item *it = malloc(sizeof *it);
    it->v = 1;
    list_add_tail(&it->link, head);
  }
  int after = 0;
  list_for_each_entry_safe(pos, n, head, link) {
    after += pos->v;
    pos->link.prev->next = pos->link.next;
    pos->link.next->prev = pos->link.prev;
    free(pos);
  }
  printf("%s: visited %d sum %d after %d\n", name, visited, sum, after);
}

int main(int argc, char **argv) {
  (void)argv;
  switch_in_loop = argc > 1;
  run("global", &global_head);
  run("member", &global_queue.tasks);
  struct list_head *h = malloc(sizeof *h);
  run("heap", h);
  free(h);
  return 0;
}
