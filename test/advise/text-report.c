// The text report: a summary line, a table ranked clean first, then blocked,
// then the rest, each group by bytes saved per object x allocation sites;
// then one paragraph per struct.
// RUN: compactptr-advise %s -- %cflags | FileCheck %s --match-full-lines --strict-whitespace
#include <stdlib.h>

// Self-referential, two allocation sites: 8 bytes saved x 2 = 16.
struct node {
  int key;
  struct node *next;
};

// Self-referential, one site: 40 -> 24 bytes (two handles, fields ordered
// by alignment), 16 x 1 = 16; ties are broken by bytes saved.
struct tree {
  char tag;
  struct tree *left, *right;
  long v;
  char c;
};

// Heap-allocated, but no struct points to it: not a candidate.
struct flat {
  int a, b;
};

// Never allocated: not a candidate, even though it is self-referential.
struct local_list {
  struct local_list *next;
};

struct node *n1(void) { return malloc(sizeof(struct node)); }
struct node *n2(int n) { return calloc(n, sizeof(struct node)); }
struct tree *t1(void) { return malloc(sizeof(struct tree)); }
struct flat *f1(void) { return malloc(sizeof(struct flat)); }

// CHECK:compactptr-advise: 4 structs, 2 candidates (2 clean, 0 blocked, 0 no gain), 0 already annotated
// CHECK-EMPTY:
// CHECK-NEXT:rank  verdict          wide compact saved sites  score  struct
// CHECK-NEXT:   1  clean              40      24    16     1     16  struct tree
// CHECK-NEXT:   2  clean              16       8     8     2     16  struct node
// CHECK-NEXT:   3  not a candidate     8       8     0     1      0  struct flat
// CHECK-NEXT:   4  not a candidate     8       8     0     0      0  struct local_list
// CHECK-EMPTY:
// CHECK-NEXT:struct tree: clean
// CHECK-NEXT:  defined at {{.*}}text-report.c:15
// CHECK-NEXT:  heap-allocated and self-referential
// CHECK-NEXT:  size: 40 bytes wide, 24 bytes compact, 16 saved per object
// CHECK-NEXT:  allocation sites (1):
// CHECK-NEXT:    {{.*}}text-report.c:34
// CHECK-NEXT:  blockers: none
// CHECK-EMPTY:
// CHECK-NEXT:struct node: clean
// CHECK-NEXT:  defined at {{.*}}text-report.c:8
// CHECK-NEXT:  heap-allocated and self-referential
// CHECK-NEXT:  size: 16 bytes wide, 8 bytes compact, 8 saved per object
// CHECK-NEXT:  allocation sites (2):
// CHECK-NEXT:    {{.*}}text-report.c:32
// CHECK-NEXT:    {{.*}}text-report.c:33
// CHECK-NEXT:  blockers: none
// CHECK-EMPTY:
// CHECK-NEXT:struct flat: not a candidate
// CHECK-NEXT:  defined at {{.*}}text-report.c:23
// CHECK-NEXT:  heap-allocated, but neither self-referential nor pointed to from another heap struct
// CHECK-NEXT:  size: 8 bytes (stays wide)
// CHECK-NEXT:  allocation sites (1):
// CHECK-NEXT:    {{.*}}text-report.c:35
// CHECK-EMPTY:
// CHECK-NEXT:struct local_list: not a candidate
// CHECK-NEXT:  defined at {{.*}}text-report.c:28
// CHECK-NEXT:  never allocated with malloc, calloc or realloc
// CHECK-NEXT:  size: 8 bytes (stays wide)

// --candidates leaves out the structs that are neither candidates nor
// annotated; the summary counts the structs shown.
// RUN: compactptr-advise --candidates %s -- %cflags | FileCheck %s --check-prefix=CAND
// CAND: compactptr-advise: 2 structs, 2 candidates (2 clean, 0 blocked, 0 no gain), 0 already annotated
// CAND-NOT: not a candidate
