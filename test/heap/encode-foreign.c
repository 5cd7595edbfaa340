// A bump allocator carving compact objects out of a malloc'd buffer: the
// first store of such an object into a compact field stops the program with
// a clear error (encode checks that the address lies in the arena's
// reservation), in every mode that encodes, instead of a wrong answer.
// REQUIRES: plugin
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co
// RUN: not %t.co 2> %t.co.err; FileCheck %s < %t.co.err
// RUN: %clang %cflags -O2 -fplugin=%plugin %s %runtime -o %t.sw
// RUN: not %t.sw 2> %t.sw.err; FileCheck %s < %t.sw.err
// RUN: %clang %cflags -O2 %s -o %t.native && %t.native | FileCheck --check-prefix=NATIVE %s
// CHECK: compactptr: pointer {{0x[0-9a-f]+}} stored into a compact field is outside the compact arena: the object was not allocated by compactptr (a pool or bump allocator
// NATIVE: 499500
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT ent {
  int key;
  struct ent *next;
};

static char *pool;
static size_t left;
static char *localmalloc(size_t n) {
  if (left < n) {
    pool = malloc(32768);
    left = 32768;
  }
  left -= n;
  return pool + left;
}

int main(void) {
  struct ent *head = NULL;
  long s = 0;
  for (int i = 0; i < 1000; i++) {
    struct ent *e = (struct ent *)localmalloc(sizeof *e);
    e->key = i;
    e->next = head;
    head = e;
  }
  for (; head; head = head->next)
    s += head->key;
  printf("%ld\n", s);
  return 0;
}
