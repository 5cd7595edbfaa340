// A static function in the checked form carries both layouts' code, so it
// is marked __inline__: LLVM's inliner then gives it the threshold of a
// hinted function, and a small allocating helper is inlined as it is in
// the compact-only build (the IR check below).  Functions with external
// linkage, functions already inline, noinline and variadic ones are left
// as written; a function a macro defines is spelled out in place first,
// and hinted like the others.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Werror -fplugin-arg-compactptr-dump=- %s 2>&1 | FileCheck %s
// RUN: %clang %cflags -O2 -Werror -fplugin=%plugin -S -emit-llvm -o - %s | FileCheck --check-prefix=IR %s
// RUN: %clang %cflags -O2 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 30000 2>&1 | FileCheck --check-prefix=OUT %s
#include <compactptr.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT cell { long v; struct cell *l, *r; };

// CHECK: {{^}}__inline__ static struct cell *cell_new(long v, struct cell *l, struct cell *r) {
static struct cell *cell_new(long v, struct cell *l, struct cell *r) {
  struct cell *c = malloc(sizeof *c);
  if (!c) exit(2);
  c->v = v;
  c->l = l;
  c->r = r;
  return c;
}

// CHECK: {{^}}static __attribute__((noinline, cold, unused)) struct cell *cell_pair__outside(struct cell *, struct cell *); struct cell *cell_pair(struct cell *l, struct cell *r) {
struct cell *cell_pair(struct cell *l, struct cell *r) {
  return cell_new(l->v + r->v, l, r);
}

// CHECK: {{^}}static inline struct cell *cell_leaf(long v) {
static inline struct cell *cell_leaf(long v) { return cell_new(v, NULL, NULL); }

// CHECK: {{^}}__attribute__((noinline)) static struct cell *cell_one(void) {
__attribute__((noinline)) static struct cell *cell_one(void) {
  return cell_new(1, NULL, NULL);
}

// CHECK: {{^}}static struct cell *cell_sum(int n, ...) {
static struct cell *cell_sum(int n, ...) {
  va_list ap;
  long s = 0;
  va_start(ap, n);
  while (n-- > 0) s += va_arg(ap, long);
  va_end(ap);
  return cell_new(s, NULL, NULL);
}

#define DEFINE_MAKER(name) static struct cell *name(long v) { return cell_new(v, NULL, NULL); }
// CHECK: {{^}}_Pragma({{.*}}) __inline__ static struct cell * cell_made ( long v ) {
DEFINE_MAKER(cell_made)

static long total(const struct cell *c) {
  return c ? c->v + total(c->l) + total(c->r) : 0;
}

// The helper is inlined into its callers at -O2: no call to it is left.
// IR-LABEL: define {{.*}}@main(
// IR-NOT: call {{.*}}@cell_new(
// IR: ret i32

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000, i;
  struct cell *acc = cell_leaf(0);
  for (i = 0; i < n; i++)
    acc = cell_pair(acc, i % 3 ? cell_leaf(i) : i % 2 ? cell_made(i) : cell_one());
  acc = cell_pair(acc, cell_sum(3, 1L, 2L, 3L));
  printf("%ld\n", total(acc));
  return 0;
}
// OUT-DAG: {{^}}3750825050012{{$}}
// OUT-DAG: compactptr: switch: {{[0-9]+}} objects moved
