// A store into a handle field skips the encode's range check where the
// value comes from the arena by construction (cp__sth_known): null, a
// compact allocation, a handle just decoded, a local or a parameter (of a
// function only this file calls) whose every value is one of those, a
// call of a function whose every result is.  Anything else keeps the check
// (cp__sth), and a foreign pointer stored there still stops the program.
// RUN: %rewrite --main-only %s -- %cflags > %t.c
// RUN: FileCheck %s < %t.c
// RUN: %clang %cflags -Wall -Werror %t.c %runtime -o %t
// RUN: %t | FileCheck --check-prefix=OUT %s
// RUN: not %t foreign 2>&1 | FileCheck --check-prefix=FOREIGN %s
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  long key;
  struct node *next;
  struct node *kids[2];
};

static struct node *make(long k) {
  struct node *n = malloc(sizeof *n);
  if (!n)
    return NULL;
  n->key = k;
  return n;
}

// Every caller passes make()'s result.
static void link_after(struct node *at, struct node *n) {
  n->next = at->next;
  at->next = n;
}
// CHECK-LABEL: {{^}}static void link_after(
// CHECK-NEXT: {{^}}  cp__sth_known(&{{.*}}->next), {{.*}}cp_decode
// CHECK-NEXT: {{^}}  cp__sth_known(&{{.*}}->next), n);

// Another file may call it with anything.
struct node *attach(struct node *at, struct node *n) {
  at->kids[1] = n;
  return at;
}
// CHECK-LABEL: {{^}}struct node *attach(
// CHECK-NEXT: {{^}}  cp__sth(&{{.*}}->kids)[1]), n);

/* Memory the plugin cannot see the origin of (a call through a pointer). */
static void *(*volatile get)(size_t) = malloc;

int main(int argc, char **argv) {
  struct node *head = make(0), *p, *q = 0;
  long sum = 0;
  for (long i = 1; i <= 100; i++)
    link_after(head, make(i));
  head->kids[0] = head->next;
  head->kids[1] = 0;
  p = head->next;
  q = p->next ? p->next : q;
  if (q != NULL)
    head->kids[1] = q;
  p = p + 1;
  head->next->kids[0] = p - 1;
  attach(head, q);
  if (argc > 1)
    attach(head, get(64));
  for (p = head; p; p = p->next)
    sum += p->key;
  printf("%ld %ld %ld\n", sum, head->kids[0]->key, head->kids[1]->key);
  return 0;
}
// CHECK-LABEL: {{^}}int main(
// CHECK: {{^}}  cp__sth_known(&{{.*}}->kids)[0]), {{.*}}cp_decode
// CHECK-NEXT: {{^}}  cp__sth_known(&{{.*}}->kids)[1]), 0);
// q is null or a decoded handle (comparing it does not change that).
// CHECK: {{^}}    cp__sth_known(&{{.*}}->kids)[1]), q);
// p moved by arithmetic: checked.
// CHECK: {{^}}  cp__sth(&{{.*}}->kids)[0]), {{.*}}(p) - (1)
// OUT: 5050 100 99
// FOREIGN: pointer {{.*}} stored into a compact field is not in the compact arena
