// Mode `wide`: no compression; member accesses are untouched, allocation
// goes through the runtime with descriptors marked CP_BUILD_WIDE.  A free
// goes through cp_free_any: an object of the program's own pool (accepted
// in wide mode, with the foreign-object warning) is a block of libc's, and
// freeing it stopped the program with exit 70 before.
// RUN: %rewrite --mode=wide --main-only %s -- %cflags > %t.c
// RUN: FileCheck --match-full-lines %s < %t.c
// RUN: %clang %cflags -Wall -Werror %t.c %runtime -o %t && %t | FileCheck --check-prefix=OUT %s
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node { int key; struct node *next; };

static void *xmalloc(size_t n) {
  void *p = malloc(n);
  if (!p)
    abort();
  return p;
}

int main(void) {
  struct node *p = malloc(sizeof(struct node));
  // CHECK: struct node *p = cp_alloc(&cp__desc_node);
  p->next = NULL;
  // CHECK: p->next = NULL;
  p->key = (int)sizeof(struct node);
  // CHECK: p->key = (int)sizeof(struct node);
  printf("%d\n", p->key);
  // OUT: 16
  free(p);
  // CHECK: cp_free_any(p);
  struct node *q = xmalloc(sizeof *q);
  q->key = 7;
  printf("%d\n", q->key);
  // OUT: 7
  free(q);
  // CHECK: cp_free_any(q);
  return 0;
}
// CHECK: static cp_type_desc_t cp__desc_node = {CP_ABI_VERSION, CP_GRANULE_SHIFT, CP_BUILD_WIDE, {{.*}}
