// A struct already marked CP_COMPACT is reported as "annotated", after the
// candidates, with its sizes and any blockers; --annotate leaves it alone.
// RUN: compactptr-advise %s -- %cflags | FileCheck %s
// RUN: compactptr-advise --annotate %s -- %cflags 2>&1 | FileCheck %s --check-prefix=DIFF
#include <compactptr.h>
#include <stdlib.h>

struct CP_COMPACT node {
  int key;
  struct node *next;
};

struct item {
  struct item *next;
  int v;
};

struct node *a(void) { return malloc(sizeof(struct node)); }
struct item *b(void) { return malloc(sizeof(struct item)); }

// CHECK: compactptr-advise: 2 structs, 1 candidate (1 clean, 0 blocked, 0 no gain), 1 already annotated
// CHECK:    1  clean              16       8     8     1      8  struct item
// CHECK-NEXT:    2  annotated          16       8     8     1      8  struct node
// CHECK: struct node: annotated
// CHECK: blockers: none
// DIFF-NOT: CP_COMPACT node
// DIFF: +struct CP_COMPACT item {
