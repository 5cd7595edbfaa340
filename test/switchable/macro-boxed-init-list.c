// A boxed local declared by a macro whose initializer list is part of the
// macro (`#define DECL(n, k) List n = { 0, k }`): the list has no text of
// its own in the file and is printed anew, as a list.  Before, it was
// printed in parentheses like an expression (`(List)({0, k})`), which did
// not compile, in switchable and compact-only mode; with a call in the
// list (`{ mk(k), k }`), in compact-only mode.
// REQUIRES: plugin
// RUN: %clang %cflags -O1 %s -o %t.native
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co
// RUN: %t.native > %t.expect
// RUN: %t.co | diff %t.expect -
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: FileCheck %s < %t.err
// CHECK: compactptr: switch to wide mode
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  int key;
  struct node *next;
};
typedef struct list {
  struct node *head;
  long n;
} List;

static int made;

static struct node *mk(int k) {
  struct node *n = malloc(sizeof *n);
  n->key = k;
  n->next = NULL;
  made++;
  return n;
}

static void push(List *l, int k) {
  struct node *n = mk(k);
  n->next = l->head;
  l->head = n;
  l->n++;
}

static long drain(List *l) {
  long s = l->n;
  for (struct node *p = l->head; p; p = p->next)
    s += p->key;
  return s;
}

#define DECL(n, k) List n = {mk(k), k}
#define DECL_EMPTY(n, k) List n = {0, k}

static long round_of(int i) {
  DECL(d, i);
  push(&d, 3);
  DECL_EMPTY(e, i);
  push(&e, 4);
  return drain(&d) * 3 + drain(&e);
}

int main(void) {
  long s = 0;
  for (int i = 0; i < 20000; i++)
    s += round_of(i);
  printf("%ld %d\n", s, made);
  return 0;
}
