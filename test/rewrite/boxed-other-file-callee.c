// A local holding a compact pointer (compact by inference) handed as
// `void *` to a function of another file of the program, which hands it to
// a callback of this file that reads it as the struct: the local lives in
// the compact heap, as when the function's body is in this file.  Before,
// it stayed wide while the callback wrote it in the compact layout:
// `last -1` for `last 0`, exit 0, no diagnostic in compact-only mode.  A
// byte address handed to libc (memset, fwrite) or to a byte helper of
// another file that is handed no callback stays a wide value: its bytes
// and its size are the native ones.
// RUN: %rewrite --main-only %s -- %cflags -I%inputs/other-file > %t.c
// RUN: FileCheck --match-full-lines %s < %t.c
// RUN: %clang %cflags -I%inputs/other-file -O2 %s %inputs/other-file/visit.c -o %t.native && %t.native > %t.native.out
// RUN: %clang %cflags -I%inputs/other-file -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %inputs/other-file/visit.c %runtime -o %t.co && %t.co | diff %t.native.out -
// RUN: %clang %cflags -I%inputs/other-file -O2 -fplugin=%plugin -Wno-compactptr-void-escape %s %inputs/other-file/visit.c %runtime -o %t.sw && %t.sw | diff %t.native.out -
// RUN: %t.native 200000 > %t.native.big
// RUN: env COMPACTPTR_VERIFY=1 COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_STATS=1 %t.sw 200000 2> %t.stats | diff %t.native.big -
// RUN: FileCheck --check-prefix=SWITCHED %s < %t.stats
// SWITCHED: compactptr: switch to wide mode
#include "visit.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct threshold {
  int min_qty;
  long seen;
  struct item *last_dropped;
};

static int keep_big(const struct item *it, void *ctx) {
  struct threshold *t = ctx;
  t->seen++;
  if (it->qty >= t->min_qty)
    return 1;
  t->last_dropped = (struct item *)it;
  return 0;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 10;
  struct item *h = NULL;
  for (int i = 0; i < n; i++) {
    struct item *it = malloc(sizeof *it);
    it->qty = i % 10;
    it->next = h;
    h = it;
  }
  // CHECK: struct threshold *cp__box_th __attribute__((cleanup(cp__box_free))) = {{.*}}
  struct threshold th = {5, 0, NULL};
  int kept = visit_all(h, keep_big, &th);
  // CHECK: struct threshold bytes;
  struct threshold bytes;
  memset(&bytes, 0, sizeof bytes);
  bytes.min_qty = 3;
  unsigned long sum = sum_bytes(&bytes, sizeof bytes);
  printf("kept %d seen %ld last %d zero %ld bytes %lu of %zu\n", kept, th.seen,
         th.last_dropped ? th.last_dropped->qty : -1, bytes.seen, sum,
         sizeof bytes);
  while (h) {
    struct item *next = h->next;
    free(h);
    h = next;
  }
  return 0;
}
