// In a checked function, a call that may reach a safepoint (the switch can
// happen inside it) with something around it that would go stale -- a
// compact layout used after it, a compact pointer evaluated before it and
// used after it -- is evaluated first, into a temporary; the rest of the
// expression follows with the mode tested after the call.  C leaves the
// order of arguments and operands unspecified, so this is one of the orders
// the program already allows.  A temporary held across a later such call is
// a root.  A call in an operand that runs conditionally (an arm of ?:, the
// right of && or ||) goes first within that operand, or the conditional
// expression goes first as a whole.  An initializer list whose elements
// hold a compact pointer next to such a call is an error.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Werror -fplugin-arg-compactptr-dump=- %s 2>&1 | FileCheck %s
// RUN: not %clang %cflags -fplugin=%plugin -fsyntax-only -DBAD %s 2>&1 | FileCheck --check-prefix=BAD %s
// RUN: %clang %cflags -O1 %s -o %t.native && %t.native > %t.native.out
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_STATS=1 COMPACTPTR_VERIFY=1 %t > %t.out 2> %t.err
// RUN: diff %t.native.out %t.out && FileCheck --check-prefix=ERR %s < %t.err
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node { int key; struct node *next, *other; };

static struct node *mk(int k) {
  struct node *n = malloc(sizeof *n);
  n->key = k;
  n->next = n->other = NULL;
  return n;
}
static struct node *push(struct node *head, struct node *n) {
  n->next = head;
  return n;
}
static struct node *join(struct node *a, struct node *b) {
  a->other = b;
  return a;
}

static long step(struct node **list, int i) {
  struct node *head = *list;
  long total = 0;
  head->next = mk(i);                 // the store after the call
  total += mk(i + 1)->key;            // layout use of the call's result
  head = push(head, mk(i + 2));       // head is read after the call
  head = push(head, join(mk(i), mk(i + 3))); // two calls: the first result is a root
  total += head->key + (mk(i) != 0);  // layout use before the call: read first
  total += i % 2 ? mk(i)->key : 0;    // a conditional operand: first within it
#ifdef BAD
  struct node *pair[2] = {head, mk(i)}; // elements in no fixed order
  (void)pair;
#endif
  *list = head;
  return total;
}

int main(void) {
  struct node *list = mk(0);
  long t = 0;
  for (int i = 0; i < 5000; i++)
    t += step(&list, i);
  for (struct node *p = list; p; p = p->next)
    t += p->key + (p->other ? p->other->key : 0);
  printf("%ld\n", t);
  return 0;
}
// CHECK-LABEL: {{^}}__inline__ static long step(
// CHECK: {{^}}  { struct cp__slotframe_s { cp_frame_t f; void *s[1]; } {{.*}} cp__frame(&cp__slotframe.f, 1 | CP_FRAME_RELATIVE, cp__slotroots)); __extension__({ struct node *[[H1:cp__h[0-9]+]]; [[H1]] = __extension__({ {{.*}} mk(i)); {{.*}} }); (cp_is_compact() ? (void)(cp__sth_known(&(((struct cp__c_node *)(head))->next), [[H1]])) : (void)(head->next = [[H1]])); });
// CHECK-NEXT: {{^}}  __extension__({ struct node *[[H2:cp__h[0-9]+]]; [[H2]] = __extension__({ {{.*}} mk(i + 1)); {{.*}} }); (cp_is_compact() ? (void)(total += (((struct cp__c_node *)([[H2]]))->key)) : (void)(total += [[H2]]->key)); });
// CHECK-NEXT: {{^}}  __extension__({ struct node *[[H3:cp__h[0-9]+]]; [[H3]] = __extension__({ {{.*}} mk(i + 2)); {{.*}} }); (cp_is_compact() ? (void)(head = push__cp(head, [[H3]])) : (void)(head = push(head, [[H3]]))); });
// CHECK-NEXT: {{^}}  __extension__({ struct node *[[H4:cp__h[0-9]+]] = 0; struct node *[[H5:cp__h[0-9]+]]; cp_root_desc_t cp__rt{{[0-9]+}}[1]; {{.*}}cp__root(&cp__rt{{[0-9]+}}[0], (void *)&[[H4]], CP_ROOT_POINTER, 1, &cp__desc_node, "[[H4]]"), {{.*}} [[H4]] = __extension__({ {{.*}} mk(i)); {{.*}} }); [[H5]] = __extension__({ {{.*}} mk(i + 3)); {{.*}} }); (cp_is_compact() ? (void)(head = push__cp(head, join__cp([[H4]], [[H5]]))) : (void)(head = push(head, join([[H4]], [[H5]])))); });
// CHECK-NEXT: {{^}}  __extension__({ int [[K6:cp__h[0-9]+]]; struct node *[[H6:cp__h[0-9]+]]; [[K6]] = (cp_is_compact() ? ((((struct cp__c_node *)(head))->key)) : (head->key)); [[H6]] = __extension__({ {{.*}} mk(i)); {{.*}} }); (void)(total += [[K6]] + ([[H6]] != 0)); });
// CHECK-NEXT: {{^}}  (void)(total += (i % 2 ? __extension__({ struct node *[[H7:cp__h[0-9]+]]; [[H7]] = __extension__({ {{.*}} mk(i)); {{.*}} }); (cp_is_compact() ? ((((struct cp__c_node *)([[H7]]))->key)) : ([[H7]]->key)); }) : 0));
// BAD: safepoint-in-expression.c:[[@LINE-24]]:33: error: this initializer list holds a compact pointer across a call that may reach a safepoint
// ERR: compactptr: switch to wide mode{{.*}}verified
