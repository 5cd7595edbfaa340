// A variable saved into its frame slot around one call and dead by the
// next: the slot is cleared once read back, so the switch at the later
// call does not find a root into freed memory.  (A stale slot was followed
// by the switch, and COMPACTPTR_VERIFY stopped on it once the freed memory
// held an object of another type: seen in the multi-threaded differential
// test, about one run in 300.)
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Werror -fplugin-arg-compactptr-dump=- %s 2>&1 | FileCheck %s
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_STATS=1 COMPACTPTR_VERIFY=1 %t 2>&1 | FileCheck --check-prefix=OUT %s
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  long key;
  struct node *next;
};

struct CP_COMPACT item {
  long key;
  struct item *next;
};

static struct node *kept;

static void grow(int n) {
  for (int i = 0; i < n; i++) {
    struct node *m = malloc(sizeof *m);
    m->key = i;
    m->next = kept;
    kept = m;
  }
}

static long once(void) {
  struct item *p = malloc(sizeof *p);
  p->key = 42;
  p->next = 0;
  grow(1);
  long k = p->key;
  free(p);
  grow(40000);
  return k;
}
// CHECK-LABEL: static long once(void) {
// CHECK: {{^}}  { struct cp__slotframe_s { cp_frame_t f; void *s[1]; } {{.*}} (void)(__extension__({ {{.*}}grow(1)); p = cp__slotframe.s[0]; cp__slotframe.s[0] = 0; }));

int main(void) {
  long k = once();
  long n = 0;
  for (struct node *q = kept; q; q = q->next)
    n++;
  printf("%ld %ld %d\n", k, n, cp_is_compact());
  return 0;
}
// OUT: compactptr: switch to wide mode
// OUT: 42 40001 0
