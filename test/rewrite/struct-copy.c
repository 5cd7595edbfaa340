// Copies between heap objects (compact layout) and values (wide layout) go
// through the generated converters; heap-to-heap copies of the same type
// copy the compact bytes.
// RUN: %rewrite --main-only %s -- %cflags > %t.c
// RUN: FileCheck --match-full-lines %s < %t.c
// RUN: %clang %cflags -Wall -Werror %t.c %runtime -o %t && %t | FileCheck --check-prefix=OUT %s
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node { int key; struct node *next; };

static struct node get(struct node *p) { return *p; }
// CHECK: static struct node get(struct node *p) { return cp__load_node((&(*(struct cp__c_node *)(p)))); }
static int key_of(struct node v) { return v.key; }

// A const field: set by its object's initializer, never assigned; the
// converter that reads a heap object into a value copies its bytes.
struct CP_COMPACT tag { const int id; struct tag *next; };
// CHECK: {{.*}} { __typeof__(cp__c->id) cp__t = cp__c->id; __builtin_memcpy((void *)&cp__w.id, &cp__t, sizeof cp__t); }{{.*}}
static int id_of(const struct tag *t) { struct tag v = *t; return v.id; }
// So does a field that holds one (a plain struct's, a nested compact
// struct's), and a variable in the compact heap that has one.
struct fixed { const int z; double d; };
struct CP_COMPACT holder { struct holder *next; struct fixed f; struct tag t; };
static int z_of(const struct holder *h) { struct holder v = *h; return v.f.z + v.t.id; }
static int boxed_id(void) {
  struct tag local = {6, NULL};
  struct tag *lp = &local;
  return lp->id;
}

int main(void) {
  struct node *p = malloc(sizeof *p), *q = malloc(sizeof *q);
  p->key = 7;
  p->next = q;
  struct node v = *p;
  // CHECK: struct node v = cp__load_node((&(*(struct cp__c_node *)(p))));
  v.key++;
  *q = v;
  // CHECK: cp__store_node((&(*(struct cp__c_node *)(q))), v);
  q->next = NULL;
  *p = *q;
  // CHECK: (void)((*(struct cp__c_node *)(p)) = (*(struct cp__c_node *)(q)));
  printf("%d %d %d %d\n", v.key, v.next == q, key_of(*p), get(q).next == NULL);
  // OUT: 8 1 8 1
  struct tag *t = calloc(1, sizeof *t);
  struct holder *h = calloc(1, sizeof *h);
  printf("%d %d %d\n", id_of(t), z_of(h), boxed_id());
  // OUT: 0 0 6
  free(h);
  free(t);
  free(p);
  free(q);
  return 0;
}
