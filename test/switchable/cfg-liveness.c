// The roots saved around a call that may switch are the variables live
// after it on the function's CFG (clang's LiveVariables), inside the
// source's approximation (named after the call, or in a loop around it):
// a cursor whose every later use follows an assignment is neither saved
// nor read back; a variable read later is.  A function that calls setjmp
// saves every variable in scope and keeps its slots after reading back (a
// longjmp resumes where the CFG has no edge: switchable/setjmp-roots.c).
// The runs switch in the middle of the first builder's loop (256K) and of
// the second's (512K) and check the sums (VERIFY too).
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Werror -fplugin-arg-compactptr-dump=- %s 2>&1 | FileCheck %s
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_STATS=1 %t 20000 2> %t.err | FileCheck --check-prefix=OUT %s
// RUN: grep -q 'switch to wide mode' %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=512K COMPACTPTR_STATS=1 %t 20000 2> %t.err | FileCheck --check-prefix=OUT %s
// RUN: grep -q 'switch to wide mode' %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 %t 20000 2>&1 | FileCheck --check-prefix=OUT %s
// RUN: %t 20000 | FileCheck --check-prefix=OUT %s
#include <compactptr.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  long key;
  struct node *next;
};

static struct node *mk(long k) {
  struct node *n = malloc(sizeof *n);
  if (!n)
    exit(2);
  n->key = k;
  return n;
}

static long cursor(int n) {
  struct node *head = mk(0), *p = head;
  long s = 0;
  while (p) {
    s += p->key;
    p = p->next;
  }
  for (int i = 1; i < n; i++) {
    struct node *m = mk(i);
    m->next = head->next;
    head->next = m;
  }
  for (p = head; p; p = p->next)
    s += p->key;
  return s;
}
// CHECK-LABEL: static long cursor(int n) {
// CHECK: "head"}, {{.*}} "p"}};
// p is read again only after `p = head`: only head is saved around mk(i).
// CHECK: struct node *m = __extension__({  __auto_type cp__r{{[0-9]+}} = (cp__slotframe.s[0] = head, mk(i)); head = cp__slotframe.s[0]; cp__slotframe.s[0] = 0;  cp__r{{[0-9]+}}; });

static jmp_buf env;

static long cursor_setjmp(int n) {
  struct node *head = mk(0), *p = head;
  long s = 0;
  if (setjmp(env))
    return -1;
  while (p) {
    s += p->key;
    p = p->next;
  }
  for (int i = 1; i < n; i++) {
    struct node *m = mk(i);
    m->next = head->next;
    head->next = m;
  }
  for (p = head; p; p = p->next)
    s += p->key;
  return s;
}
// CHECK-LABEL: static long cursor_setjmp(int n) {
// CHECK: struct node *m = __extension__({  __auto_type cp__r{{[0-9]+}} = (cp__slotframe.s[0] = head, cp__slotframe.s[1] = p, mk(i)); head = cp__slotframe.s[0]; p = cp__slotframe.s[1];  cp__r{{[0-9]+}}; });

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  long a = cursor(n), b = cursor_setjmp(n);
  printf("%ld %ld %d\n", a, b, a == (long)n * (n - 1) / 2 && a == b);
  return 0;
}
// OUT: 199990000 199990000 1
