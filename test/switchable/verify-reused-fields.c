// A work item taken off a queue keeps its `next` as it was, naming the item
// that followed it; once that one is done and freed, and its memory reused
// by an object of another type, the field names a live object of the wrong
// type.  That is legal C while the field is not followed, and
// COMPACTPTR_VERIFY reports it as it reports fields naming memory not
// reused (before, it stopped the program: exit 70, a correct server's
// output lost).  A root naming the wrong type still stops it.
// REQUIRES: plugin
// RUN: %clang %cflags -O2 -Wall -Werror %s -o %t.native && %t.native > %t.native.out
// RUN: FileCheck --check-prefix=OUT %s < %t.native.out
// RUN: %clang %cflags -O2 -fplugin=%plugin %s %runtime -o %t
// RUN: env COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.native.out -
// RUN: FileCheck %s < %t.err
// OUT: done 1 of 20001 kept, 30000 results, sum 449955000
// CHECK: compactptr: verify (before the switch): field 'next' of the 'job' object at 0x{{[0-9a-f]+}} holds 0x{{[0-9a-f]+}}, a live 'result' object, where a 'job' is expected (the memory it named was freed and reused): reported, not an error
// CHECK: compactptr: verify (after the switch): field 'next' of the 'job' object at 0x{{[0-9a-f]+}} holds 0x{{[0-9a-f]+}}, a live 'result' object, where a 'job' is expected (the memory it named was freed and reused): reported, not an error
// CHECK: compactptr: switch to wide mode (cp_switch_to_wide()) after {{[0-9]+}} allocations: {{.*}}, verified
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT job {
  int id;
  struct job *next;
};

struct CP_COMPACT result {
  long value;
  struct result *older;
};

struct queue {
  struct job *head, *tail;
};

static void put(struct queue *q, struct job *j) {
  j->next = NULL;
  if (q->tail)
    q->tail->next = j;
  else
    q->head = j;
  q->tail = j;
}

/* A retry goes first. */
static void put_first(struct queue *q, struct job *j) {
  if (!(j->next = q->head))
    q->tail = j;
  q->head = j;
}

/* Takes the first item; its `next` stays as it was. */
static struct job *take(struct queue *q) {
  struct job *j = q->head;
  if (j && !(q->head = j->next))
    q->tail = NULL;
  return j;
}

int main(void) {
  struct queue q = {0};
  enum { JOBS = 20000, RESULTS = 30000 };
  for (int i = 0; i < JOBS; i++) {
    struct job *j = malloc(sizeof *j);
    j->id = i;
    put(&q, j);
  }
  /* A retried job, done first and kept: its `next` names job 0. */
  struct job *kept = malloc(sizeof *kept);
  kept->id = -1;
  put_first(&q, kept);
  int done = 0;
  for (struct job *j; (j = take(&q));)
    if (++done > 1)
      free(j);
  /* The jobs' memory goes to results. */
  struct result *last = NULL;
  long sum = 0;
  for (int i = 0; i < RESULTS; i++) {
    struct result *r = malloc(sizeof *r);
    r->value = i;
    r->older = last;
    last = r;
  }
  cp_switch_to_wide();
  int n = 0;
  for (struct result *r = last; r; r = r->older, n++)
    sum += r->value + kept->id;
  printf("done %d of %d kept, %d results, sum %ld\n", kept != NULL, done, n, sum);
  return 0;
}
