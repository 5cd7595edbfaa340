// Switchable mode warns where the address of plain data inside a compact
// object (`&n->value`, `&n->pos.y`, `&n->vals[i]`) is stored into memory
// -- an element of a malloc'd array, a global -- as em3d keeps
// `&m->value` in its nodes' `from` arrays: kept there it is no root, and
// the switch leaves it pointing into the released arena.  A local holding
// it is fine (a frame keeps it), and so is the address of a compact struct
// embedded in the object (a compact pointer) or of a handle field (a slot
// pointer, followed by its own analysis).  So is one stored in an untyped
// pointer field of a compact object (`int *cursor`): the switch moves it,
// unless the field is a bump pointer (a region's `avail`, moved by `+=`)
// handing out pieces of the compact object.
// Stored through a plain pointer, it may land in such a field or
// elsewhere: the warning says both.  What is computed from such an
// address (a local holding it, a function returning it, pointer arithmetic)
// is warned the same where it is stored.  Compact-only and wide builds
// never switch: no warning.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only %s 2>&1 | FileCheck %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Werror %s
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -fplugin-arg-compactptr-Wno-compactptr-interior-escape -Werror %s
#include <compactptr.h>
#include <stdlib.h>

struct point { int x, y; };
struct CP_COMPACT item { long v; struct item *back; };
struct CP_COMPACT node {
  double value;
  struct point pos;
  int vals[4];
  struct item head;
  struct node *next;
  double **from;
  int *cursor;
};

static int *last_val;
static double *keep;
static double *value_of(struct node *p) { return &p->value; }

// A region whose chunks are compact objects: its bump pointer, an untyped
// field the switch moves, hands out pieces of a chunk, and the program's
// pointers to those pieces (their links, its locals) would not move.
struct CP_COMPACT chunk { struct chunk *prev; char data[256]; };
struct region { char *avail; struct chunk *chunks; }; // compact by inference
static void *carve(struct region *r, size_t k) {
  if (!r->chunks) {
    r->chunks = malloc(sizeof *r->chunks);
    r->avail = r->chunks->data;
    // CHECK: interior-escape.c:[[@LINE-1]]:16: warning: the address of field 'data' inside a compact object becomes the bump pointer 'avail': what is carved from it lies inside a compact object, which the switch moves, while the pointers the program keeps to those pieces (their links, its locals) are not translated, and after the switch they point into the released arena; carve from memory outside the compact heap (a chunk that holds only its link and the bytes gains nothing from CP_COMPACT) [-Wcompactptr-interior-escape]
  }
  void *p = r->avail;
  r->avail += k;
  return p;
}
// The same, moved as obstack moves its cursor: a copy read, then stored.
struct region2 { char *next_free; struct chunk *chunks; };
static void *carve2(struct region2 *r, size_t k) {
  if (!r->chunks) {
    r->chunks = malloc(sizeof *r->chunks);
    r->next_free = r->chunks->data;
    // CHECK: interior-escape.c:[[@LINE-1]]:20: warning: the address of field 'data' inside a compact object becomes the bump pointer 'next_free'
  }
  char *p = r->next_free;
  r->next_free = p + k;
  return p;
}

int main(void) {
  struct node *n = malloc(sizeof *n), *m = malloc(sizeof *m);
  n->next = m;
  n->from = malloc(2 * sizeof(double *));
  n->from[0] = &m->value;
  // CHECK: interior-escape.c:[[@LINE-1]]:16: warning: the address of field 'value' inside a compact object is stored through a pointer; unless it lands in an untyped pointer field of a compact object ('void *', 'char *', ...), which the switch moves, it is no root there, and after the switch it points into the released arena (keep a compact pointer to the object and take the address where it is used) [-Wcompactptr-interior-escape]
  n->cursor = &n->vals[2];         /* an untyped pointer field: moved */
  // CHECK-NOT: interior-escape.c:[[@LINE-1]]:
  last_val = (&m->pos.y);
  // CHECK: interior-escape.c:[[@LINE-1]]:15: warning: the address of field 'y' inside a compact object is stored into memory; kept there, it is no root, and after
  n->cursor = m->next ? &m->vals[0] : (int *)0;
  n->cursor = n->vals + 1;
  // CHECK-NOT: interior-escape.c:[[@LINE-2]]:
  // CHECK-NOT: interior-escape.c:[[@LINE-2]]:
  int **where = &n->cursor;
  *where = &m->vals[1];
  // CHECK: interior-escape.c:[[@LINE-1]]:12: warning: the address of an element of field 'vals' inside a compact object is stored through a pointer; unless it lands in an untyped pointer field of a compact object ('void *', 'char *', ...), which the switch moves, it is no root there, and after the switch it points into the released arena
  keep = value_of(m);
  // CHECK: interior-escape.c:[[@LINE-1]]:10: warning: the result of 'value_of', which may point inside a compact object, is stored into memory
  double *local = &n->value;      /* a local: kept in a frame */
  keep = local + 0;
  // CHECK: interior-escape.c:[[@LINE-1]]:10: warning: 'local', which may point inside a compact object, is stored into memory
  struct item *it = &n->head;     /* a compact pointer */
  struct node **slot = &n->next;  /* a slot pointer */
  *slot = m;
  m->head.back = &n->head;        /* a compact pointer stored in a handle field */
  *local = *n->from[0];
  (void)it;
  return 0;
}
// CHECK-NOT: warning:
// CHECK: 7 warnings generated.
