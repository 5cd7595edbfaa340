// A compact struct of no name that is the type of a file-scope variable
// declared with it gets a tag the rewritten code can spell, written into
// the source: after the `struct` keyword, or into the empty argument of the
// macro that would have named it (<sys/queue.h>'s `LIST_HEAD(, job)`; also
// through `TAILQ_HEAD`, which hands its argument on to `_TAILQ_HEAD`).  The
// tag is the variable's name and `__t`, and for a variable other files
// cannot see, a hash of the file's name (two such statics of different
// types in two files are two types to the runtime).  A macro of the
// program's own that leaves the name empty is still refused (it would
// need a tag inside its body): diagnostics/unnamed-variable-type.c.
// RUN: %rewrite --main-only %s -- %cflags > %t.c
// RUN: FileCheck %s < %t.c
// RUN: %clang %cflags -Wall -Wextra -Werror %t.c %runtime -o %t && %t | FileCheck --check-prefix=OUT %s
// RUN: %clang %cflags -fplugin=%plugin -Wall -Werror %s %runtime -o %t.sw
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t.sw 100000 2>%t.err | FileCheck --check-prefix=BIG %s
// RUN: FileCheck --check-prefix=STATS %s < %t.err
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/queue.h>

struct CP_COMPACT job {
  int id;
  LIST_ENTRY(job) all;
  TAILQ_ENTRY(job) q;
};

LIST_HEAD(, job) shared_jobs = LIST_HEAD_INITIALIZER(shared_jobs);
// CHECK: {{^}}LIST_HEAD(shared_jobs__t, job) *cp__box_shared_jobs;
static struct { struct job *first; int n; } plain_head, second_head;
// CHECK: {{^}}static struct plain_head__t_{{[0-9A-F]+}} { struct job *first; int n; } plain_head, second_head; struct cp__c_plain_head__t_{{[0-9A-F]+}} { cp_handle_t first; int n; }
static TAILQ_HEAD(, job) runq[2];
// CHECK: {{^}}static TAILQ_HEAD(runq__t_{{[0-9A-F]+}}, job) (*cp__box_runq)[2];
// The tag goes after attributes; a name already taken gets a number.
static struct __attribute__((aligned(16))) { struct job *first; } aligned_head;
// CHECK: {{^}}static struct __attribute__((aligned(16))) aligned_head__t_{{[0-9A-F]+}} { struct job *first; } aligned_head;
struct taken__t { int unrelated; };
struct { struct job *first; } taken;
// CHECK: {{^}}struct taken__t_2 { struct job *first; }

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 5;
  TAILQ_INIT(&runq[0]);
  TAILQ_INIT(&runq[1]);
  for (int i = 0; i < n; i++) {
    struct job *j = calloc(1, sizeof *j);
    j->id = i;
    LIST_INSERT_HEAD(&shared_jobs, j, all);
    TAILQ_INSERT_TAIL(&runq[i % 2], j, q);
  }
  long s = 0;
  struct job *j;
  LIST_FOREACH(j, &shared_jobs, all) s = s * 3 + j->id;
  TAILQ_FOREACH(j, &runq[1], q) s ^= j->id;
  plain_head.first = LIST_FIRST(&shared_jobs);
  plain_head.n = 1;
  second_head = plain_head;
  aligned_head.first = taken.first = plain_head.first;
  printf("%ld %d %d\n", s, second_head.first->id, TAILQ_EMPTY(&runq[1]));
  return 0;
}
// OUT: 424 4 0
// BIG: 7386953270280541936 99999 0
// STATS: compactptr: switch to wide mode
// STATS: compactptr: switch: runq__t_{{[0-9A-F]+}} 2 objects
