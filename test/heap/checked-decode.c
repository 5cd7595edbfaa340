// COMPACTPTR_DEBUG=1 checks every decode in code compiled with
// -DCOMPACTPTR_CHECKED_DECODE: a use after free stops with a message.
// Without the knob, or without the macro, the decode is not checked.
// REQUIRES: plugin
// RUN: %clang %cflags -O1 -DCOMPACTPTR_CHECKED_DECODE -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t
// RUN: env COMPACTPTR_DEBUG=1 not %t 2>&1 | FileCheck %s
// CHECK: compactptr: bad handle {{0x[0-9a-f]+}} (address {{0x[0-9a-f]+}}): the 'node' object there is free (use after free?)
// RUN: %t | FileCheck --check-prefix=NODEBUG %s
// NODEBUG: done
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  int key;
  struct node *next;
};

int main(void) {
  struct node *a = malloc(sizeof *a), *b = malloc(sizeof *b);
  a->key = 1;
  b->key = 2;
  a->next = b;
  struct node *c = malloc(sizeof *c); /* allocated first: no slot reuse */
  c->key = 3;
  free(b);
  volatile int sink = a->next != NULL; /* a NULL test: no decode */
  (void)sink;
  struct node *n = a->next; /* decodes a handle to a freed object */
  printf("done %p\n", (void *)n);
  free(c);
  free(a);
  return 0;
}
