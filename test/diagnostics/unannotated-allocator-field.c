// A region (obstack-style) allocator whose bump pointer is a field of the
// region's struct, `p = r->avail; r->avail += n; return p;`, is refused as
// a pool with a global bump pointer is (unannotated-allocator, with the
// CP_ALLOCATOR fix-it): before, only the foreign-object warning said so,
// and every compact-only and switchable run stopped with exit 70 at the
// first handle store of a region's object.  Wide mode accepts the pool
// (objects and pointers stay native), with the foreign-object warning it
// had.  Also a cursor moved as `a->next = a->next + n`.  Not refused: the
// same allocator in another file (foreign-object, as for any function
// whose body the plugin cannot see), a byte pointer field only read, and
// one only set from malloc (a buffer, not a bump pointer).
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=wide -fsyntax-only -Xclang -verify=wide %s
// RUN: not %clang %cflags -fplugin=%plugin -fsyntax-only -fdiagnostics-parseable-fixits %s 2>&1 | FileCheck %s
#include <compactptr.h>
#include <stddef.h>
#include <stdlib.h>

struct chunk { struct chunk *next; char *limit; max_align_t data[]; };
struct region { struct chunk *first; char *avail; };
struct view { char *at; };
struct stack { char *next, *end; };
struct buf { void *items; };

static void *region_alloc(struct region *r, size_t n) {
  char *p;
  n = (n + 15) & ~(size_t)15;
  if (!r->first || r->avail + n > r->first->limit) {
    struct chunk *c = malloc(sizeof *c + 65536);
    c->limit = (char *)c->data + 65536;
    c->next = r->first;
    r->first = c;
    r->avail = (char *)c->data;
  }
  p = r->avail;
  r->avail += n;
  return p;
}
// CHECK: fix-it:"{{.*}}unannotated-allocator-field.c":{27:1-27:1}:"CP_ALLOCATOR "

void *region_alloc_elsewhere(struct region *r, size_t n); /* another file */
static void *view_at(struct view *v) { return v->at; }
static void *stack_take(struct stack *a, size_t n) {
  char *p = a->next;
  if (a->end - p < (long)n)
    return NULL;
  a->next = a->next + n;
  return p;
}
// CHECK: fix-it:"{{.*}}unannotated-allocator-field.c":{45:1-45:1}:"CP_ALLOCATOR "
static void buf_init(struct buf *b, size_t n) { b->items = malloc(n); }

struct CP_COMPACT expr { long val; struct expr *l, *r; };

struct expr *leaf(struct region *R, long v) {
  struct expr *e = region_alloc(R, sizeof(struct expr)); // expected-error {{the 'void *' returned by 'region_alloc' becomes a compact pointer to 'struct expr', but it is not a compact allocation: memory from 'region_alloc' (the bump pointer in field 'avail' of 'struct region'); declare 'region_alloc' CP_ALLOCATOR, and the plugin allocates compact objects through the runtime instead}} expected-note@27 {{declare 'region_alloc' CP_ALLOCATOR here}} wide-warning {{'region_alloc' is handed the size of 'struct expr' and its result becomes a compact pointer to one}}
  e->val = v;
  e->l = e->r = NULL;
  return e;
}

struct expr *leaf_elsewhere(struct region *R) {
  return region_alloc_elsewhere(R, sizeof(struct expr)); // expected-warning {{'region_alloc_elsewhere' is handed the size of 'struct expr' and its result becomes a compact pointer to one}} wide-warning {{'region_alloc_elsewhere' is handed the size of 'struct expr'}}
}

struct expr *taken(struct stack *a) {
  return (struct expr *)stack_take(a, sizeof(struct expr)); // expected-error {{the 'void *' returned by 'stack_take' becomes a compact pointer to 'struct expr', but it is not a compact allocation: memory from 'stack_take' (the bump pointer in field 'next' of 'struct stack')}} expected-note@45 {{declare 'stack_take' CP_ALLOCATOR here}} wide-warning {{'stack_take' is handed the size of 'struct expr'}}
}

struct expr *seen(struct view *v, struct buf *b) {
  buf_init(b, 64);
  return v->at ? (struct expr *)view_at(v) : (struct expr *)b->items;
}
