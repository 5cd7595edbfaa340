// Allocation sites: malloc, calloc and realloc with sizeof(T), sizeof *p,
// a typedef name, or n * sizeof(T) in either order.  An array of pointers
// (n * sizeof(struct node *)) is a root array, not an allocation of nodes.
// An allocation hook handed one node's size (cJSON's
// `hooks->allocate(sizeof(cJSON))`) is a site too, not a blocker: the
// plugin allocates in the compact heap while the hook is malloc (it was
// "blocked", asking to declare the field CP_ALLOCATOR).
// RUN: compactptr-advise %s -- %cflags | FileCheck %s
#include <stdlib.h>

typedef struct node {
  int key;
  struct node *next;
} node_t;

// An untagged struct is named by its typedef.  It points to a compact
// type, so it is compact too (the plugin infers it), but the handle saves
// nothing: 8 + 4 bytes round up to 16 at 8-byte alignment.
typedef struct {
  void *data;
  struct node *head;
} list_t;

struct node *a(void) { return malloc(sizeof(struct node)); }
struct node *b(struct node *p) { return p = malloc(sizeof *p); }
node_t *c(int n) { return calloc(n, sizeof(node_t)); }
node_t *d(node_t *p, int n) { return realloc(p, n * sizeof(node_t)); }
node_t *e(int n) { return malloc(sizeof(struct node) * n); }
struct node **roots(int n) { return malloc(n * sizeof(struct node *)); }
list_t *l(void) { return malloc(sizeof(list_t)); }
struct hooks { void *(*allocate)(size_t); void (*deallocate)(void *); };
static struct hooks hooks = {malloc, free};
node_t *h(void) { return (node_t *)hooks.allocate(sizeof(node_t)); }

// CHECK: struct node: clean
// CHECK-NEXT: defined at {{.*}}allocation-forms.c:11
// CHECK-NEXT: heap-allocated, self-referential and pointed to from another heap struct
// CHECK: allocation sites (6):
// CHECK-NEXT: allocation-forms.c:24
// CHECK-NEXT: allocation-forms.c:25
// CHECK-NEXT: allocation-forms.c:26
// CHECK-NEXT: allocation-forms.c:27
// CHECK-NEXT: allocation-forms.c:28
// CHECK-NEXT: allocation-forms.c:33
// CHECK-NEXT: blockers: none
// CHECK: list_t: not a candidate
// CHECK-NEXT: defined at {{.*}}allocation-forms.c:19
// CHECK-NEXT: heap-allocated, but neither
// CHECK-NEXT: size: 16 bytes wide, 16 bytes compact, 0 saved per object
