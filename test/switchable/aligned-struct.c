// A compact struct that asks for its own alignment
// (`struct __attribute__((aligned(16))) particle`, as SIMD code declares
// it) keeps it in the compact layout, before and after the switch: every
// object is 16-byte aligned and an aligned SSE load of its first field is
// valid.  (The compact layout dropped the struct's attribute: half the
// objects were 8 bytes off, and the aligned load crashed.)
// REQUIRES: plugin
// RUN: %clang %cflags -O2 -Wall -Werror %s -o %t.native && %t.native > %t.native.out
// RUN: FileCheck --check-prefix=OUT %s < %t.native.out
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.compact
// RUN: %t.compact | diff %t.native.out -
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=switchable %s %runtime -o %t
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.native.out -
// RUN: FileCheck %s < %t.err
// OUT: misaligned 0 of 60000; sums 1799970000 1800030000 1800090000 1800150000
// CHECK: compactptr: switch to wide mode (high-water mark) after {{[0-9]+}} allocations: {{.*}}, verified
#include <compactptr.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <xmmintrin.h>

struct __attribute__((aligned(16))) CP_COMPACT particle {
  float pos[4];
  struct particle *next;
};

int main(void) {
  struct particle *head = NULL;
  long misaligned = 0;
  for (int i = 0; i < 60000; i++) {
    struct particle *p = malloc(sizeof *p);
    for (int k = 0; k < 4; k++)
      p->pos[k] = (float)(i + k);
    p->next = head;
    head = p;
    misaligned += ((uintptr_t)(void *)p->pos & 15) != 0;
  }
  double sum[4] = {0, 0, 0, 0};
  for (struct particle *p = head; p; p = p->next) {
    float v[4];
    _mm_storeu_ps(v, _mm_load_ps(p->pos)); /* an aligned load */
    for (int k = 0; k < 4; k++)
      sum[k] += v[k];
  }
  printf("misaligned %ld of 60000; sums %.0f %.0f %.0f %.0f\n", misaligned, sum[0], sum[1],
         sum[2], sum[3]);
  return 0;
}
