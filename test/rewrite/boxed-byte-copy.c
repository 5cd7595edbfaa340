// A local value of compact type whose address a function of the program
// copies to or from a heap object -- it is handed the heap object as
// bytes, or the size of the struct (`copy_bytes(a, &tmp, sizeof(struct
// item))`, a vector's push) -- lives in the compact heap, so its bytes
// are in the layout of the object and the size.  Before, it stayed a wide
// value: 16 of its 24 bytes were copied into the object and read in the
// compact layout (weight 0), exit 0, no diagnostic.  A value hashed with
// its own size stays where it is (its bytes and size are both wide).
// RUN: %rewrite --main-only %s -- %cflags > %t.c
// RUN: FileCheck --match-full-lines %s < %t.c
// RUN: %clang %cflags -O2 %s -o %t.native && %t.native > %t.native.out
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co && %t.co | diff %t.native.out -
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=wide %s %runtime -o %t.wide && %t.wide | diff %t.native.out -
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-Wno-compactptr-void-escape -fplugin-arg-compactptr-Wno-compactptr-layout-stored %s %runtime -o %t.sw && %t.sw | diff %t.native.out -
// RUN: env COMPACTPTR_VERIFY=1 %t.sw switch | diff %t.native.out -
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT item { long id; struct item *parent; int weight; };

static void copy_bytes(void *dst, const void *src, size_t n) { memcpy(dst, src, n); }

static unsigned hash_bytes(const void *p, size_t n) {
  const unsigned char *b = p;
  unsigned h = 2166136261u;
  for (size_t i = 0; i < n; i++)
    h = (h ^ b[i]) * 16777619u;
  return h;
}

int main(int argc, char **argv) {
  struct item *a = malloc(sizeof *a), *b = malloc(sizeof *b);
  struct item tmp = {1, NULL, 42};
  // CHECK: struct item *cp__box_tmp {{.*}}
  struct item back = {0, NULL, 0};
  // CHECK: struct item *cp__box_back {{.*}}
  struct item key = {7, NULL, 9};
  // CHECK: struct item key = {7, NULL, 9};
  if (argc > 1)
    cp_switch_to_wide();
  copy_bytes(a, &tmp, sizeof(struct item));
  a->parent = b;
  copy_bytes(&back, a, sizeof back);
  b->id = 2;
  b->weight = 5;
  b->parent = NULL;
  printf("a: id=%ld weight=%d parent=%ld\n", a->id, a->weight, a->parent->id);
  printf("back: id=%ld weight=%d parent=%ld\n", back.id, back.weight, back.parent->id);
  printf("key: %u\n", hash_bytes(&key, sizeof key) == hash_bytes(&key, sizeof key));
  free(a);
  free(b);
  return 0;
}
