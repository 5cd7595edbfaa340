// A run of handles copied to or from an array of native pointers of the
// same type: a quadtree's children gathered into a local array and put
// back (`memcpy(q->kids, k, sizeof k)`, `memcpy(k, q->kids, sizeof
// q->kids)`), a `struct quad **` buffer of the program's, a count of
// elements times their size.  The compact form copies an element at a
// time, each stored with its check or decoded.  Before, refused ("'kids'
// is a handle array field; it cannot be used as a pointer"), also with
// the size the message recommended.  A mismatched element type stays
// refused, and so does a `struct quad **` that may point at handles.
// RUN: %rewrite --main-only %s -- %cflags -fplugin-arg-compactptr-mode=compact-only > %t.c
// RUN: FileCheck %s < %t.c
// RUN: %clang %cflags -O2 %s -o %t.native && %t.native > %t.native.out
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co && %t.co | diff %t.native.out -
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=wide %s %runtime -o %t.wide && %t.wide | diff %t.native.out -
// RUN: %clang %cflags -O2 -fplugin=%plugin %s %runtime -o %t.sw
// RUN: %t.sw | diff %t.native.out -
// RUN: env COMPACTPTR_ARENA_LIMIT=512K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t.sw > %t.sw.out 2> %t.sw.err
// RUN: diff %t.native.out %t.sw.out
// RUN: grep -q "switch to wide mode (high-water mark).*verified" %t.sw.err
// RUN: not %clang %cflags -DBAD -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only %s 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not %clang %cflags -DBAD_SLOT -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only %s 2>&1 | FileCheck %s --check-prefix=SLOT
// BAD: error: 'kids' is a handle array field; it cannot be used as a pointer
// A `struct quad **` that may point at handles is no array of native
// pointers: copied as one it would write pointers over handles.
// SLOT: error: 'pp', which may point at a handle field, is converted to 'void *' to be copied by memcpy
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT quad {
  int val;
  struct quad *kids[4];
};

static struct quad *leaf(int v) {
  struct quad *q = calloc(1, sizeof *q);
  q->val = v;
  return q;
}

/* A node with its children rotated: gathered into a local array, the
 * array rotated, put back. */
static void rotate(struct quad *q) {
  struct quad *k[4], *first;
  memcpy(k, q->kids, sizeof q->kids);
  first = k[0];
  memmove(k, k + 1, 3 * sizeof k[0]);
  k[3] = first;
  memcpy(q->kids, k, sizeof k);
}

static struct quad *build(int depth, int *next) {
  struct quad *q = leaf((*next)++);
  struct quad **buf = malloc(4 * sizeof *buf);
  if (depth > 0)
    for (int i = 0; i < 4; i++)
      buf[i] = build(depth - 1, next);
  else
    for (int i = 0; i < 4; i++)
      buf[i] = i % 2 ? leaf((*next)++) : NULL;
  memcpy(q->kids, buf, 4 * sizeof(struct quad *));
  free(buf);
  return q;
}

static long walk(struct quad *q, int depth) {
  long s = (long)q->val * (depth + 1);
  for (int i = 0; i < 4; i++)
    if (q->kids[i])
      s = s * 31 + walk(q->kids[i], depth + 1) + i;
  return s % 1000000007;
}

static void rotate_all(struct quad *q) {
  rotate(q);
  for (int i = 0; i < 4; i++)
    if (q->kids[i])
      rotate_all(q->kids[i]);
}

#ifdef BAD
void mismatched(struct quad *q) {
  void *raw[4];
  memcpy(raw, q->kids, sizeof raw);
}
#endif
#ifdef BAD_SLOT
void into_slots(struct quad *a, struct quad *b) {
  struct quad **pp = &a->kids[0];
  memcpy(pp, b->kids, 4 * sizeof *pp);
}
#endif

int main(void) {
  int next = 1;
  struct quad *root = build(7, &next);
  long before = walk(root, 0);
  rotate_all(root);
  printf("%d nodes, %ld then %ld\n", next - 1, before, walk(root, 0));
  return 0;
}
// CHECK-LABEL: static void rotate(
// CHECK: __extension__({ struct quad * *cp__p = k; const cp_handle_t *cp__h = &(((struct cp__c_quad *)(q))->kids)[0]; size_t cp__n = 4; for (size_t cp__i = 0; cp__i < cp__n; cp__i++) cp__p[cp__i] = (struct quad *)cp_decode(cp__h[cp__i]); (void *)cp__p; });
// CHECK: memmove(k, k + 1, 3 * sizeof k[0]);
// CHECK: __extension__({ cp_handle_t *cp__h = &(((struct cp__c_quad *)(q))->kids)[0]; struct quad * const *cp__p = k; size_t cp__n = 4; for (size_t cp__i = 0; cp__i < cp__n; cp__i++) cp__sth(&cp__h[cp__i], cp__p[cp__i]); (void *)cp__h; });
// CHECK-LABEL: static struct quad *build(
// CHECK: size_t cp__n = (size_t)(4);
