// Memory from libc that holds compact pointers but is not allocated as a
// root array would not be translated by the switch: refused in switchable
// mode.  A root array is malloc, calloc, realloc or reallocarray of n
// compact pointers, or of n constant arrays of them (`struct rec
// *(*b)[2]`: switchable/root-array-shapes.c runs those).  Without a
// switch (compact-only) such memory holds native addresses that stay
// valid: accepted.
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Xclang -verify=ok %s
// ok-no-diagnostics
#define _DEFAULT_SOURCE
#include <compactptr.h>
#include <stdlib.h>

struct CP_COMPACT rec {
  int key;
  struct rec *next;
};

struct rec **recognised(unsigned long n) {
  return calloc(n, sizeof(struct rec *)); // a root array
}

void *pairs(void) {
  struct rec *(*bucket)[2] = calloc(256, sizeof *bucket); // a root array of 512
  return bucket;
}

struct rec **grow(struct rec **v, size_t n) {
  return reallocarray(v, n, sizeof *v); // realloc of a root array
}

struct rec **aligned(size_t n) {
  return aligned_alloc(64, n * sizeof(struct rec *)); // expected-error {{this 'aligned_alloc' allocates memory that holds pointers to compact type 'struct rec', in a form that is not a root array: the switch would not translate them}}
}
