// A compact struct a macro defines, at file scope or as a member's type
// (<sys/queue.h>'s SLIST_HEAD(name, type) and SLIST_ENTRY(type)): where its
// closing brace is the macro's last token, its generated declarations go
// after the declaration that ends the expansion, in the user's text.
// RUN: %rewrite --main-only %s -- %cflags > %t.c
// RUN: FileCheck --match-full-lines %s < %t.c
// RUN: %clang %cflags -Wall -Werror %t.c %runtime -o %t && %t | FileCheck --check-prefix=OUT %s
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

#define ENTRY(type) struct { struct type *next; }
#define HEAD(name, type) HEAD_(name, struct type)
#define HEAD_(name, type) struct name { type *first; }

struct CP_COMPACT job {
  int id;
  ENTRY(job) link;
};
// CHECK: }; struct cp__c_job__link { cp_handle_t next; }{{.*}} struct cp__c_job { int id; struct cp__c_job__link link; }{{.*}}
HEAD(jobs, job);
// CHECK: HEAD(jobs, job); struct cp__c_jobs { cp_handle_t first; }{{.*}}

int main(void) {
  struct jobs *h = malloc(sizeof *h);
  h->first = NULL;
  for (int i = 0; i < 3; i++) {
    struct job *j = malloc(sizeof *j);
    j->id = i;
    j->link.next = h->first;
    h->first = j;
  }
  int sum = 0;
  for (struct job *j = h->first; j; j = j->link.next)
    sum = sum * 10 + j->id;
  printf("%d\n", sum);
  // OUT: 210
  return 0;
}
