// A root array, or a compact object, handed to code that keeps it as a
// `void *` (a generic vector's items) and freed or resized there with plain
// free and realloc: compactptr.h links those calls to cp_free_any and
// cp_realloc_any, which tell a root array and a compact object from libc
// memory.  (Freed through libc, the root array's header made glibc abort
// with "double free or corruption (out)" in every mode with handles.)
// The switchable build switches while the resized array holds every node.
// REQUIRES: plugin
// RUN: %clang %cflags -O2 -Wall -Werror %s -o %t.native && %t.native > %t.native.out
// RUN: FileCheck --check-prefix=OUT %s < %t.native.out
// RUN: %clang %cflags -O2 -Werror -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co
// RUN: %t.co | diff %t.native.out -
// RUN: %clang %cflags -O2 -Werror -fplugin=%plugin -fplugin-arg-compactptr-mode=wide %s %runtime -o %t.wide
// RUN: %t.wide | diff %t.native.out -
// The resize-object case keeps a node's size in a local on purpose
// (layout-stored warns of it in switchable mode).
// RUN: %clang %cflags -O2 -Werror -fplugin=%plugin -fplugin-arg-compactptr-Wno-error=compactptr-layout-stored -fplugin-arg-compactptr-mode=switchable %s %runtime -o %t.sw
// RUN: %t.sw | diff %t.native.out -
// RUN: env COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t.sw switch 2> %t.sw.err | diff %t.native.out -
// RUN: FileCheck --check-prefix=SWITCH %s < %t.sw.err
// A compact object cannot be resized through a `void *`: its size in
// elements is unknown there.  One line, not a heap corrupted by libc.
// RUN: not %t.co resize-object 2>&1 | FileCheck --check-prefix=RESIZE %s
// OUT: 2016 2016 8128 libc 42
// SWITCH: compactptr: switch to wide mode (cp_switch_to_wide()) after {{[0-9]+}} allocations: {{.*}}, verified
// SWITCH: 0 root arrays (0 bytes)
// RESIZE: compactptr: realloc of 0x{{[0-9a-f]+}}, a 'node' object, through a pointer the plugin cannot see is one (void *, char *, ...): its size is not in elements of a known type; call realloc on a 'struct node *'
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT node {
  long v;
  struct node *next;
};

/* A generic vector: it knows nothing of nodes. */
struct vec {
  void *items;
  size_t n, cap;
};

static void vec_grow(struct vec *v, size_t elem) {
  v->cap = v->cap ? 2 * v->cap : 4;
  v->items = realloc(v->items, v->cap * elem);
}

static void vec_free(struct vec *v) {
  free(v->items);
  v->items = NULL;
}

int main(int argc, char **argv) {
  int do_switch = argc > 1 && strcmp(argv[1], "switch") == 0;
  if (argc > 1 && strcmp(argv[1], "resize-object") == 0) {
    void *obj = malloc(sizeof(struct node));
    size_t bytes = 2 * sizeof(struct node); /* a size the plugin cannot type */
    obj = realloc(obj, bytes);
    printf("resized %p\n", obj);
    return 0;
  }

  /* The reproducer: a root array stored as `void *` and freed through it. */
  struct vec v = {0, 0, 0};
  struct node **a = malloc(64 * sizeof *a);
  for (int i = 0; i < 64; i++) {
    a[i] = malloc(sizeof(struct node));
    a[i]->v = i;
    a[i]->next = 0;
  }
  long s = 0;
  for (int i = 0; i < 64; i++)
    s += a[i]->v;
  v.items = a;
  v.n = 64;
  for (int i = 0; i < 64; i++)
    free(a[i]);
  vec_free(&v);

  /* The vector grown by realloc of its `void *`: still a root array. */
  struct vec w = {0, 0, 0};
  w.items = malloc(4 * sizeof(struct node *));
  w.cap = 4;
  for (int i = 0; i < 128; i++) {
    if (w.n == w.cap)
      vec_grow(&w, sizeof(struct node *));
    struct node *n = malloc(sizeof *n);
    n->v = i;
    n->next = NULL;
    ((struct node **)w.items)[w.n++] = n;
  }
  if (do_switch)
    cp_switch_to_wide();
  long t = 0, u = 0;
  for (size_t i = 0; i < w.n; i++) {
    struct node *n = ((struct node **)w.items)[i];
    if (n->v < 64)
      t += n->v;
    u += n->v;
    void *as_void = n; /* a compact object freed through `void *` */
    free(as_void);
  }
  vec_free(&w);

  /* Ordinary libc memory through the same calls. */
  char *buf = malloc(8);
  buf = realloc(buf, 64);
  strcpy(buf, "libc");
  void *other = buf;
  printf("%ld %ld %ld %s %d\n", s, t, u, buf, 42);
  free(other);
  return 0;
}
