// A program's own allocator declared CP_ALLOCATOR (a pool, a wrapper
// around malloc) and its free declared CP_DEALLOCATOR: where the result
// becomes a compact pointer and an argument is sizeof(T) or n * sizeof(T),
// the call is replaced by the runtime's allocation (an array of compact
// pointers becomes a root array); its other arguments are still evaluated
// when they have side effects.  A call for anything else (a string) is
// left alone.
// RUN: %rewrite --main-only %s -- %cflags > %t.c
// RUN: FileCheck --match-full-lines %s < %t.c
// RUN: %clang %cflags -Wall -Werror %t.c %runtime -o %t && %t | FileCheck --check-prefix=OUT %s
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT ent { unsigned key; struct ent *next; };

static char *chunk;
static int left, arena_id;

static CP_ALLOCATOR void *allocate(unsigned long n, int arena) {
  (void)arena;
  if ((int)n > left) {
    chunk = malloc(4096);
    left = 4096;
  }
  left -= (int)n;
  chunk += n;
  return chunk - n;
}

static CP_DEALLOCATOR void release(void *p, int arena) { (void)p; (void)arena; }

static int next_arena(void) { return ++arena_id; }

int main(void) {
  struct ent *e = allocate(sizeof *e, 1);
  // CHECK: struct ent *e = cp_alloc(&cp__desc_ent);
  struct ent **tab = allocate(8 * sizeof(struct ent *), next_arena());
  // CHECK: struct ent **tab = ((void)(next_arena()), ((void *)cp_root_array_alloc((unsigned long)(8))));
  char *name = allocate(16, 1);
  // CHECK: char *name = allocate(16, 1);
  strcpy(name, "pool");
  e->key = 7;
  e->next = NULL;
  tab[3] = e;
  printf("%s %u %d\n", name, tab[3]->key, arena_id);
  // OUT: pool 7 1
  release(e, next_arena());
  // CHECK: ((void)(next_arena()), cp_free(e));
  release(tab, 0);
  // CHECK: cp_root_array_free((void **)(tab));
  return 0;
}
