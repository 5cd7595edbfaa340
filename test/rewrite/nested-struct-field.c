// Fields of by-value structs inside a compact struct: plain nested structs
// are copied verbatim, compact ones use their own compact layout.
// RUN: %rewrite --main-only %s -- %cflags > %t.c
// RUN: FileCheck --match-full-lines %s < %t.c
// RUN: %clang %cflags -Wall -Werror %t.c %runtime -o %t && %t | FileCheck --check-prefix=OUT %s
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct node;
struct point { int x, y; };
struct link { struct node *to; int w; };
struct CP_COMPACT node { struct point pos; struct link out; struct link extra[2]; };

int main(void) {
  struct node *a = malloc(sizeof *a), *b = malloc(sizeof *b);
  a->pos.x = 3;
  // CHECK: (((struct cp__c_node *)(a))->pos).x = 3;
  a->out.to = b;
  // CHECK: cp__sth_known(&((((struct cp__c_node *)(a))->out).to), b);
  a->extra[1].w = 5;
  b->pos.y = 4;
  struct link l = a->out;
  // CHECK: struct link l = cp__load_link((&(((struct cp__c_node *)(a))->out)));
  printf("%d %d %d %d\n", a->pos.x, a->out.to->pos.y, a->extra[1].w, l.to == b);
  // OUT: 3 4 5 1
  free(a); free(b);
  return 0;
}
