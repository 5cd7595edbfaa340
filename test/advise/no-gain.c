// A candidate whose compact layout is no smaller and that no other
// candidate points to or holds gains nothing from the mark: "no gain",
// ranked after the blocked ones and left alone by --annotate.  Here a
// region allocator's chunk (a link beside a size_t and the bytes it hands
// out): marked, the switch would move the chunk under the plain pointers
// of the items carved from it.  A zero-saving struct that a candidate
// points to is still clean: its mark makes that pointer a handle.
// RUN: compactptr-advise %s -- %cflags | FileCheck %s
// RUN: compactptr-advise --annotate %s -- %cflags 2>&1 | FileCheck %s --check-prefix=DIFF
#include <stdlib.h>

struct chunk {
  struct chunk *prev;
  size_t size;
  char data[];
};
struct region {
  char *avail, *limit;
  struct chunk *chunks;
};
void *region_alloc(struct region *r, size_t n) {
  if ((size_t)(r->limit - r->avail) < n) {
    struct chunk *c = malloc(sizeof *c + 65536);
    c->prev = r->chunks;
    c->size = 65536;
    r->chunks = c;
    r->avail = c->data;
    r->limit = c->data + 65536;
  }
  void *p = r->avail;
  r->avail += n;
  return p;
}

struct key { // saves nothing, but an entry points to it
  struct key *alias;
  double weight;
};
struct entry {
  struct entry *next;
  struct key *key;
  int hits;
};
struct entry *add(struct entry *head, struct key *k) {
  struct entry *e = malloc(sizeof *e);
  e->next = head;
  e->key = k;
  e->hits = 0;
  return e;
}
struct key *mk(void) { return calloc(1, sizeof(struct key)); }

// CHECK: compactptr-advise: 4 structs, 3 candidates (2 clean, 0 blocked, 1 no gain), 0 already annotated
// CHECK:    1  clean              24      12    12     1     12  struct entry
// CHECK-NEXT:    2  clean              16      16     0     1      0  struct key
// CHECK-NEXT:    3  no gain            16      16     0     1      0  struct chunk
// CHECK-NEXT:    4  not a candidate    24      24     0     0      0  struct region
// CHECK: struct chunk: no gain
// CHECK-NEXT: defined at {{.*}}no-gain.c:12
// CHECK-NEXT: heap-allocated and self-referential or pointed to, but its compact layout is no smaller and no other compact struct points to it or holds it: marking it gains nothing

// DIFF: +struct CP_COMPACT key {
// DIFF: +struct CP_COMPACT entry {
// DIFF-NOT: CP_COMPACT chunk
