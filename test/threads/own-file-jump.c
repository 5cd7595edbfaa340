// A longjmp out of a call out of rewritten code: check_or_jump (a file
// without compact types) jumps back to main's setjmp while main is outside
// (cp__inside 0).  The landing brings the thread back inside, so a later
// switch led by another thread waits for main instead of moving the heap
// under it.  Then main builds a list while a worker allocates until the
// switch; the list is read back after it.
// RUN: %clang %cflags -O1 -Werror -I%S/Inputs/own-file %s %S/Inputs/own-file/fail.c -lpthread -o %t.native
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin -I%S/Inputs/own-file %s %S/Inputs/own-file/fail.c %runtime -lpthread -o %t
// RUN: %t.native > %t.native.out
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t > %t.out 2> %t.err
// RUN: diff %t.native.out %t.out
// RUN: FileCheck %s < %t.err
// CHECK: inside after the jump: 1
// CHECK: compactptr: switch to wide mode (high-water mark) after {{[0-9]+}} allocations: moved {{[0-9]+}} objects, {{.*}} threads stopped, verified
#include "fail.h"
#include <compactptr.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  long key;
  struct node *next;
};

static struct node *theirs;
static volatile int go;

static void *worker(void *a) {
  (void)a;
  while (!go)
    ;
  for (long i = 0; i < 40000; i++) {
    struct node *n = malloc(sizeof *n);
    n->key = i;
    n->next = theirs;
    theirs = n;
  }
  return NULL;
}

int main(void) {
  jmp_buf env;
  struct node *mine = NULL;
  int jumped = 0;
  pthread_t t;
  pthread_create(&t, NULL, worker, NULL);
  if (setjmp(env) == 0)
    check_or_jump(0, &env);
  else
    jumped = 1;
#ifdef COMPACTPTR_RUNTIME
  fprintf(stderr, "inside after the jump: %d\n", cp__inside);
#endif
  go = 1;
  for (long i = 0; i < 20000; i++) {
    struct node *n = malloc(sizeof *n);
    n->key = i * 3;
    n->next = mine;
    mine = n;
  }
  pthread_join(t, NULL);
  long sum = 0, count = 0;
  for (struct node *n = mine; n; n = n->next)
    sum += n->key, count++;
  for (struct node *n = theirs; n; n = n->next)
    sum += n->key, count++;
  printf("jumped %d, %ld nodes, sum %ld\n", jumped, count, sum);
  return 0;
}
