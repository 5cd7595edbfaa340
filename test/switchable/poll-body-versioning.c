// An innermost loop of main whose body cannot reach a safepoint past its
// poll keeps the poll at the start of every iteration, then tests the mode
// once for the whole body: `{ if (cp__safepoint_due()) { {{.*}} } if (cp_is_compact()) {
// <compact body> } else { <wide body> } }`, the wide copy behind a #line
// back to the body's first line.  The loop's condition and increment keep
// the per-expression test.  Bodies with a call that may reach a safepoint
// or a case label of an enclosing switch keep the per-expression test.
// Loops that cannot allocate get one poll in front and are versioned whole.
// The switch happens at an allocation of the second loop: the output equals
// the native build's.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Werror -fplugin-arg-compactptr-dump=- %s 2>&1 | FileCheck %s
// RUN: %clang %cflags -O1 -Werror %s -o %t.native
// RUN: %t.native > %t.native.out
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_STATS=1 COMPACTPTR_VERIFY=1 %t > %t.out 2> %t.err
// RUN: FileCheck --check-prefix=ERR %s < %t.err
// RUN: FileCheck --check-prefix=OUT %s < %t.out
// RUN: diff %t.native.out %t.out
// The wide copy reports its warnings at the user's line and column; the
// compact copy's are silenced.
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -DWARN -Wunused-value %s 2>&1 | FileCheck --check-prefix=WARN %s
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node { int key; struct node *next; };

static struct node *push(struct node *h, int k) {
  cp_safepoint();
  struct node *n = malloc(sizeof(struct node));
  n->key = k;
  n->next = h;
  return n;
}

int main(void) {
  struct node *head = NULL, *copy = NULL, *p;
  long s = 0, t = 0, u = 0;
  int i, j, n = 0;
  for (i = 0; i < 10000; i++) {
    struct node *q = malloc(sizeof(struct node));
    q->key = i;
    q->next = head;
    head = q;
  }
  for (p = head; p; p = p->next) {
    struct node *c = malloc(sizeof(struct node));
    c->key = p->key + 10000;
    c->next = copy;
    copy = c;
  }
  for (p = copy; p->next; p = p->next)
    ;
  p->next = head;
  head = copy;
  for (struct node *x = head; x; x = x->next)
    s += x->key;
  p = head;
  while (p) {
    if (p->key % 3 == 0) {
      p = p->next;
      continue;
    }
    if (p->key < 100)
      break;
    t += p->key;
    p = p->next;
  }
  p = head;
  while (p->key > 20000) p = p->next;
  do
    p = p->next;
  while (p->key > 10000);
  do {
    struct node *r = p->next;
    if (!r)
      break;
    u += r->key - p->key;
    p = r;
  } while (1);
  for (i = 0; i < 8; i++) {
    for (p = head, j = 0; j < i; j++)
      p = p->next;
    u += p->key;
  }
  for (i = 0; i < 1000; i++) {
    head = push(head, -i);
    u += head->next->key;
  }
  switch (n) {
    do {
    case 0:
      head->key++;
      n++;
    } while (n < 4);
  }
#ifdef WARN
  for (p = head; p; p = p->next) u += (p->key, 1);
#endif
  printf("%ld %ld %ld %d %d\n", s, t, u, n, head->key);
  return 0;
}
// A body that allocates: the allocation is a safepoint itself, so the loop
// gets no poll; the run of statements after the allocation is versioned
// up to its last layout-dependent statement.
// main's locals are saved only on the allocation's slow path, and only
// those live after it (p is assigned before its next use).
// CHECK-LABEL: int main(void) {
// CHECK: cp__frame(&cp__slotframe.f, 3 | CP_FRAME_RELATIVE, cp__slotroots)); for (i = 0; i < 10000; i++) {{[{]$}}
// CHECK-NEXT: {{^}}    struct node *q = __extension__({ void *[[A:cp__a[0-9]+]] = cp__alloc_fast(&cp__desc_node); if (__builtin_expect(![[A]], 0)) { (void)(cp__slotframe.s[0] = head, cp__slotframe.s[1] = copy); [[A]] = cp__alloc_slow(&cp__desc_node); head = cp__slotframe.s[0]; cp__slotframe.s[0] = 0; copy = cp__slotframe.s[1]; cp__slotframe.s[1] = 0; } [[A]]; });{{$}}
// CHECK-NEXT: {{^}}    { if (cp_is_compact()) { CP__QUIET_BEGIN (((struct cp__c_node *)(q))->key) = i;{{$}}
// CHECK-NEXT: {{^}}    cp__sth_known(&(((struct cp__c_node *)(q))->next), head); CP__QUIET_END } else {{[{]$}}
// CHECK-NEXT: {{^}}#line 43 "{{.*}}poll-body-versioning.c"
// CHECK-NEXT: {{^}}    q->key = i;{{$}}
// CHECK-NEXT: {{^}}    q->next = head; } }{{$}}
// CHECK-NEXT: {{^}}    head = q;{{$}}
// CHECK-NEXT: {{^}}  }{{$}}
// The condition and increment keep the per-expression test.
// CHECK-NEXT: {{^}}  for (p = head; p; (cp_is_compact() ? (void)(p = ((struct node *)cp_decode((((struct cp__c_node *)(p))->next)))) : (void)(p = p->next))) {{[{]$}}
// CHECK-NEXT: {{^}}    struct node *c = __extension__({ {{.*}} });{{$}}
// CHECK-NEXT: {{^}}    { if (cp_is_compact()) { {{.*}} (((struct cp__c_node *)(c))->key) = (((struct cp__c_node *)(p))->key) + 10000;{{$}}
// CHECK: {{^}}#line 49 "{{.*}}poll-body-versioning.c"
// CHECK-NEXT: {{^}}    c->key = p->key + 10000;{{$}}
// CHECK: {{^}}    c->next = copy; } }{{$}}
// CHECK-NEXT: {{^}}    copy = c;{{$}}
// CHECK-NEXT: {{^}}  }{{$}}
// Loops that cannot allocate (no call but builtins, free and the system
// headers) need one poll in front, not one per iteration: they are
// versioned whole (loop-versioning.c), continue and break included.
// CHECK-NEXT: {{^}}  { if (cp__safepoint_due()) { {{.*}} } if (cp_is_compact()) {{.*}} for (p = copy; ((((struct cp__c_node *)(p))->next) != 0); {{.*}})
// CHECK-NEXT: {{^}}    ; CP__QUIET_END } else {{[{]$}}
// CHECK-NEXT: {{^}}#line 53 "{{.*}}poll-body-versioning.c"
// CHECK-NEXT: {{^}}  for (p = copy; p->next; p = p->next)
// CHECK-NEXT: {{^}}    ; } }{{$}}
// CHECK-NEXT: {{^}}  (cp_is_compact() ? (void)(cp__sth_known(
// CHECK-NEXT: {{^}}  head = copy;
// CHECK-NEXT: {{^}}  { if (cp__safepoint_due()) { {{.*}} } if (cp_is_compact()) {{.*}} for (struct node *x = head; x; {{.*}})
// CHECK-NEXT: {{^}}    s += (((struct cp__c_node *)(x))->key); CP__QUIET_END } else {{[{]$}}
// CHECK-NEXT: {{^}}#line 57 "{{.*}}poll-body-versioning.c"
// CHECK-NEXT: {{^}}  for (struct node *x = head; x; x = x->next)
// CHECK-NEXT: {{^}}    s += x->key; } }{{$}}
// CHECK-NEXT: {{^}}  p = head;
// CHECK-NEXT: {{^}}  { if (cp__safepoint_due()) { {{.*}} } if (cp_is_compact()) {{.*}} while (p) {
// CHECK-NEXT: {{^}}    if ((((struct cp__c_node *)(p))->key) % 3 == 0) {
// CHECK-NEXT: {{^}}      p = ((struct node *)cp_decode((((struct cp__c_node *)(p))->next)));
// CHECK-NEXT: {{^}}      continue;
// CHECK: {{^}}  } CP__QUIET_END } else {{[{]$}}
// CHECK-NEXT: {{^}}#line 60 "{{.*}}poll-body-versioning.c"
// CHECK-NEXT: {{^}}  while (p) {
// CHECK-NEXT: {{^}}    if (p->key % 3 == 0) {
// CHECK-NEXT: {{^}}      p = p->next;
// CHECK-NEXT: {{^}}      continue;
// CHECK-NEXT: {{^}}    }
// CHECK-NEXT: {{^}}    if (p->key < 100)
// CHECK-NEXT: {{^}}      break;
// CHECK: {{^}}  } } }{{$}}
// CHECK-NEXT: {{^}}  p = head;
// CHECK-NEXT: {{^}}  { if (cp__safepoint_due()) { {{.*}} } if (cp_is_compact()) {{.*}} while ((((struct cp__c_node *)(p))->key) > 20000) p = {{.*}}; CP__QUIET_END } else {{[{]$}}
// CHECK-NEXT: {{^}}#line 71 "{{.*}}poll-body-versioning.c"
// CHECK-NEXT: {{^}}  while (p->key > 20000) p = p->next; } }{{$}}
// CHECK-NEXT: {{^}}  { if (cp__safepoint_due()) { {{.*}} } if (cp_is_compact()) {{.*}} do{{$}}
// CHECK: {{^}}#line 72 "{{.*}}poll-body-versioning.c"
// CHECK-NEXT: {{^}}  do{{$}}
// CHECK-NEXT: {{^}}    p = p->next;
// CHECK-NEXT: {{^}}  while (p->key > 10000); } }{{$}}
// CHECK-NEXT: {{^}}  { if (cp__safepoint_due()) { {{.*}} } if (cp_is_compact()) {{.*}} do {
// CHECK-NEXT: {{^}}    struct node *r = ((struct node *)cp_decode((((struct cp__c_node *)(p))->next)));{{$}}
// CHECK: {{^}}#line 75 "{{.*}}poll-body-versioning.c"
// CHECK-NEXT: {{^}}  do {
// CHECK-NEXT: {{^}}    struct node *r = p->next;{{$}}
// CHECK: {{^}}  } while (1); } }{{$}}
// Nested loops that cannot allocate: the whole nest, one poll in front.
// CHECK-NEXT: {{^}}  { if (cp__safepoint_due()) { {{.*}} } if (cp_is_compact()) {{.*}} for (i = 0; i < 8; i++) {
// CHECK-NEXT: {{^}}    for (p = head, j = 0; j < i; j++)
// CHECK-NEXT: {{^}}      p = ((struct node *)cp_decode((((struct cp__c_node *)(p))->next)));
// CHECK-NEXT: {{^}}    u += (((struct cp__c_node *)(p))->key);
// CHECK: {{^}}#line 82 "{{.*}}poll-body-versioning.c"
// CHECK: {{^}}  } } }{{$}}
// A call that may reach a safepoint (push allocates: no poll needed):
// per-expression tests.
// CHECK-NEXT: {{^}}  for (i = 0; i < 1000; i++) {{[{]$}}
// CHECK-NEXT: {{^}}    (void)(head = __extension__({ __auto_type [[R:cp__r[0-9]+]] = (cp__slotframe.s[0] = head, push(head, -i)); head = cp__slotframe.s[0]; cp__slotframe.s[0] = 0; [[R]]; }));
// CHECK-NEXT: {{^}}    (cp_is_compact() ? (void)(u += {{.*}}) : (void)(u += head->next->key));
// CHECK-NEXT: {{^}}  }
// A case label of the enclosing switch cannot be copied; the loop cannot
// allocate, so it gets one poll in front.
// CHECK-NEXT: {{^}}  switch (n) {
// CHECK-NEXT: {{^}}    { if (cp__safepoint_due()) { {{.*}} } do {{[{]$}}
// CHECK-NEXT: {{^}}    case 0:
// CHECK-NEXT: {{^}}      (cp_is_compact() ? (void)((((struct cp__c_node *)(head))->key)++) : (void)(head->key++));
// CHECK-NOT: #line
// CHECK: {{^}}  return 0;
// WARN: poll-body-versioning.c:99:43: warning: left operand of comma operator has no effect
// WARN-NOT: warning:
// The switch happens in the second loop (allocations 10001 to 20000).
// ERR: compactptr: switch to wide mode (high-water mark) after 1{{[0-9][0-9][0-9][0-9]}} allocations:
// ERR-SAME: verified
// OUT: 199990000 133323400 -418472 4 -995
