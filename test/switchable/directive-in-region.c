// Code the planner would version by mode (a run of statements, a loop
// body) but that holds a preprocessor directive (`#ifdef` ... `#endif`
// around a statement) keeps the per-expression checked form: copied into
// both versions, the directive would be duplicated or cut in two by the
// region's end ("unterminated conditional directive").  A loop body
// without braces whose `;` follows directives gets its poll around the
// whole statement; an expression that holds a whole conditional group
// is printed once per layout with the group in each (one that a group
// ends outside of is refused: diagnostics/directive-in-expression.c).
// Built with and
// without the macro the directive tests; the switch happens mid-run and
// the output matches the native build.
// REQUIRES: plugin
// RUN: %clang %cflags -O1 %s -o %t.native && %t.native > %t.native.out
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_STATS=1 COMPACTPTR_VERIFY=1 %t > %t.out 2> %t.err
// RUN: diff %t.native.out %t.out && FileCheck %s < %t.err
// RUN: %clang %cflags -O1 -DNO_EXTRA %s -o %t.native2 && %t.native2 > %t.native2.out
// RUN: %clang %cflags -O1 -Werror -DNO_EXTRA -fplugin=%plugin %s %runtime -o %t2
// RUN: env COMPACTPTR_ARENA_LIMIT=256K %t2 > %t2.out && diff %t.native2.out %t2.out
// CHECK: compactptr: switch to wide mode
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node { long key; struct node *next; };

int main(void) {
  struct node *head = NULL;
  long h = 0;
  for (int i = 0; i < 30000; i++) {
    struct node *n = malloc(sizeof *n);
    n->key = i;
    n->next = head;
    head = n;
#ifndef NO_EXTRA
    h += head->key % 7;
#endif
  }
  for (struct node *p = head; p; p = p->next) {
#ifdef NO_EXTRA
    h -= p->key;
#else
    h += p->next ? p->next->key & 1 : 0;
#endif
  }
  // Bodies without braces whose `;` comes after a comment or after
  // directives: the poll in front of the loop needs the statement's end,
  // found past them and past the text the preprocessor skipped.
  for (struct node *p = head; p; p = p->next)
    h += p->key // the ';' is on the next line
        ;
  // A whole conditional group inside an expression survives its copy
  // per layout.
  for (struct node *p = head; p; p = p->next)
    h += (p->key
#ifndef NO_EXTRA
          * 3
#endif
         );
  struct node *q = head;
  while (q && q->key > 10)
    q = q->next
#ifdef NO_EXTRA
        /* the same step with NO_EXTRA */
#else
        /* and without */
#endif
        ;
  printf("%ld %ld %ld\n", head->key, h, q->key);
  return 0;
}
