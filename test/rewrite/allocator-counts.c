// A CP_ALLOCATOR function that counts objects apart from their size
// (calloc-like: xcalloc(n, sizeof *p)) allocates n objects through the
// runtime: the plugin reads which parameters count from the function's
// body in this file (through a wrapper of a wrapper), or from its
// alloc_size attribute; a count with side effects is evaluated once.  One
// whose body hands the block it is given to realloc (a grow wrapper, also
// through a local) is the runtime's realloc of that block: the contents
// stay.
// RUN: %rewrite --main-only %s -- %cflags > %t.c
// RUN: FileCheck --match-full-lines %s < %t.c
// RUN: %clang %cflags -Wall -Werror %t.c %runtime -o %t && %t | FileCheck --check-prefix=OUT %s
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT node { int v; struct node *next; };

static CP_ALLOCATOR void *xcalloc(size_t n, size_t size) {
  void *p = calloc(n, size);
  if (!p)
    exit(2);
  return p;
}
static CP_ALLOCATOR void *xcalloc_again(size_t count, size_t size) {
  return xcalloc(count, size);
}
static CP_ALLOCATOR void *xmallocarray(size_t size, size_t n) {
  size_t bytes = n * size;
  return malloc(bytes);
}
static CP_ALLOCATOR void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n);
  if (!q)
    exit(2);
  return q;
}
static CP_ALLOCATOR void *grow(void *p, size_t n, size_t size) {
  void *old = p;
  return xrealloc(old, n * size);
}
// Only the factors of the allocation's size count: a tag that indexes a
// table, an alignment the size is rounded up to, are none; a product
// checked with __builtin_mul_overflow is one.
static unsigned long tag_bytes[8];
static CP_ALLOCATOR void *tmalloc(size_t size, int tag) {
  tag_bytes[tag * 2] += size;
  return malloc(size);
}
// (A second argument beside the size that is no factor could be a count
// as well as an alignment: the attribute says it is no count.)
static CP_ALLOCATOR void *amalloc(size_t size, size_t align)
    __attribute__((alloc_size(1)));
static CP_ALLOCATOR void *amalloc(size_t size, size_t align) {
  return malloc((size + align - 1) / align * align);
}
static CP_ALLOCATOR void *ocalloc(size_t n, size_t size) {
  size_t bytes;
  if (__builtin_mul_overflow(n, size, &bytes))
    exit(2);
  void *p = malloc(bytes ? bytes : 1);
  if (p)
    memset(p, 0, bytes);
  return p;
}
// A guard against a zero size beside the product.
static CP_ALLOCATOR void *zcalloc(size_t n, size_t size) {
  size_t bytes = n * size;
  if (!bytes)
    bytes = 1;
  return calloc(1, bytes);
}
// Declared only: the attribute says which argument counts.
CP_ALLOCATOR void *table_new(int zone, size_t count, size_t size)
    __attribute__((alloc_size(2, 3)));

static long sum(struct node *a, int n) {
  long s = 0;
  for (int i = 0; i < n; i++)
    s += a[i].v + (a[i].next ? a[i].next->v : 0);
  return s;
}

int main(void) {
  int n = 100, k = 0;
  struct node *a = xcalloc(n, sizeof *a);
  // CHECK: struct node *a = cp_alloc_array(&cp__desc_node, (unsigned long)(n));
  struct node *b = xcalloc_again(n, sizeof(struct node));
  // CHECK: struct node *b = cp_alloc_array(&cp__desc_node, (unsigned long)(n));
  struct node *c = xmallocarray(sizeof *c, k++ + n);
  // CHECK: struct node *c = cp_alloc_array(&cp__desc_node, (unsigned long)(k++ + n));
  for (int i = 0; i < n; i++) {
    a[i].v = i;
    b[i].v = 2 * i;
    c[i].v = 3 * i;
    a[i].next = &b[n - 1 - i];
  }
  printf("%ld %ld %ld k=%d\n", sum(a, n), sum(b, n), sum(c, n), k);
  // OUT: 14850 9900 14850 k=1
  a = grow(a, 2 * n, sizeof *a);
  // CHECK: a = cp_realloc_array(&cp__desc_node, a, (unsigned long)(2 * n));
  for (int i = n; i < 2 * n; i++) {
    a[i].v = i;
    a[i].next = NULL;
  }
  struct node **v = NULL;
  for (int i = 0; i < 4; i++) {
    v = grow(v, i + 1, sizeof *v);
    // CHECK: v = ((void *)cp_root_array_realloc((void **)(v), (unsigned long)(i + 1)));
    v[i] = &a[i];
  }
  c = xrealloc(c, 2 * n * sizeof *c);
  // CHECK: c = cp_realloc_array(&cp__desc_node, c, (unsigned long)(2 * n));
  c[2 * n - 1].v = 7;
  printf("%ld %d %d\n", sum(a, 2 * n), v[3]->v, c[n - 1].v + c[2 * n - 1].v);
  // OUT: 29800 3 304
  struct node *t = tmalloc(sizeof *t, 3);
  // CHECK: struct node *t = cp_alloc(&cp__desc_node);
  struct node *al = amalloc(sizeof *al, 16);
  // CHECK: struct node *al = cp_alloc(&cp__desc_node);
  struct node *o = ocalloc(n, sizeof *o);
  // CHECK: struct node *o = cp_alloc_array(&cp__desc_node, (unsigned long)(n));
  struct node *z = zcalloc(n, sizeof *z);
  // CHECK: struct node *z = cp_alloc_array(&cp__desc_node, (unsigned long)(n));
  z[n - 1].v = 0;
  free(z);
  o[n - 1].v = 5;
  t->v = 1;
  al->v = 2;
  printf("%d\n", t->v + al->v + o[n - 1].v);
  // OUT: 8
  free(t);
  free(al);
  free(o);
  free(v);
  free(a);
  free(b);
  free(c);
  if (0) {
    struct node *d = table_new(1, n, sizeof *d);
    // CHECK: struct node *d = cp_alloc_array(&cp__desc_node, (unsigned long)(n));
    free(d);
  }
  return 0;
}
