// A layout-dependent function that reaches no safepoint gets the dual form:
// the original symbol keeps the wide body behind an entry dispatch, the
// compact body `f__cp` goes to the end of the file, and compact bodies call
// the compact bodies of TU-local dual functions directly.  switchable is the
// default mode.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Werror -fplugin-arg-compactptr-dump=- %s 2>&1 | FileCheck %s
// RUN: %rewrite -mode=switchable %s -- %cflags | FileCheck %s
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t && %t | FileCheck --check-prefix=OUT %s
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node { int key; struct node *next; };

static int key_of(struct node *p) { return p->key; }
int sum(struct node *p) {
  int s = 0;
  for (; p; p = p->next) s += key_of(p);
  return s;
}
static void push(struct node **head, struct node *n) {
  n->next = *head; // the new head
  /* two
     lines */ *head = n;
}
/* An allocation site is a safepoint: checked, not dual. */
static struct node *mk(int k) {
  struct node *n = malloc(sizeof(struct node));
  n->key = k;
  return n;
}

int main(void) {
  struct node *h = NULL;
  push(&h, mk(1));
  push(&h, mk(2));
  printf("sum %d %s\n", sum(h), cp_is_compact() ? "compact" : "wide");
  return 0;
}
// The wide body keeps the original code behind the dispatch, on its lines;
// a body that opens with declarations becomes a block of its own (C89
// allows no statement before a declaration).  These functions are closed
// (nothing they call can reach a safepoint): their dispatch needs no depth
// count.
// CHECK: {{^}}static __attribute__((unused)) int (key_of__cp)(struct node *); static int key_of(struct node *p) { if (cp_is_compact()) return key_of__cp(p); return p->key; }
// CHECK-NEXT: {{^}}/* compactptr: compact body of key_of
// CHECK: {{^}}#line 16 "{{.*}}dual-dispatch.c"
// CHECK-NEXT: {{^}}__attribute__((unused)) static int key_of__cp(struct node *p) { return (((struct cp__c_node *)(p))->key); }
// CHECK: {{^}}CP__QUIET_END
// CHECK-NEXT: {{^}}#line 16 "{{.*}}dual-dispatch.c"
// CHECK-EMPTY:
// A function code outside may call (external linkage, or its address
// taken) comes inside rewritten code first (Entries.cpp): from outside it
// calls sum__outside, which comes inside and calls it again; its compact
// body, called from compact bodies only, does not test.
// CHECK-NEXT: {{^}}static __attribute__((noinline, cold, unused)) int sum__outside(struct node *); static __attribute__((unused)) int (sum__cp)(struct node *); int sum(struct node *p) { int cp__entered __attribute__((unused)) = __extension__({ if (cp__outside()) return sum__outside(p); 0; }); if (cp_is_compact()) return sum__cp(p); {{[{]$}}
// CHECK-NEXT: {{^}}  int s = 0;
// CHECK-NEXT: {{^}}  for (; p; p = p->next) s += key_of(p);
// CHECK: {{^}}#line 17 "{{.*}}dual-dispatch.c"
// CHECK-NEXT: {{^}}__attribute__((unused)) static int sum__cp(struct node *p) {
// CHECK-NEXT: {{^}}  int s = 0;
// CHECK-NEXT: {{^}}  for (; p; p = ((struct node *)cp_decode((((struct cp__c_node *)(p))->next)))) s += key_of__cp(p);
// CHECK: {{^}}static __attribute__((unused)) void (push__cp)(struct node **, struct node *); static void push(struct node **head, struct node *n) { if (cp_is_compact()) { push__cp(head, n); return; }
// CHECK-NEXT: {{^}}  n->next = *head; // the new head
// CHECK-NEXT: {{^}}  /* two
// CHECK-NEXT: {{^}}     lines */ *head = n;
// The user's comments are in the wide body only, so a -verify directive is
// read once; the clone keeps their lines (a comment's line ends spliced).
// CHECK: {{^}}__attribute__((unused)) static void push__cp(struct node **head, struct node *n) {
// CHECK-NEXT: {{^}}  cp__sth(&{{.*}}, *head);{{ *$}}
// CHECK-NEXT: {{^ +\\$}}
// CHECK-NEXT: {{^}} *head = n;
// An allocation site is a safepoint: mk is checked.
// CHECK: {{^}}__inline__ static struct node *mk(int k) {{[{]$}}
// CHECK-NEXT: {{^}}  struct node *n = cp_alloc_safepoint(&cp__desc_node);
// CHECK: {{^}}static cp_type_desc_t cp__desc_node = {{.*}}CP_BUILD_SWITCHABLE
// OUT: sum 3 compact
