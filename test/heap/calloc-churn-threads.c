// Arrays from calloc read as zero however their memory was used before:
// four threads calloc arrays of 16 KiB to 4 MiB (smaller than a 2 MiB
// commit chunk, sharing one, and made of whole chunks), check them, fill
// them and free them, so freed chunks wait to be given back, are reused
// dirty, or come back given back.  Under ThreadSanitizer too: a block is
// cleared outside the heap lock while other threads take runs in the
// same chunk.
// REQUIRES: plugin
// RUN: %clang %cflags -O1 -fplugin=%plugin %s %runtime -lpthread -o %t
// RUN: %t | FileCheck %s
// RUN: %clang %cflags -O1 -fplugin=%plugin -fplugin-arg-compactptr-mode=wide %s %runtime -lpthread -o %t.wide
// RUN: %t.wide | FileCheck %s
// RUN: %if tsan %{ %clang %cflags -O1 -g -fplugin=%plugin %s %runtime_tsan -o %t.tsan %}
// RUN: %if tsan %{ env TSAN_OPTIONS=halt_on_error=1 %t.tsan 2>&1 | FileCheck %s --implicit-check-not=WARNING %}
// CHECK: 4 threads: 0 non-zero bytes
#include <compactptr.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT cell {
  long v;
  struct cell *next;
};

static void *churn(void *arg) {
  unsigned x = (unsigned)(size_t)arg * 2654435761u + 1;
  long bad = 0;
  for (int round = 0; round < 300; round++) {
    x = x * 1103515245u + 12345u;
    size_t n = ((size_t)1 << (10 + (x >> 16) % 9)) + (x >> 8) % 1000;
    struct cell *a = calloc(n, sizeof *a);
    if (!a)
      abort();
    for (size_t i = 0; i < n; i += 61)
      bad += a[i].v != 0 || a[i].next != NULL;
    bad += a[n - 1].v != 0 || a[n - 1].next != NULL;
    memset(a, 0x5a, n * sizeof *a); /* what the next calloc must not see */
    free(a);
  }
  return (void *)bad;
}

int main(void) {
  pthread_t t[4];
  long bad = 0;
  for (long i = 0; i < 4; i++)
    pthread_create(&t[i], NULL, churn, (void *)i);
  for (int i = 0; i < 4; i++) {
    void *r;
    pthread_join(t[i], &r);
    bad += (long)r;
  }
  printf("4 threads: %ld non-zero bytes\n", bad);
  return 0;
}
