// Memory from libc that holds compact pointers but is not allocated as a
// root array (a pointer to arrays of pointers, reallocarray) would not be
// translated by the switch: refused in switchable mode.  Without a switch
// (compact-only) it holds native addresses that stay valid: accepted.
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
  struct rec *(*bucket)[2] = calloc(256, sizeof *bucket); // expected-error {{this 'calloc' allocates memory that holds pointers to compact type 'struct rec', in a form that is not a root array: the switch would not translate them}}
  return bucket;
}

struct rec **grow(struct rec **v, size_t n) {
  return reallocarray(v, n, sizeof *v); // expected-error {{this 'reallocarray' allocates memory that holds pointers to compact type 'struct rec'}}
}
