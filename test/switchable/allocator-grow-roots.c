// A switch inside a grow wrapper declared CP_ALLOCATOR, while the caller
// walks a list (its cursor a compact pointer live across the call): the
// call is the runtime's realloc, so the cursor is saved in the caller's
// frame as for realloc and translated.  Before, such a call was taken for
// a fresh allocation, whose slow path registers no frame: the cursor went
// stale (exit 70, "a compact pointer was used after the switch").
// REQUIRES: plugin
// RUN: %clang %cflags -O2 -Werror -fplugin=%plugin -fplugin-arg-compactptr-mode=switchable %s %runtime -o %t
// RUN: %clang %cflags -O2 %s -o %t.native
// RUN: %t.native | FileCheck %s
// RUN: env COMPACTPTR_ARENA_LIMIT=512K COMPACTPTR_STATS=1 COMPACTPTR_VERIFY=1 %t 2> %t.err | FileCheck %s
// RUN: FileCheck --check-prefix=STATS %s < %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_VERIFY=1 %t | FileCheck %s
// STATS: switch to wide mode
// CHECK: copied 20000 sum 199990000 again 199990000
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  int v;
  struct node *next;
};

static CP_ALLOCATOR void *grow(void *p, size_t n, size_t size) {
  void *q = realloc(p, n * size);
  if (!q)
    exit(2);
  return q;
}

int main(void) {
  struct node *head = NULL, *arr = NULL;
  size_t cnt = 0, cap = 0;
  long sum = 0, again = 0;
  for (int i = 0; i < 20000; i++) {
    struct node *n = malloc(sizeof *n);
    n->v = i;
    n->next = head;
    head = n;
  }
  for (struct node *p = head; p; p = p->next) {
    if (cnt == cap) {
      cap = cap ? 2 * cap : 8;
      arr = grow(arr, cap, sizeof *arr);
    }
    arr[cnt].v = p->v;
    arr[cnt].next = NULL;
    sum += p->v;
    cnt++;
  }
  for (size_t i = 0; i < cnt; i++)
    again += arr[i].v;
  printf("copied %zu sum %ld again %ld\n", cnt, sum, again);
  free(arr);
  while (head) {
    struct node *n = head->next;
    free(head);
    head = n;
  }
  return 0;
}
