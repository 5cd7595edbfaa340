// Bit-fields in compact types (a red-black node's colour, flags and small
// counters).  A run of consecutive bit-fields stays together, in an
// anonymous struct aligned for the widest type in the run and preceded by
// as many bytes as the wide layout has between such a boundary and the
// run's first byte, so every bit keeps its place relative to that boundary
// and the bytes the run spans copy as they are at the switch.  The
// descriptor names the run by its first field: compact offset from the
// marker array, wide offset from clang's layout of the struct.
// RUN: %rewrite --main-only %s -- %cflags > %t.c
// RUN: FileCheck %s < %t.c
// RUN: %clang %cflags -O2 -Wall -Werror %s -o %t.native && %t.native > %t.native.out
// RUN: %clang %cflags -O2 -Wall -Werror -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.compact
// RUN: %t.compact | diff %t.native.out -
// RUN: %clang %cflags -O2 -Wall -Werror -fplugin=%plugin -fplugin-arg-compactptr-mode=wide %s %runtime -o %t.wide
// RUN: %t.wide | diff %t.native.out -
// RUN: %clang %cflags -O2 -Wall -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.native.out -
// RUN: FileCheck --check-prefix=SWITCH %s < %t.err
// RUN: %clang %cflags -O0 -std=c99 -pedantic -Werror -fplugin=%plugin %s %runtime -o %t.O0
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 %t.O0 | diff %t.native.out -
// SWITCH: compactptr: switch to wide mode (high-water mark) {{.*}}, verified
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT rb {
  struct rb *left, *right, *parent;
  unsigned red : 1;
  unsigned size : 31;
  int key;
};
// CHECK-DAG: {{^[^/]*}}struct cp__c_rb { cp_handle_t left; cp_handle_t right; cp_handle_t parent; __extension__ struct __attribute__((aligned(4))) { char cp__bits_red[0]; unsigned int red : 1; unsigned int size : 31; }; int key; }
// CHECK-DAG: {{^[^/]*}}{"red", __builtin_offsetof(struct cp__c_rb, cp__bits_red) + 0, 24, CP_FIELD_BYTES, 1, 4, 0},

// A run that starts inside a unit (one byte after `tag`), a zero-width
// field that starts a new unit, an unnamed pad, signed and enumeration
// bit-fields; the runs are split by `s`.
struct CP_COMPACT odd {
  char tag;
  unsigned a : 3, b : 7;
  struct odd *next;
  unsigned long long big : 40;
  unsigned : 0;
  unsigned char c : 2;
  signed int neg : 5;
  unsigned : 4;
  enum { X, Y, Z } kind : 2;
  short s;
  _Bool flag : 1;
};

// A const bit-field: set only by an initializer, so no assignment can copy
// the value of a heap object; the run's bytes can.
struct CP_COMPACT cbits {
  struct cbits *next;
  const unsigned mark : 3;
  unsigned val : 5;
};
// CHECK-DAG: {{^[^/]*}}struct cp__c_odd { char tag; __extension__ struct __attribute__((aligned(1))) { char cp__bits_flag[0]; _Bool flag : 1; }; short s; __extension__ struct __attribute__((aligned(4))) { char cp__bits_a[1]; unsigned int a : 3; unsigned int b : 7; }; cp_handle_t next; __extension__ struct __attribute__((aligned(8))) { char cp__bits_big[0]; unsigned long long big : 40; unsigned int : 0; unsigned char c : 2; int neg : 5; unsigned int : 4; unsigned int kind : 2; }; }
// CHECK-DAG: {{^[^/]*}}{"a", __builtin_offsetof(struct cp__c_odd, cp__bits_a) + 1, 1, CP_FIELD_BYTES, 1, 2, 0},
// CHECK-DAG: {{^[^/]*}}{"big", __builtin_offsetof(struct cp__c_odd, cp__bits_big) + 0, 16, CP_FIELD_BYTES, 1, 10, 0},
// The converters between a heap object and a value copy the run's bytes
// (a const bit-field has no assignment).
// CHECK-DAG: {{^[^/]*}}__builtin_memcpy((char *)(void *)&cp__w + 1, (const char *)(const void *)cp__c + __builtin_offsetof(struct cp__c_odd, cp__bits_a) + 1, 2);

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 20000;
  struct rb *chain = NULL;
  struct odd *list = NULL;
  unsigned long long sum = 0;
  for (int i = 0; i < n; i++) {
    struct rb *x = malloc(sizeof *x);
    x->left = chain;
    x->right = x->parent = NULL;
    x->red = i & 1;
    x->size = (unsigned)i * 2654435761u >> 1;
    x->key = i;
    chain = x;
    struct odd *o = malloc(sizeof *o);
    o->tag = (char)i;
    o->a = i;
    o->b = i >> 3;
    o->big = (unsigned long long)i * 1000003;
    o->c = i;
    o->neg = -(i % 16);
    o->kind = i % 3;
    o->s = (short)(i * 7);
    o->flag = i % 5 == 0;
    o->next = list;
    list = o;
  }
  for (struct rb *x = chain; x; x = x->left)
    sum = sum * 31 + x->red + x->size + x->key;
  for (struct odd *o = list; o; o = o->next) {
    struct odd v = *o; /* through the converters */
    v.neg += 1;
    *o = v;
    sum = sum * 31 + o->tag + o->a + o->b + o->big + o->c + (unsigned)o->neg +
          o->kind + o->s + o->flag;
  }
  struct cbits *cb = calloc(1, sizeof *cb);
  cb->val = 21;
  struct cbits cv = *cb;
  sum += cv.mark + cv.val;
  printf("%d nodes, sum %llu\n", n, sum);
  return 0;
}
