// A `void *` that becomes a struct pointer is an allocation advise must
// see only where something allocates it.  bsearch over an array of the
// struct finds one of its elements (as the plugin reads it: no blocker;
// advise had reported a foreign object).  A generic list sort hands back
// the `void *` it was given and allocates nothing: its result is a
// foreign object to check (a warning, as the plugin says), not a call to
// declare CP_ALLOCATOR -- which would route the sort's calls to the
// runtime's allocator.  A wrapper of a wrapper of malloc does allocate.
// RUN: compactptr-advise %s -- %cflags | FileCheck %s
#include <compactptr.h>
#include <stdlib.h>

struct rec { int key; struct rec *next; };
struct item { int key; struct item *next; };
struct cell { int v; struct cell *next; };

static int by_key(const void *a, const void *b) {
  return ((const struct rec *)a)->key - ((const struct rec *)b)->key;
}
struct rec *find(struct rec *recs, size_t n, int k) {
  struct rec key = {k, NULL};
  return bsearch(&key, recs, n, sizeof *recs, by_key);
}
struct rec *table(size_t n) { return calloc(n, sizeof(struct rec)); }

static void *list_sort(void *list, int (*cmp)(const void *, const void *)) {
  (void)cmp;
  return list;
}
static int by_item(const void *a, const void *b) {
  return ((const struct item *)a)->key - ((const struct item *)b)->key;
}
struct item *sorted(struct item *h) { return list_sort(h, by_item); }
// Freeing is no allocating: a pop that frees the cell it unlinks.
static void *pop(void *cell) {
  void *next = *(void **)cell;
  free(cell);
  return next;
}
struct item *popped(struct item *h) { return pop(h); }
struct item *one(void) { return malloc(sizeof(struct item)); }

static void *raw(size_t n) { return malloc(n); }
static void *wrapped(size_t n) { return raw(n); }
struct cell *cell(void) { return wrapped(sizeof(struct cell)); }

// CHECK: struct rec: clean
// CHECK: blockers: none
// CHECK: struct cell: blocked
// CHECK: blockers (1):
// CHECK-NEXT: void-results.c:[[#CELL:]]: the 'void *' returned by 'wrapped' becomes a 'struct cell *', and it is not a compact allocation; declare 'wrapped' CP_ALLOCATOR [unannotated-allocator
// CHECK: struct item: blocked
// CHECK: blockers (2):
// CHECK-NEXT: void-results.c:[[#ITEM:]]: the 'void *' returned by 'list_sort' becomes a 'struct item *'; an object allocated inside it is not in the compact arena [foreign-object, plugin: warning]
// CHECK-NEXT: void-results.c:[[#ITEM+7]]: the 'void *' returned by 'pop' becomes a 'struct item *'; an object allocated inside it is not in the compact arena [foreign-object, plugin: warning]
