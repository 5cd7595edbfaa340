// clang's own warnings come from the parse of the user's text, so in every
// mode they are exactly the native build's: same lines, columns, snippets,
// notes, fix-its and option names, also where the compiled text is a
// handle store (`if (p->next = q)`), in a rewritten header and in a macro;
// none is about generated text.  -Werror turns them into errors, and
// #pragma diagnostic and -w apply as usual.
// REQUIRES: plugin
// RUN: %clang %cflags -fsyntax-only -Wall -Wextra -fdiagnostics-parseable-fixits %s 2> %t.native
// RUN: FileCheck --input-file=%t.native %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Wall -Wextra -fdiagnostics-parseable-fixits %s 2>&1 | diff %t.native -
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=switchable -fsyntax-only -Wall -Wextra -fdiagnostics-parseable-fixits %s 2>&1 | diff %t.native -
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=wide -fsyntax-only -Wall -Wextra -fdiagnostics-parseable-fixits %s 2>&1 | diff %t.native -
// RUN: not %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -c -Werror=parentheses %s -o %t.o 2>&1 | FileCheck --check-prefix=WERROR %s
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -w %s 2>&1 | count 0
#include "Inputs/clang-warnings.h"
#include <stdlib.h>

#define NEXT(p) ((p)->next)

int f(struct node *p, struct node *q) {
  int n = 0;
  if (p->next = q) n++;
  if (p->key < p->u) n++;
  if (NEXT(p) = q) n++;
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wparentheses"
  if (p->next = q) n++;
#pragma clang diagnostic pop
  while (p) { n += p->key; p = p->next; }
  return n + first_key(q);
}

int main(void) {
  struct node *a = malloc(sizeof *a);
  a->next = 0;
  for (int i = 0; i < 3; i++)
    if (a->key = i)
      a->u++;
  return f(a, a);
}
// CHECK: clang-warnings.h:4:44: warning: unused variable 'unused_in_header' [-Wunused-variable]
// CHECK: clang-warnings.c:22:15: warning: using the result of an assignment as a condition without parentheses [-Wparentheses]
// CHECK: clang-warnings.c:24:15: warning: using the result of an assignment
// CHECK: clang-warnings.c:23:14: warning: comparison of integers of different signs
// CHECK: clang-warnings.c:37:16: warning: using the result of an assignment
// CHECK-NOT: clang-warnings.c:27
// WERROR: clang-warnings.c:22:15: error: using the result of an assignment as a condition without parentheses [-Werror,-Wparentheses]
