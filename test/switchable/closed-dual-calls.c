// Checked code calls the compact body of a closed dual function directly,
// picking the body by mode at the call (the optimizer may then inline it,
// as in a compact-only build); a dual function that calls code the engine
// cannot see keeps its dispatch, which counts the compact body's depth.
// The frame of slots of a recursive builder is pushed before the first
// statement that saves a root: its base case, and its own allocation
// (whose slow path has no live root to save), pay nothing for it.  The program prints the same
// with a switch in the middle, also under COMPACTPTR_VERIFY=1.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Werror -fplugin-arg-compactptr-dump=- %s 2>&1 | FileCheck %s
// RUN: %clang %cflags -O2 %s -o %t.n && %t.n > %t.expected
// RUN: %clang %cflags -O2 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %t | diff %t.expected -
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_STATS=1 %t > %t.out 2> %t.err && diff %t.expected %t.out && FileCheck --check-prefix=SWITCH %s < %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 %t | diff %t.expected -
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  long key;
  struct node *left, *right;
};

static long noted_total;
static void note(long k) { noted_total += k; }
static void (*hook)(long) = note; // a call through it: code the engine cannot see

static long key_of(struct node *p) { return p ? p->key : -1; }
static long noted(struct node *p) {
  hook(p->key);
  return p->key;
}

static struct node *build(int depth, long *k) {
  if (depth == 0) {
    struct node *leaf = malloc(sizeof *leaf);
    leaf->key = (*k)++;
    leaf->left = leaf->right = NULL;
    return leaf;
  }
  struct node *t = malloc(sizeof *t);
  t->key = (*k)++;
  t->left = build(depth - 1, k);
  t->right = build(depth - 1, k);
  return t;
}

static long sum(struct node *t) {
  return t ? t->key + sum(t->left) + sum(t->right) : 0;
}

int main(void) {
  long k = 0, s = 0;
  struct node *t = build(14, &k);
  s += key_of(t);
  s += noted(t);
  printf("%ld %ld %ld\n", s, sum(t), noted_total);
  return 0;
}
// CHECK-LABEL: static struct node *build(int depth, long *k) {
// CHECK-NEXT: {{^}}  if (depth == 0) {
// CHECK-NOT: cp__slotframe
// CHECK: {{^}}    return leaf;
// CHECK-NEXT: {{^}}  }
// CHECK-NEXT: {{^}}  struct node *t = cp_alloc_safepoint(&cp__desc_node);
// CHECK-NEXT: {{^}}  (cp_is_compact() ? {{.*}}
// CHECK-NEXT: {{^}}  { struct cp__slotframe_s { cp_frame_t f; void *s[1]; } {{.*}}cp__frame(&cp__slotframe.f, 1 | CP_FRAME_RELATIVE, cp__slotroots)); __extension__({ struct node *cp__h{{[0-9]+}}; {{.*}} build(depth - 1, k)
// A run of statements that calls closed dual functions is versioned by
// mode (a call to a closed dual is layout-dependent): its compact copy
// calls their compact bodies with no test of the mode per call; noted
// (not closed) keeps its dispatch in either copy.
// CHECK-LABEL: int main(void) {
// CHECK: {{^}}  { if (cp_is_compact()) { CP__QUIET_BEGIN s += key_of__cp(t);
// CHECK-NEXT: {{^}}  s += noted(t);
// CHECK-NEXT: {{^}}  printf("%ld %ld %ld\n", s, sum__cp(t), noted_total); CP__QUIET_END } else {
// CHECK-NEXT: #line
// CHECK-NEXT: {{^}}  s += key_of(t);
// CHECK-NEXT: {{^}}  s += noted(t);
// CHECK-NEXT: {{^}}  printf("%ld %ld %ld\n", s, sum(t), noted_total); } }
// SWITCH: compactptr: switch to wide mode
