// A macro that expands to several statements, unwrapped (nginx's queue
// macros): no statement is a whole expansion of it, so compact-only code
// prints the smallest block around it from the AST.  Such a block holding
// a loop whose body holds another use copied the loop's text, and the
// use inside it was left unrewritten: native field offsets in compact
// objects, a wrong sum with exit 0.  The loop is printed from the AST
// too now.  Switchable mode refuses the macro (its checked form prints no
// such block), saying to wrap it in `do { ... } while (0)`, and advise
// reports the same lines as blockers.
// REQUIRES: plugin
// RUN: %clang %cflags -O1 %s -o %t.native
// RUN: %t.native > %t.expect
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co
// RUN: %t.co | diff %t.expect -
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -fplugin-arg-compactptr-mode=compact-only -fplugin-arg-compactptr-dump=- %s 2>&1 | FileCheck %s
// RUN: not %clang %cflags -fplugin=%plugin -fsyntax-only %s 2>&1 | FileCheck --check-prefix=SW %s
// RUN: not compactptr-advise %s -- %cflags | FileCheck --check-prefix=ADVISE %s
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  struct node *next;
  int a, b, c, d;
};

#define SET_AB(p, x, y) (p)->a = x; (p)->b = y

int main(void) {
  struct node *head = malloc(sizeof *head);
  SET_AB(head, 0, 0);
  // ADVISE: multi-statement-macro.c:[[@LINE-1]]: a member access of 'struct node' is in a macro that expands to several statements here, unwrapped; the plugin refuses it in switchable code (wrap the macro's body in `do { ... } while (0)`) [macro-body, plugin: error]
  // SW: multi-statement-macro.c:[[@LINE-2]]:3: error: cannot rewrite this use of a compact type: it is produced by macro 'SET_AB', and no expression or statement of the function is a whole expansion of it: a macro that expands to several statements (`#define SET(p, x, y) (p)->a = x; (p)->b = y`) needs its body wrapped in `do { ... } while (0)`
  head->next = NULL;
  head->c = head->d = 0;
  for (int i = 0; i < 10; i++) {
    struct node *n = malloc(sizeof *n);
    n->c = 7;
    n->d = 9;
    SET_AB(n, i, 100 + i);
    // ADVISE: multi-statement-macro.c:[[@LINE-1]]: a member access of 'struct node' is in a macro that expands to several statements here
    n->next = head->next;
    head->next = n;
  }
  // CHECK-NOT: SET_AB(n, i, 100 + i);
  // CHECK: ((((struct cp__c_node *)(((n))))->a) = i); {{.*}}((((struct cp__c_node *)(((n))))->b) = 100 + i);
  long sum = 0;
  for (struct node *p = head->next; p; p = p->next)
    sum = sum * 3 + p->a * 1000 + p->b + p->c * 10 + p->d;
  printf("sum=%ld\n", sum);
  return 0;
}
