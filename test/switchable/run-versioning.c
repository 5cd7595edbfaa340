// In a checked function, the statements between two safepoint-reaching
// ones keep one mode: a run with two or more layout-dependent statements
// is versioned by mode as a whole.  A run stops before a declaration whose
// variable is used after it (that one stays a root), and in main a
// run holds no loop (its polls would be lost in the copies).  The switch
// happens mid-run of the program; the output matches the native build.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Werror -fplugin-arg-compactptr-dump=- %s 2>&1 | FileCheck %s
// RUN: %clang %cflags -O1 %s -o %t.native && %t.native > %t.native.out
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: env COMPACTPTR_ARENA_LIMIT=512K COMPACTPTR_STATS=1 COMPACTPTR_VERIFY=1 %t > %t.out 2> %t.err
// RUN: diff %t.native.out %t.out && FileCheck --check-prefix=ERR %s < %t.err
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node { int key; struct node *next, *other; };

static struct node *push(struct node *head, int k) {
  struct node *n = malloc(sizeof *n);
  cp_safepoint();
  n->key = k;
  n->next = head;
  n->other = head ? head->next : NULL;
  for (struct node *q = head; q && q->key > k; q = q->next)
    n->key++;
  return n;
}

static long walk(struct node *head) {
  long s = 0;
  int steps = 0;
  cp_safepoint();
  struct node *mid = head;
  for (; mid && steps < 10; mid = mid->next)
    steps++;
  cp_safepoint();
  s += mid ? mid->key : -1;
  s += head->other ? head->other->key : -2;
  return s;
}

int main(void) {
  struct node *head = NULL;
  long t = 0;
  for (int i = 0; i < 60000; i++) {
    head = push(head, i % 977);
    if (i % 1000 == 0) {
      t += head->key;
      t += head->next ? head->next->key : 0;
      t += walk(head);
    }
  }
  head->key = 1;
  head->next->key = 2;
  for (struct node *p = head; p; p = p->next)
    t += p->key;
  printf("%ld\n", t);
  while (head) {
    struct node *d = head;
    head = head->next;
    free(d);
  }
  return 0;
}
// The run after push's poll, with a loop inside (not main): versioned whole,
// up to its last layout-dependent statement (`return n;` is not copied).
// The poll's slow path registers the saved locals out of line.
// CHECK-LABEL: {{^}}__inline__ static struct node *push(
// CHECK: {{^}}  (void)(__extension__({ if (cp__safepoint_due()) { {{.*}} (void)cp__saved_slow(2, 0, 0, cp__ls, 2, cp__lt, cp__ln); {{.*}} } }));
// CHECK-NEXT: {{^}}  { if (cp_is_compact()) { {{.*}} (((struct cp__c_node *)(n))->key) = k;
// CHECK: {{^}}#line 22 "{{.*}}run-versioning.c"
// CHECK-NEXT: {{^}}  n->key = k;
// CHECK: {{^}}    n->key++; } }{{$}}
// CHECK-NEXT: {{^}}  return n;{{$}}
// 'mid' is used after the next safepoint: its declaration stays out of the
// run and is saved on the slow path of the poll; the loop alone is
// versioned as a loop.
// CHECK-LABEL: {{^}}__inline__ static long walk(
// CHECK: {{^}}  struct node *mid = head;{{$}}
// CHECK: {{^}}  (void)(__extension__({ if (cp__safepoint_due()) { void *cp__ls[2]; static cp_type_desc_t *const cp__lt[2] = {&cp__desc_node, &cp__desc_node}; static const char *const cp__ln[2] = {"head", "mid"}; (void)(cp__ls[0] = head, cp__ls[1] = mid); (void)cp__saved_slow(2, 0, 0, cp__ls, 2, cp__lt, cp__ln); head = cp__ls[0]; mid = cp__ls[1]; } }));
// CHECK-NEXT: {{^}}  { if (cp_is_compact()) { {{.*}} s += {{.*}}cp__c_node
// CHECK: {{^}}  s += head->other ? head->other->key : -2; } }{{$}}
// CHECK-NEXT: {{^}}  return s;{{$}}
// main: the two statements before the loop form a run; the loop is not in it.
// CHECK-LABEL: {{^}}static __attribute__((noinline, cold, unused)) int main__outside(void); int main(void) {
// CHECK: {{^}}  { if (cp_is_compact()) { {{.*}} (((struct cp__c_node *)(head))->key) = 1;
// CHECK: {{^}}  head->next->key = 2; } }{{$}}
// A loop of main that cannot allocate: one poll in front, versioned whole.
// CHECK-NEXT: {{^}}  { if (cp__safepoint_due()) { {{.*}} } if (cp_is_compact()) { {{.*}} for (struct node *p = head; p;
// ERR: compactptr: switch to wide mode{{.*}}verified
