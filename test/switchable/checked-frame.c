// A function that reaches a safepoint gets the checked form: each full
// expression that depends on a layout picks it by mode, compact-pointer
// parameters and locals (zeroed when uninitialised) are roots in frame
// slots, and by-value locals of compact struct type are registered as roots
// in shadow-stack frames.  A store whose right-hand side may reach a
// safepoint evaluates it first.  A run of statements between safepoints is
// versioned by mode as a whole.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Werror -fplugin-arg-compactptr-dump=- %s 2>&1 | FileCheck %s
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_STATS=1 COMPACTPTR_VERIFY=1 %t 2>&1 | FileCheck --check-prefix=OUT %s
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node { int key; struct node *next; };

static struct node *grow(struct node *head, int k) {
  struct node *n = malloc(sizeof(struct node)), *spare;
  struct node copy;
  cp_safepoint();
  n->key = k;
  n->next = head;
  spare = n;
  copy = *spare;
  return copy.next == head ? n : NULL;
}

static void link(struct node *p, int k) {
  p->next = grow(p->next, k);
}

int main(void) {
  struct node *head = malloc(sizeof(struct node));
  long s = 0;
  int i;
  head->key = -1;
  head->next = NULL;
  for (i = 0; i < 40000; i++)
    link(head, i);
  for (struct node *p = head->next; p; p = p->next)
    s += p->key;
  printf("sum %ld\n", s);
  return 0;
}
// Scalar compact-pointer parameters and locals are ordinary variables,
// saved before a call that may reach a safepoint and read back after it,
// where they may be used later.  grow saves them only on the slow paths of
// its allocation and poll, into slots the out-of-line slow path
// (cp__saved_slow) registers with their constant types and names; by-value
// locals are registered by address.
// CHECK: {{^}}__inline__ static struct node *grow(struct node *head, int k) {{[{]$}}
// CHECK-NEXT: {{^}}  struct node *n = __extension__({ void *[[A:cp__a[0-9]+]] = cp__alloc_fast(&cp__desc_node); if (__builtin_expect(![[A]], 0)) { void *cp__ls[1]; static cp_type_desc_t *const cp__lt[1] = {&cp__desc_node}; static const char *const cp__ln[1] = {"head"}; (void)(cp__ls[0] = head); [[A]] = cp__saved_slow(0, &cp__desc_node, 0, cp__ls, 1, cp__lt, cp__ln); head = cp__ls[0]; } [[A]]; }), *spare = 0;
// CHECK-NEXT: {{^}}  struct node copy = {0}; cp_root_desc_t cp__rt{{[0-9]+}}[1]; {{.*}}cp__root(&cp__rt{{[0-9]+}}[0], (void *)&copy, CP_ROOT_VALUE, 1, &cp__desc_node, "copy"), cp__frame({{.*}}));
// spare is assigned before its first use: not saved at the poll.
// CHECK-NEXT: {{^}}  (void)(__extension__({ if (cp__safepoint_due()) { void *cp__ls[2]; {{.*}} (void)(cp__ls[0] = head, cp__ls[1] = n); (void)cp__saved_slow(2, 0, 0, cp__ls, 2, cp__lt, cp__ln); head = cp__ls[0]; n = cp__ls[1]; } }));
// The statements after the last safepoint keep one mode: versioned as a run
// (the return reads a wide value: the same text in both modes, so it
// follows the run).
// CHECK-NEXT: {{^}}  { if (cp_is_compact()) { {{.*}} (((struct cp__c_node *)(n))->key) = k;
// CHECK-NEXT: {{^}}  cp__sth_known(&(((struct cp__c_node *)(n))->next), head);
// CHECK-NEXT: {{^}}  spare = n;
// CHECK-NEXT: {{^}}  copy = cp__load_node((&(*(struct cp__c_node *)(spare)))); CP__QUIET_END } else {{[{]$}}
// CHECK-NEXT: {{^}}#line 22 "{{.*}}checked-frame.c"
// CHECK-NEXT: {{^}}  n->key = k;
// CHECK-NEXT: {{^}}  n->next = head;
// CHECK-NEXT: {{^}}  spare = n;
// CHECK-NEXT: {{^}}  copy = *spare; } }{{$}}
// CHECK-NEXT: {{^}}  return copy.next == head ? n : NULL;{{$}}
// link saves p around its call to grow, on every path: a frame of slots at
// the top of its body.  The call goes first (its arguments picking their
// layout by mode), then the store.
// CHECK: {{^}}__inline__ static void link(struct node *p, int k) {struct cp__slotframe_s { cp_frame_t f; void *s[1]; } cp__slotframe __attribute__((cleanup(cp__frame_pop_slots))); static const cp_root_desc_t cp__slotroots[1] = {{[{][{]}}(void *)__builtin_offsetof(struct cp__slotframe_s, s[0]), CP_ROOT_POINTER, 1, &cp__desc_node, "p"}}; int cp__slotin __attribute__((unused)) = (cp__slotframe.s[0] = 0, cp__frame(&cp__slotframe.f, 1 | CP_FRAME_RELATIVE, cp__slotroots));
// CHECK-NEXT: {{^}}  __extension__({ struct node *[[H:cp__h[0-9]+]]; [[H]] = (cp_is_compact() ? (__extension__({ __auto_type [[R:cp__r[0-9]+]] = (cp__slotframe.s[0] = p, grow(((struct node *)cp_decode((((struct cp__c_node *)(p))->next))), k)); p = cp__slotframe.s[0]; cp__slotframe.s[0] = 0; [[R]]; })) : (__extension__({ __auto_type [[R]] = (cp__slotframe.s[0] = p, grow(p->next, k)); p = cp__slotframe.s[0]; cp__slotframe.s[0] = 0; [[R]]; }))); (cp_is_compact() ? (void)(cp__sth_known(&(((struct cp__c_node *)(p))->next), [[H]])) : (void)(p->next = [[H]])); });
// main's last loop cannot allocate: one poll in front of it (head saved on
// its slow path), then the loop keeps one mode and is versioned whole.
// CHECK: {{^}}  { if (cp__safepoint_due()) { (void)(cp__slotframe.s[0] = head); cp_safepoint_slow(); head = cp__slotframe.s[0]; cp__slotframe.s[0] = 0; } if (cp_is_compact()) { {{.*}} for (struct node *p = ((struct node *)cp_decode((((struct cp__c_node *)(head))->next))); p; {{.*}})
// CHECK-NEXT: {{^}}    s += (((struct cp__c_node *)(p))->key); CP__QUIET_END } else {{[{]$}}
// CHECK-NEXT: {{^}}#line 41 "{{.*}}checked-frame.c"
// CHECK-NEXT: {{^}}  for (struct node *p = head->next; p; p = p->next)
// CHECK-NEXT: {{^}}    s += p->key; } }{{$}}
// OUT: compactptr: switch to wide mode
// OUT: sum 799980000
