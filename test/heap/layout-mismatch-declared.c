// A compact struct's pointer field whose pointee one file sees only
// declared (`struct node;`) while another marks it CP_COMPACT: the two
// files lay the struct out differently, and the program stops at start-up
// saying which field and why (it named neither).
// RUN: rm -rf %t && split-file %s %t
// RUN: %clang %cflags -fplugin=%plugin -c %t/a.c -o %t/a.o
// RUN: %clang %cflags -fplugin=%plugin -c %t/m.c -o %t/m.o
// RUN: %clang %t/a.o %t/m.o %runtime -o %t/prog
// RUN: not %t/prog 2>&1 | FileCheck %s
// CHECK: compactptr: type 'hent' has two different layouts in this program: {{.*}}; every translation unit must see the same definition (field 'val' is a compact pointer to 'node' in one and a plain pointer in the other: a translation unit that sees 'node' only declared, not defined, does not know it is compact; include its definition there)

//--- h.h
#include <compactptr.h>
struct node;
struct CP_COMPACT hent { struct hent *next; struct node *val; int k; };
struct hent *add(struct hent *h, struct node *v, int k);

//--- a.c
#include <stdlib.h>
#include "h.h"
struct hent *add(struct hent *h, struct node *v, int k) {
  struct hent *e = malloc(sizeof *e);
  e->next = h;
  e->val = v;
  e->k = k;
  return e;
}

//--- m.c
#include <stdio.h>
#include <stdlib.h>
#include "h.h"
struct CP_COMPACT node { int v; };
int main(void) {
  struct node *n = malloc(sizeof *n);
  n->v = 3;
  struct hent *h = add(NULL, n, 1);
  printf("%d %d\n", h->k, h->val->v);
  return 0;
}
