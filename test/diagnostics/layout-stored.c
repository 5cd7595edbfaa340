// Switchable mode: a sizeof or offsetof of a compact type is the value in
// the layout of the moment.  Kept -- stored in a global, a field or a
// local that lives across a safepoint, or handed to a function of the
// program that may keep it (a container's element size) -- it is stale
// after the switch: a memcpy sized by it copies a compact object's bytes
// of a wide one, and before this warning the program printed a cut string
// and exited 0.  Used where it is taken, it is right.  Compact-only and
// wide builds never switch: no warning.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only %s 2>&1 | FileCheck --implicit-check-not=warning: %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Werror %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=wide -fsyntax-only -Werror %s
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -fplugin-arg-compactptr-Wno-compactptr-layout-stored -Werror %s
#include <compactptr.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT item { struct item *next; int weight; char name[12]; };

struct pool { size_t elem; size_t off; };

static size_t item_bytes;
static size_t weight_at;

static void pool_init(struct pool *p, size_t elem) { p->elem = elem; }
static struct pool *pool_new(size_t elem) {
  struct pool *p = malloc(sizeof *p);
  p->elem = elem;
  return p;
}
static void (*pool_init_hook)(struct pool *, size_t) = pool_init;

static size_t item_size(void) { return sizeof(struct item); } // no warning: taken at each call

static int by_weight(const void *a, const void *b) {
  return (*(struct item *const *)a)->weight - (*(struct item *const *)b)->weight;
}

static void copy_now(struct item *d, const struct item *s) {
  size_t n = sizeof *s; // no warning: no safepoint before its use
  memcpy(d, s, n);
}

static struct item *copy_later(const struct item *s) {
  size_t n = sizeof *s;
  // CHECK: layout-stored.c:[[@LINE-1]]:{{[0-9]+}}: warning: this sizeof of compact type 'struct item' initializes 'n': it is the value in the layout of the moment, and after the switch the objects have their wide layout
  struct item *d = malloc(sizeof *d);
  memcpy(d, s, n);
  return d;
}

// A size held in a local of a function with no safepoint is followed to
// where the local's value goes.
static void hand_on(struct pool *p) {
  size_t n = sizeof(struct item);
  // CHECK: layout-stored.c:[[@LINE-1]]:{{[0-9]+}}: warning: this sizeof of compact type 'struct item' initializes 'n', which is handed to 'pool_init', which may keep it
  pool_init(p, n);
}

static void two_steps(void) {
  size_t a = offsetof(struct item, weight), b;
  // CHECK: layout-stored.c:[[@LINE-1]]:{{[0-9]+}}: warning: this offsetof of compact type 'struct item' initializes 'a', which is stored in 'b', which is stored in 'weight_at'
  b = a * 2;
  weight_at = b;
}

static void grows(struct pool *p) {
  size_t n = sizeof(struct item);
  // CHECK: layout-stored.c:[[@LINE-1]]:{{[0-9]+}}: warning: this sizeof of compact type 'struct item' initializes 'n', which is handed to 'pool_init', which may keep it
  n = n * 2; // no second warning: n's own reads are followed once
  n = n + 1;
  pool_init(p, n);
}

static void read_before(struct pool *p, size_t m) {
  size_t n = m;
  pool_init(p, n);
  n = sizeof(struct item); // no warning: no read of n comes after
}

static void used_here(struct item *d, const struct item *s) {
  size_t n = sizeof *s; // no warning: every read of n is used at once
  n = n + 0;
  if (n > 8)
    memcpy(d, s, n);
}

int main(void) {
  struct pool pl;
  struct item *a = malloc(sizeof(struct item)), *arr[2];
  item_bytes = sizeof(struct item);
  // CHECK: layout-stored.c:[[@LINE-1]]:{{[0-9]+}}: warning: this sizeof of compact type 'struct item' is stored in 'item_bytes'
  weight_at = offsetof(struct item, weight) + 0;
  // CHECK: layout-stored.c:[[@LINE-1]]:{{[0-9]+}}: warning: this offsetof of compact type 'struct item' is stored in 'weight_at'
  pl.off = 2 * sizeof *a;
  // CHECK: layout-stored.c:[[@LINE-1]]:{{[0-9]+}}: warning: this sizeof of compact type 'struct item' is stored in memory
  pool_init(&pl, sizeof(struct item));
  // CHECK: layout-stored.c:[[@LINE-1]]:{{[0-9]+}}: warning: this sizeof of compact type 'struct item' is handed to 'pool_init', which may keep it
  struct pool *p3 = pool_new(sizeof(struct item));
  // CHECK: layout-stored.c:[[@LINE-1]]:{{[0-9]+}}: warning: this sizeof of compact type 'struct item' is handed to 'pool_new', which may keep it
  pool_init_hook(p3, sizeof(struct item));
  // CHECK: layout-stored.c:[[@LINE-1]]:{{[0-9]+}}: warning: this sizeof of compact type 'struct item' is handed to a function through a pointer, which may keep it
  struct pool p2 = {sizeof *a, 0};
  // CHECK: layout-stored.c:[[@LINE-1]]:{{[0-9]+}}: warning: this sizeof of compact type 'struct item' initializes an aggregate
  memset(a, 0, sizeof *a);
  copy_now(a, a);
  hand_on(&pl);
  two_steps();
  used_here(a, a);
  grows(&pl);
  read_before(&pl, 8);
  struct item *b = copy_later(a);
  arr[0] = a;
  arr[1] = b;
  qsort(arr, 2, sizeof arr[0], by_weight);
  if (sizeof(struct item) > 16)
    printf("%zu %zu %zu %zu\n", sizeof(struct item), item_size(), pl.elem, p2.elem);
  free(a);
  free(b);
  free(p3);
  return 0;
}

// A struct compact only by inference says so.
struct ref { struct item *target; int w; };
void ref_pool(void) {
  struct pool rp;
  pool_init(&rp, sizeof(struct ref));
  // CHECK: layout-stored.c:[[@LINE-1]]:{{[0-9]+}}: warning: this sizeof of compact type 'struct ref' (compact by inference: it holds a pointer to a compact type) is handed to 'pool_init', which may keep it
}
