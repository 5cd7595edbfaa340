// A size helper of the program's own that multiplies two of its
// parameters and returns the product, after an overflow check at most
// (git's st_mult, ALLOC_ARRAY and REALLOC_ARRAY through it), is read as
// the product itself: `malloc(st_mult(sizeof *p, n))` allocates n objects,
// for compact objects and root arrays alike, and realloc through it
// resizes.  The forms: `return a * b;`, the product kept in a local by
// __builtin_mul_overflow, a helper of a helper.  A helper whose product is
// not of two unchanged parameters (a rounded size, a parameter changed
// before the return) is no product, and the size stays refused
// (diagnostics/size-helper-refused.c).
// RUN: %rewrite --main-only %s -- %cflags > %t.c
// RUN: FileCheck --match-full-lines %s < %t.c
// RUN: %clang %cflags -Wall -Werror %t.c %runtime -o %t && %t | FileCheck --check-prefix=OUT %s
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT node { int v; struct node *next; };

static inline size_t st_mult(size_t a, size_t b) {
  if (b && a > (size_t)-1 / b) {
    fprintf(stderr, "size_t overflow: %zu * %zu\n", a, b);
    exit(128);
  }
  return a * b;
}
static size_t mul_checked(size_t n, size_t size) {
  size_t r;
  if (__builtin_mul_overflow(n, size, &r))
    abort();
  return r;
}
// A CP_ALLOCATOR wrapper that sizes through one: its count is read as
// through a product written out.
static CP_ALLOCATOR void *xmalloc_array(size_t n, size_t size) {
  void *p = malloc(st_mult(n, size));
  if (!p)
    abort();
  return p;
}
#define ALLOC_ARRAY(x, alloc) (x) = malloc(st_mult(sizeof(*(x)), (alloc)))
// git's COPY_ARRAY: an array bound that compares two sizes of one compact
// type is true in every layout, so it is no layout-dependent bound.
#define BUILD_ASSERT_OR_ZERO(cond) (sizeof(char[1 - 2 * !(cond)]) - 1)
#define COPY_ARRAY(dst, src, n)                                                \
  memcpy((dst), (src), st_mult(sizeof(*(dst)) + BUILD_ASSERT_OR_ZERO(           \
                                                   sizeof(*(dst)) == sizeof(*(src))), \
                               (n)))
#define REALLOC_ARRAY(x, alloc) (x) = realloc((x), st_mult(sizeof(*(x)), (alloc)))

int main(void) {
  struct node *a, **v = NULL;
  int n = 10, k = 0;
  ALLOC_ARRAY(a, n);
  // CHECK: ((a) = cp_alloc_array(&cp__desc_node, (unsigned long)(((n)))));
  for (int i = 0; i < n; i++)
    a[i].v = i;
  REALLOC_ARRAY(a, 2 * n);
  // CHECK: ((a) = cp_realloc_array(&cp__desc_node, ((a)), (unsigned long)(((2 * n)))));
  for (int i = 0; i < 2 * n; i++) {
    a[i].v = i < n ? a[i].v : i;
    a[i].next = i ? &a[i - 1] : NULL;
  }
  struct node *b = malloc(mul_checked(k++ + 3, sizeof *b));
  // CHECK: struct node *b = cp_alloc_array(&cp__desc_node, (unsigned long)(k++ + 3));
  for (int i = 0; i < 3; i++)
    b[i].v = 100 + i;
  struct node *c = calloc(1, st_mult(mul_checked(2, sizeof *c), 3));
  // CHECK: struct node *c = cp_alloc_array(&cp__desc_node, cp__count_mul(cp__count_mul((unsigned long)(1), (unsigned long)(2)), (unsigned long)(3)));
  c[5].v = 7;
  struct node *w = xmalloc_array(4, sizeof *w);
  COPY_ARRAY(w, b, 3);
  // CHECK: struct node *w = cp_alloc_array(&cp__desc_node, (unsigned long)(4));
  w[3].v = 1;
  c[5].v += w[3].v - 1;
  for (int i = 0; i < 4; i++) {
    REALLOC_ARRAY(v, i + 1);
    // CHECK: ((v) = ((void *)cp_root_array_realloc((void **)(((v))), (unsigned long)(((i + 1))))));
    v[i] = &a[2 * i];
  }
  long s = 0;
  for (int i = 0; i < 2 * n; i++)
    s += a[i].v + (a[i].next ? a[i].next->v : 0);
  printf("%ld %d %d %d k=%d\n", s, v[3]->v, b[2].v, c[5].v, k);
  // OUT: 361 6 102 7 k=1
  free(a);
  free(b);
  free(c);
  free(w);
  free(v);
  return 0;
}
