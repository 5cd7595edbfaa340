// NULL tests and comparisons between handle fields compare the handles
// themselves, without decoding.
// RUN: %rewrite %s -- %cflags | FileCheck --match-full-lines %s
#include <compactptr.h>
#include <stddef.h>

struct CP_COMPACT node { struct node *next, *prev; };

int f(struct node *p, struct node *q) {
  int n = 0;
  if (p->next) n++;
  // CHECK: if (((((struct cp__c_node *)(p))->next) != 0)) n++;
  if (!p->prev) n++;
  // CHECK: if ((!((((struct cp__c_node *)(p))->prev) != 0))) n++;
  if (p->next == NULL) n++;
  // CHECK: if ((((struct cp__c_node *)(p))->next) == 0) n++;
  if (p->next != q->prev) n++;
  // CHECK: if ((((struct cp__c_node *)(p))->next) != (((struct cp__c_node *)(q))->prev)) n++;
  while (p->next && q->next) break;
  // CHECK: while ((((((struct cp__c_node *)(p))->next) != 0) && ((((struct cp__c_node *)(q))->next) != 0))) break;
  return n + (p->next ? 1 : 0);
  // CHECK: return n + ((((((struct cp__c_node *)(p))->next) != 0) ? 1 : 0));
}
// Comparing with a native pointer decodes (the other side is an address).
int g(struct node *p, struct node *q) { return p->next == q; }
// CHECK: int g(struct node *p, struct node *q) { return ((struct node *)cp_decode((((struct cp__c_node *)(p))->next))) == q; }
