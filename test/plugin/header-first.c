// compactptr.h gives free and realloc the assembler names of the runtime's
// cp_free_any and cp_realloc_any, which clang refuses after a first use.
// A header included before it whose inline function calls free (as
// <mm_malloc.h> does under <immintrin.h>, or a header-only library) made
// the compile fail inside compactptr.h ("cannot apply asm label to
// function after its first use").  The plugin declares the two first in a
// translation unit with compact types, so the order does not matter, and
// the inline function's free is the runtime's too (a root array handed to
// it is freed correctly).  The rewritten -E output starts with them.
// REQUIRES: plugin
// RUN: rm -rf %t && split-file %s %t
// RUN: %clang %cflags -I%t -O2 -Wall -Werror %t/main.c -o %t/native && %t/native > %t/native.out
// RUN: FileCheck --check-prefix=OUT %s < %t/native.out
// RUN: %clang %cflags -I%t -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %t/main.c %runtime -o %t/compact
// RUN: %t/compact | diff %t/native.out -
// RUN: %clang %cflags -I%t -O2 -fplugin=%plugin %t/main.c %runtime -o %t/switchable
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_STATS=1 %t/switchable 2> %t/err | diff %t/native.out -
// RUN: FileCheck --check-prefix=STATS %s < %t/err
// RUN: %clang %cflags -I%t -fplugin=%plugin -fplugin-arg-compactptr-preprocess=%t/main.i -fsyntax-only %t/main.c
// RUN: %clang -O2 -c -x cpp-output %t/main.i -o %t/main.o && %clang %t/main.o %runtime -o %t/from-i
// RUN: env COMPACTPTR_ARENA_LIMIT=256K %t/from-i | diff %t/native.out -
// OUT: sum 199990000 of 20000
// STATS: compactptr: switch to wide mode

//--- vec.h
/* A header-only vector, included before compactptr.h. */
#include <stdlib.h>
struct vec { void **items; int n, cap; };
static inline void vec_push(struct vec *v, void *x) {
  if (v->n == v->cap) {
    v->cap = v->cap ? 2 * v->cap : 8;
    v->items = realloc(v->items, v->cap * sizeof *v->items);
  }
  v->items[v->n++] = x;
}
static inline void vec_release(struct vec *v) { free(v->items); v->items = 0; }

//--- main.c
#include "vec.h"
#include <compactptr.h>
#include <stdio.h>

struct CP_COMPACT node { int key; struct node *next; };

int main(void) {
  struct vec v = {0, 0, 0};
  struct node *head = NULL;
  for (int i = 0; i < 20000; i++) {
    struct node *n = malloc(sizeof *n);
    n->key = i;
    n->next = head;
    head = n;
    vec_push(&v, n);
  }
  long sum = 0;
  for (struct node *n = head; n; n = n->next)
    sum += n->key;
  printf("sum %ld of %d\n", sum, v.n);
  vec_release(&v);
  while (head) {
    struct node *next = head->next;
    free(head);
    head = next;
  }
  return 0;
}
