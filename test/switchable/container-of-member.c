// container_of from the address of a plain member (an int key, a char
// array) back to its compact owner, across the switch.  The step back is
// offsetof, which the rewrite gives in the layout the object is in.  (It
// was refused as "a pointer moved through a buffer": only a step back from
// a struct member was taken for container_of.)
// REQUIRES: plugin
// RUN: %clang %cflags -O2 -Wall -Werror %s -o %t.native && %t.native > %t.native.out
// RUN: FileCheck --check-prefix=OUT %s < %t.native.out
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.compact
// RUN: %t.compact | diff %t.native.out -
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=switchable %s %runtime -o %t
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.native.out -
// RUN: FileCheck %s < %t.err
// OUT: found 20000 of 20000, key sum 199990000, name sum 990000
// CHECK: compactptr: switch to wide mode (high-water mark) after {{[0-9]+}} allocations: {{.*}}, verified
#include <compactptr.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define container_of(p, T, m) ((T *)((char *)(p) - offsetof(T, m)))

struct CP_COMPACT entry {
  struct entry *next;
  int key;
  char name[12];
  struct entry *twin;
};

#define NBUCKETS 1024
static struct entry *table[NBUCKETS];

/* Hands out the key's address, as a set API that returns its element. */
static int *insert(int key) {
  struct entry *e = malloc(sizeof *e);
  e->key = key;
  snprintf(e->name, sizeof e->name, "k%d", key % 100);
  e->twin = NULL;
  e->next = table[key % NBUCKETS];
  table[key % NBUCKETS] = e;
  return &e->key;
}

static char *name_of(int *key) { return container_of(key, struct entry, key)->name; }

int main(void) {
  static struct entry *ents[20000];
  for (int i = 0; i < 20000; i++)
    ents[i] = container_of(insert(i), struct entry, key);
  long found = 0, ksum = 0, nsum = 0;
  for (int i = 0; i < 20000; i++) {
    int *key = &ents[i]->key;
    struct entry *e = container_of(key, struct entry, key);
    char *nm = name_of(key);
    struct entry *back = container_of(nm, struct entry, name);
    found += back == ents[i] && e == ents[i] && e->key == i;
    ksum += e->key;
    nsum += atoi(nm + 1);
  }
  printf("found %ld of 20000, key sum %ld, name sum %ld\n", found, ksum, nsum);
  return 0;
}
