// Calls to another file's function whose prototype has compact pointers
// (tree_new of Inputs/builders/cell.c) make their caller checked: the
// callee may allocate or wait for a thread that does.  Where the checked
// form would refuse the code around such a call -- a statement expression
// or an initializer list holding compact pointers across it, alloca
// memory of node pointers -- the caller stays a compact body, as before
// the rule (the code compiled then, and still does).  A call in an
// unevaluated operand calls nothing; a `pure` function allocates nothing.
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Werror -I%inputs/builders -fplugin-arg-compactptr-plan=- %s 2>&1 | FileCheck %s
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin -I%inputs/builders %s %inputs/builders/cell.c %runtime -o %t
// RUN: %clang %cflags -O1 -I%inputs/builders %s %inputs/builders/cell.c -o %t.native
// RUN: %t.native > %t.expected
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 %t | diff %t.expected -
#include <alloca.h>
#include <stdio.h>

#include "tree.h"

long depth_of(const struct tree *t) __attribute__((pure));
long depth_of(const struct tree *t) {
  return t ? 1 + depth_of(t->left) : 0;
}

#define PUSH(head, v)                                                        \
  ({                                                                         \
    struct tree *n_ = tree_new(v);                                           \
    n_->left = (head);                                                       \
    (head) = n_;                                                             \
  })

// CHECK-DAG: plan: plain (line [[@LINE+1]]): checked: calls 'tree_new' of another file, whose prototype has compact pointers: it may allocate or wait for a thread that does (a safepoint)
static struct tree *plain(int n) {
  struct tree *h = NULL;
  for (int i = 0; i < n; i++) {
    struct tree *t = tree_new(i);
    t->left = h;
    h = t;
  }
  return h;
}

// CHECK-DAG: plan: in_macro (line [[@LINE+1]]): dual: depends on a layout and reaches no safepoint it can see
static struct tree *in_macro(int n) {
  struct tree *h = NULL;
  for (int i = 0; i < n; i++)
    PUSH(h, i);
  return h;
}

struct pair {
  struct tree *a, *b;
};

// CHECK-DAG: plan: in_list (line [[@LINE+1]]): dual: depends on a layout and reaches no safepoint it can see
static long in_list(int n) {
  long s = 0;
  for (int i = 0; i < n; i++) {
    struct pair p = {tree_new(i), tree_new(-i)};
    s += p.a->val - p.b->val;
  }
  return s;
}

// CHECK-DAG: plan: on_stack (line [[@LINE+1]]): dual: depends on a layout and reaches no safepoint it can see
static long on_stack(const struct tree *h, int n) {
  const struct tree **v = alloca((size_t)n * sizeof *v);
  for (int i = 0; i < n && h; i++, h = h->left)
    v[i] = h;
  return depth_of(v[0]) + (long)sizeof(tree_new(0)->val);
}

// CHECK-DAG: plan: unevaluated (line [[@LINE+1]]): dual: depends on a layout and reaches no safepoint it can see
static long unevaluated(const struct tree *h) {
  return h->val + (long)sizeof(tree_new(1)->val) + depth_of(h);
}

int main(void) {
  struct tree *a = plain(20000), *b = in_macro(100);
  printf("%ld %ld %ld %ld\n", depth_of(a), depth_of(b), in_list(100),
         on_stack(a, 8) + unevaluated(b));
  return 0;
}
