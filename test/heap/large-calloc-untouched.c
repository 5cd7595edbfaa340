// A large array from calloc costs only the pages the program touches, as
// glibc's does: the runtime cleared every block with memset, so a 4 GiB
// calloc in wide mode made 4 GiB resident (a 32 GiB one got the process
// killed by the kernel).  Large blocks are now cleared by handing their
// pages back to the kernel, which zeroes them at their first touch.
// REQUIRES: plugin
// RUN: %clang %cflags -O1 -fplugin=%plugin -fplugin-arg-compactptr-mode=wide %s %runtime -o %t
// RUN: %t | FileCheck %s
// CHECK: sum 2, ends 1 2, small 1
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

struct CP_COMPACT node {
  long v;
  struct node *next;
};

int main(void) {
  size_t n = (size_t)1 << 28; /* 4 GiB in the wide layout */
  /* A block that held data before: its reuse must read as zero too. */
  struct node *old = malloc(((size_t)1 << 20) * sizeof *old);
  for (size_t i = 0; i < (size_t)1 << 20; i++)
    old[i].v = 7;
  free(old);
  struct node *a = calloc(n, sizeof *a);
  if (!a)
    return 1;
  a[0].v = 1;
  a[n - 1].v = 2;
  a[n / 2].next = &a[0];
  long sum = 0;
  for (size_t i = 0; i < n; i += n / 8)
    sum += a[i].v + (a[i].next != NULL);
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  /* 8 samples: a few huge pages at most, far from 4 GiB. */
  printf("sum %ld, ends %ld %ld, small %d\n", sum, a[0].v, a[n - 1].v,
         ru.ru_maxrss < 256 * 1024);
  free(a);
  return 0;
}
