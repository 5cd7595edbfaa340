// A loop of a checked function in which no safepoint can run (no poll, no
// call that may reach one) is versioned by mode: the compact copy has no
// per-access mode test; the wide copy follows a #line back to the loop's
// first line.  Loops that contain a safepoint (an allocation among them) or
// main's polled loops keep the per-expression test, or have the runs of
// statements between their safepoints versioned.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Werror -fplugin-arg-compactptr-dump=- %s 2>&1 | FileCheck %s
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: env COMPACTPTR_HIGH_WATER=20 COMPACTPTR_ARENA_LIMIT=512K COMPACTPTR_STATS=1 COMPACTPTR_VERIFY=1 %t > %t.out 2> %t.err
// RUN: FileCheck --check-prefix=ERR %s < %t.err
// RUN: FileCheck --check-prefix=OUT %s < %t.out
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node { int key; struct node *next; };
static struct node *head;

static long round_trip(int n) {
  long s = 0;
  for (int i = 0; i < n; i++) {
    struct node *q = malloc(sizeof(struct node));
    q->key = i; q->next = head; head = q;
  }
  cp_safepoint();
  for (struct node *p = head; p; p = p->next)
    s += p->key;
  while (head) {
    struct node *d = head;
    head = head->next;
    cp_safepoint();
    free(d);
  }
  return s;
}

/* Duff's device: the body holds case labels of the switch around the loop,
   which two copies would repeat, so the loop is not versioned.  (The
   polls around the switch keep it out of a versioned run of statements,
   which would copy the switch whole.) */
static int bump(struct node *h, int n) {
  cp_safepoint();
  switch (n & 1) {
    do {
    case 0:
      h->key++;
    case 1:
      h->key++;
    } while ((n -= 2) > 0);
  }
  cp_safepoint();
  return h->key;
}

/* A call handed a function (qsort's comparator) may reach a safepoint the
   plugin cannot see: the loop is not versioned. */
static int by_value(const void *a, const void *b) {
  return *(const int *)a - *(const int *)b;
}
static int sorted_min(struct node *h, int *v, int n) {
  cp_safepoint();
  for (int i = 0; i < 2; i++) {
    h->key += i;
    qsort(v, (size_t)n, sizeof *v, by_value);
  }
  return v[0] + h->key;
}

int main(void) {
  long t = 0;
  int v[3] = {3, 1, 2};
  for (int r = 0; r < 20; r++) t += round_trip(10000);
  printf("%ld\n", t);
  head = malloc(sizeof(struct node));
  head->key = 0;
  printf("%d\n", bump(head, 5));
  printf("%d\n", sorted_min(head, v, 3));
  return 0;
}
// An allocation is a safepoint: the loop that allocates is not versioned
// whole, but the run of statements after the allocation is, up to its
// last layout-dependent statement (`head = q;` runs once, after it).
// CHECK: {{^}}  for (int i = 0; i < n; i++) {
// CHECK-NEXT: {{^}}    struct node *q = cp_alloc_safepoint(&cp__desc_node);
// CHECK-NEXT: {{^}}    { if (cp_is_compact()) { {{.*}} (((struct cp__c_node *)(q))->key) = i; cp__sth(&(((struct cp__c_node *)(q))->next), head); CP__QUIET_END } else {
// CHECK-NEXT: {{^}}#line 24 "{{.*}}loop-versioning.c"
// CHECK-NEXT: {{^}}    q->key = i; q->next = head; } } head = q;
// CHECK-NEXT: {{^}}  }
// CHECK-NEXT: {{^}}  cp_safepoint();
// CHECK-NEXT: {{^}}  { if (cp_is_compact()) {{.*}} for (struct node *p = head; p; p = ((struct node *)cp_decode((((struct cp__c_node *)(p))->next))))
// CHECK-NEXT: {{^}}    s += (((struct cp__c_node *)(p))->key); CP__QUIET_END } else {
// CHECK-NEXT: {{^}}#line 27 "{{.*}}loop-versioning.c"
// CHECK-NEXT: {{^}}  for (struct node *p = head; p; p = p->next)
// CHECK-NEXT: {{^}}    s += p->key; } }
// A safepoint inside: not versioned; the local is saved on the slow path
// of the poll.
// CHECK-NEXT: {{^}}  while (head) {
// CHECK-NEXT: {{^}}    struct node *d = head;
// CHECK-NEXT: {{^}}    (cp_is_compact() ? (void)(head = ((struct node *)cp_decode((((struct cp__c_node *)(head))->next)))) : (void)(head = head->next));
// CHECK-NEXT: {{^}}    (void)(__extension__({ if (cp__safepoint_due()) { {{.*}} (void)(cp__ls[0] = d); (void)cp__saved_slow(2, 0, 0, cp__ls, 1, cp__lt, cp__ln); d = cp__ls[0]; } }));
// CHECK: {{^}}  switch (n & 1) {
// CHECK-NEXT: {{^}}    do {{[{]$}}
// CHECK-NEXT: {{^}}    case 0:
// CHECK-NEXT: {{^}}      (cp_is_compact() ? (void)((((struct cp__c_node *)(h))->key)++) : (void)(h->key++));
// CHECK: {{^}}  for (int i = 0; i < 2; i++) {
// CHECK-NEXT: {{^}}    (cp_is_compact() ? (void)((((struct cp__c_node *)(h))->key) += i) : (void)(h->key += i));
// main's loop calls a function that allocates (its allocations are
// safepoints themselves): no poll, and the loop is not versioned.
// CHECK: {{^}}  for (int r = 0; r < 20; r++) t += round_trip(10000);
// ERR: compactptr: switch to wide mode
// OUT: 999900000
// OUT-NEXT: 5
// OUT-NEXT: 7
