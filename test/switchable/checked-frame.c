// A function that reaches a safepoint gets the checked form: each full
// expression that depends on a layout picks it by mode, and compact-pointer
// parameters, locals (zeroed when uninitialised) and by-value locals of
// compact struct type are registered as roots in shadow-stack frames.
// A store whose right-hand side may reach a safepoint evaluates it first.
// A run of statements between safepoints is versioned by mode as a whole.
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
// Frames are declarations (C89 allows no statement before a declaration):
// the initializer of cp__inN fills the descriptors and pushes the frame.
// CHECK: {{^}}static struct node *grow(struct node *head, int k) { cp_root_desc_t cp__rt1[1]; cp_frame_t cp__fr1 __attribute__((cleanup(cp_frame_pop))); int cp__in1 __attribute__((unused)) = (cp__root(&cp__rt1[0], (void *)&head, CP_ROOT_POINTER, 1, &cp__desc_node, "head"), cp__frame(&cp__fr1, 1, cp__rt1));
// CHECK-NEXT: {{^}}  struct node *n = cp_alloc(&cp__desc_node), *spare = 0; cp_root_desc_t cp__rt2[2]; cp_frame_t cp__fr2 __attribute__((cleanup(cp_frame_pop))); int cp__in2 __attribute__((unused)) = (cp__root(&cp__rt2[0], (void *)&n, CP_ROOT_POINTER, 1, &cp__desc_node, "n"), cp__root(&cp__rt2[1], (void *)&spare, CP_ROOT_POINTER, 1, &cp__desc_node, "spare"), cp__frame(&cp__fr2, 2, cp__rt2));
// CHECK-NEXT: {{^}}  struct node copy = {0}; cp_root_desc_t cp__rt3[1]; {{.*}}(cp__root(&cp__rt3[0], (void *)&copy, CP_ROOT_VALUE, 1, &cp__desc_node, "copy"), cp__frame(&cp__fr3, 1, cp__rt3));
// CHECK-NEXT: {{^}}  cp_safepoint();
// The statements after the last safepoint keep one mode: versioned as a run.
// CHECK-NEXT: {{^}}  { if (cp_is_compact()) { {{.*}} (((struct cp__c_node *)(n))->key) = k;
// CHECK-NEXT: {{^}}  cp__sth(&(((struct cp__c_node *)(n))->next), head);
// CHECK-NEXT: {{^}}  spare = n;
// CHECK-NEXT: {{^}}  copy = cp__load_node((&(*(struct cp__c_node *)(spare))));
// CHECK-NEXT: {{^}}  return copy.next == head ? n : NULL; _Pragma("clang diagnostic pop") } else {{[{]$}}
// CHECK-NEXT: {{^}}#line 21 "{{.*}}checked-frame.c"
// CHECK-NEXT: {{^}}  n->key = k;
// CHECK-NEXT: {{^}}  n->next = head;
// CHECK-NEXT: {{^}}  spare = n;
// CHECK-NEXT: {{^}}  copy = *spare;
// CHECK-NEXT: {{^}}  return copy.next == head ? n : NULL; } }{{$}}
// A single statement between safepoints keeps the per-expression test.
// CHECK: {{^}}static void link(struct node *p, int k) { cp_root_desc_t
// CHECK-NEXT: {{^}}  __extension__ ({ struct node * cp__t2 = ((cp_is_compact() ? (grow(((struct node *)cp_decode((((struct cp__c_node *)(p))->next))), k)) : (grow(p->next, k)))); if (cp_is_compact()) cp__sth(&(((struct cp__c_node *)(p))->next), cp__t2); else p->next = cp__t2; });
// main's last loop cannot allocate: one poll in front of it, then the loop
// keeps one mode and is versioned whole (no frame for its variable).
// CHECK: {{^}}  { cp_safepoint(); if (cp_is_compact()) { {{.*}} for (struct node *p = ((struct node *)cp_decode((((struct cp__c_node *)(head))->next))); p; {{.*}})
// CHECK-NEXT: {{^}}    s += (((struct cp__c_node *)(p))->key); _Pragma("clang diagnostic pop") } else {{[{]$}}
// CHECK-NEXT: {{^}}#line 40 "{{.*}}checked-frame.c"
// CHECK-NEXT: {{^}}  for (struct node *p = head->next; p; p = p->next)
// CHECK-NEXT: {{^}}    s += p->key; } }{{$}}
// OUT: compactptr: switch to wide mode
// OUT: sum 799980000
