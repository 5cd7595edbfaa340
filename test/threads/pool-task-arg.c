// A compact object handed as `void *` to a thread pool of another file,
// kept there in the queued task until a worker runs it: the switch while
// tasks wait left their `arg` pointing into the released arena (exit 70,
// with a void-escape warning whose advice did not fit).  Declaring the
// pool's task struct CP_COMPACT (Inputs/own-file/pool.c built with
// -DPOOL_COMPACT_TASK) makes `arg` an untyped field that the switch
// moves; the workers fill the buckets, allocating, and the switch comes
// while tasks are queued.
// RUN: %clang %cflags -O1 -Werror -I%S/Inputs/own-file %s -DPOOL_COMPACT_TASK %S/Inputs/own-file/pool.c -lpthread -o %t.native
// RUN: %clang %cflags -O1 -fplugin=%plugin -I%S/Inputs/own-file %s -DPOOL_COMPACT_TASK %S/Inputs/own-file/pool.c %runtime -lpthread -o %t 2> %t.warnings
// RUN: FileCheck --check-prefix=WARN %s < %t.warnings
// RUN: %t.native > %t.expect
// RUN: env COMPACTPTR_ARENA_LIMIT=512K COMPACTPTR_HIGH_WATER=40 COMPACTPTR_STATS=1 COMPACTPTR_SAFEPOINT_TIMEOUT=20000 %t > %t.out 2> %t.err
// RUN: diff %t.expect %t.out
// RUN: FileCheck %s < %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=512K COMPACTPTR_HIGH_WATER=40 COMPACTPTR_VERIFY=1 COMPACTPTR_SAFEPOINT_TIMEOUT=20000 %t | diff %t.expect -
// RUN: env COMPACTPTR_ARENA_LIMIT=512K COMPACTPTR_HIGH_WATER=30 COMPACTPTR_VERIFY=1 COMPACTPTR_SAFEPOINT_TIMEOUT=20000 %t | diff %t.expect -
// CHECK: compactptr: switch to wide mode (high-water mark)
// WARN: warning: a compact pointer to 'struct bucket' is passed as 'void *' to 'pool_submit'; {{.*}}(keep it in a field or a root array of its own type, or in a 'void *' field of a CP_COMPACT struct, which the switch moves (declare the struct that keeps it, a pool's task, CP_COMPACT), or cast explicitly if it is not kept)
#include "pool.h"
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT word {
  unsigned h;
  struct word *next;
};

struct CP_COMPACT bucket {
  int id;
  unsigned long sum;
  struct word *words;
};

static void fill(void *arg) {
  struct bucket *b = arg;
  for (int i = 0; i < 600; i++) {
    struct word *w = malloc(sizeof *w);
    w->h = (unsigned)(b->id * 2654435761u + (unsigned)i * 40503u);
    w->next = b->words;
    b->words = w;
  }
  for (struct word *w = b->words; w; w = w->next)
    b->sum = b->sum * 31 + w->h;
}

int main(void) {
  enum { N = 64 };
  struct bucket **bs = malloc(N * sizeof *bs);
  struct pool *p = pool_create(3);
  for (int i = 0; i < N; i++) {
    bs[i] = calloc(1, sizeof **bs);
    bs[i]->id = i;
    pool_submit(p, fill, bs[i]);
  }
  pool_wait_idle(p);
  unsigned long total = 0;
  for (int i = 0; i < N; i++)
    total = total * 7 + bs[i]->sum;
  printf("buckets %d total %lx\n", N, total);
  pool_destroy(p);
  return 0;
}
