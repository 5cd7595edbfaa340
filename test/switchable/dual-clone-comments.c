// The compact clone of a dual function carries no comments (the wide body
// has the user's, so a -verify directive is read once:
// diagnostics/layout-bytes.c).  A comment over
// several lines leaves its line ends spliced: the clone's lines stay the
// user's, and a directive the comment sat in stays one (a `#define` whose
// value went on past a comment was cut in two, and the clone did not
// compile).  Comment-like text in strings and character literals stays.
// RUN: %rewrite -mode=switchable %s -- %cflags | FileCheck %s
// RUN: %clang %cflags -O1 %s -o %t.native && %t.native > %t.expected
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %t | diff %t.expected -
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  int key;
  struct node *next;
};

static struct node *push(struct node *l, int k) {
  struct node *n = malloc(sizeof *n);
  n->key = k;
  n->next = l;
  return n;
}

long sum(struct node *l) {
  long s = 0; // a running sum
#define WEIGHT 2 /* the weight of
                    each key */ + 3
  for (; l; l = l->next)
    s += l->key * WEIGHT;
#undef WEIGHT
  printf("%s %c\n", "/* not a comment */ // nor this", '/');
  return s;
}

int main(void) {
  struct node *l = NULL;
  for (int i = 0; i < 10; i++)
    l = push(l, i);
  printf("%ld\n", sum(l));
  return 0;
}
// CHECK: {{^}}__attribute__((unused)) static long sum__cp(struct node *l) {
// CHECK-NEXT: {{^}}  long s = 0;{{ *$}}
// CHECK-NEXT: {{^}}#define WEIGHT 2  \{{$}}
// CHECK-NEXT: {{^}} + 3
// CHECK: printf("%s %c\n", "/* not a comment */ // nor this", '/');
