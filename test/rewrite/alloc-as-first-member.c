// An object allocated as its derived type and held through a pointer to
// the struct it begins with, as CPython allocates `(PyObject
// *)malloc(sizeof(PyLongObject))`: `(struct obj *)malloc(sizeof(struct
// num))`, also with calloc.  The first member lies at offset 0 in both
// layouts, so the allocation is of the sized type and the pointer names its
// header.  Before, refused in every mode: "allocation of 'struct num' is
// converted to 'struct obj *'", with no advice.  A type that does not
// begin with the pointer's, and a realloc that would change the object's
// type, stay refused, now with advice.
// RUN: %rewrite --main-only %s -- %cflags -fplugin-arg-compactptr-mode=compact-only > %t.c
// RUN: FileCheck %s < %t.c
// RUN: %clang %cflags -O2 %s -o %t.native && %t.native > %t.native.out
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co && %t.co | diff %t.native.out -
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=wide %s %runtime -o %t.wide && %t.wide | diff %t.native.out -
// RUN: %clang %cflags -O2 -fplugin=%plugin %s %runtime -o %t.sw
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t.sw > %t.sw.out 2> %t.sw.err
// RUN: diff %t.native.out %t.sw.out
// RUN: grep -q "switch to wide mode (high-water mark).*verified" %t.sw.err
// RUN: not %clang %cflags -DBAD -fplugin=%plugin -fsyntax-only %s 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: error: allocation of 'struct pair' is converted to 'struct num *', which 'struct pair' does not begin with: allocate the type the pointer names, or convert to a pointer to the struct the allocated one begins with (its first member)
// BAD: error: allocation of 'struct num' is converted to 'struct obj *', a resize that would change the object's type (allocate a new 'struct num' and copy into it)
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT obj {
  int type;
  struct obj *gc_next;
};
struct CP_COMPACT num {
  struct obj h;
  long v;
  struct obj *peer;
};
struct CP_COMPACT pair {
  struct obj h;
  struct obj *car, *cdr;
};

static struct obj *all;

static struct obj *mknum(long v) {
  struct obj *o = (struct obj *)malloc(sizeof(struct num));
  // CHECK: {{^ +}}struct obj *o = (struct obj *)cp_alloc(&cp__desc_num);
  o->type = 1;
  o->gc_next = all;
  all = o;
  ((struct num *)o)->v = v;
  ((struct num *)o)->peer = o->gc_next;
  return o;
}

static struct obj *cons(struct obj *a, struct obj *d) {
  struct obj *o = (struct obj *)calloc(1, sizeof(struct pair));
  // CHECK: {{^ +}}struct obj *o = (struct obj *)cp_alloc_array(&cp__desc_pair, (unsigned long)(1));
  o->type = 2;
  o->gc_next = all;
  all = o;
  ((struct pair *)o)->car = a;
  ((struct pair *)o)->cdr = d;
  return o;
}

#ifdef BAD
struct num *wrong(void) { return (struct num *)malloc(sizeof(struct pair)); }
struct obj *grow(struct obj *o) { return (struct obj *)realloc(o, sizeof(struct num)); }
#endif

int main(void) {
  struct obj *l = NULL;
  long sum = 0, n = 0;
  for (long i = 0; i < 100000; i++)
    l = cons(mknum(i), l);
  for (struct obj *p = l; p; p = ((struct pair *)p)->cdr)
    sum += ((struct num *)((struct pair *)p)->car)->v;
  for (struct obj *o = all; o; o = o->gc_next) {
    n++;
    if (o->type == 1 && ((struct num *)o)->peer)
      sum += ((struct num *)o)->peer->type;
  }
  printf("sum %ld objects %ld\n", sum, n);
  while (all) {
    struct obj *next = all->gc_next;
    free(all);
    all = next;
  }
  return 0;
}
