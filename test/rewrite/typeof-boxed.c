// `__typeof__` of a boxed variable (a local of a compact type whose address
// is taken lives in the heap, and its name is gone): in a declaration, a
// cast, a sizeof and a statement expression from a macro, as Linux's
// `rb_entry_safe(root.rb_node, ...)` expands to `({ typeof(root.rb_node)
// ____ptr = ...; })`.  The operand names the heap object instead, or,
// printed from the AST inside a macro's expansion, the type stands for
// itself (through pointers, arrays and function types).  Also in a
// typedef and in a cast inside a sizeof.  Before, the rewritten file named
// the variable ("use of undeclared identifier 'h'").  Every mode builds
// and matches native.
// REQUIRES: plugin
// RUN: %rewrite --main-only %s -- %cflags -fplugin-arg-compactptr-mode=compact-only > %t.c
// RUN: FileCheck %s < %t.c
// RUN: %clang %cflags -O1 %s -o %t.native && %t.native > %t.expect
// RUN: %clang %cflags -O1 -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co && %t.co | diff %t.expect -
// RUN: %clang %cflags -O1 -fplugin=%plugin -fplugin-arg-compactptr-mode=wide %s %runtime -o %t.wide && %t.wide | diff %t.expect -
// RUN: %clang %cflags -O1 -fplugin=%plugin %s %runtime -o %t.sw && %t.sw | diff %t.expect -
// RUN: env COMPACTPTR_ARENA_LIMIT=128K COMPACTPTR_VERIFY=1 %t.sw | diff %t.expect -
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  int key;
  struct node *next;
};
struct head { // compact by inference
  struct node *first;
  long count;
};

static void push(struct head *h, int k) {
  struct node *n = malloc(sizeof *n);
  n->key = k;
  n->next = h->first;
  h->first = n;
  h->count++;
}

#define FIRST_KEY(hd)                                                          \
  ({                                                                           \
    __typeof__((hd).first) f_ = (hd).first;                                    \
    f_ ? f_->key : -1;                                                         \
  })

#define FN_AND_ARRAY(x)                                                        \
  ({                                                                           \
    __typeof__((x).first) (*fp_)(void) = 0;                                    \
    __typeof__((x).first) a_[] = {(x).first};                                  \
    (void)fp_;                                                                 \
    a_[0];                                                                     \
  })

int main(void) {
  struct head h = {NULL, 0};
  long sum = 0;
  for (int i = 0; i < 20000; i++)
    push(&h, i);
  // CHECK: {{^ +}}__typeof__((*cp__box_h).first) f = {{.*}}cp__box_h
  __typeof__(h.first) f = h.first;
  // CHECK: {{^ +}}__typeof__(*cp__box_h) *hp = {{.*}}cp__box_h
  __typeof__(h) *hp = &h;
  // (The macro's expansion is printed from the AST.)
  // CHECK: {{^ +}}int k = (({ struct node *f_ = {{.*}}cp__box_h
  int k = FIRST_KEY(h);
  for (struct node *p = f; p; p = p->next)
    sum += p->key;
  // CHECK: {{^ +}}struct node *g = (__typeof__((*cp__box_h).first))
  struct node *g = (__typeof__(h.first))hp->first;
  // A typedef, a cast inside a sizeof, and (printed from the AST) a
  // function pointer's and an array's declarators.
  // CHECK: {{^ +}}typedef __typeof__((*cp__box_h).first) link_t;
  typedef __typeof__(h.first) link_t;
  link_t l = h.first;
  // CHECK: {{^ +}}size_t sz = sizeof((__typeof__((*cp__box_h).first))0);
  size_t sz = sizeof((__typeof__(h.first))0);
  struct node *fa = FN_AND_ARRAY(h);
  // CHECK: {{^ +}}sizeof(__typeof__((*cp__box_h).first)), {{.*}}, sz,
  printf("%d %d %ld %ld %d %zu %d %zu %d\n", f ? f->key : -1, k, sum, hp->count, g->key,
         sizeof(__typeof__(h.first)), l->key, sz, fa->key);
  return 0;
}
