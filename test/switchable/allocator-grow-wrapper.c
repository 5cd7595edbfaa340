// A grow wrapper declared CP_ALLOCATOR (`grow(p, n, sizeof *p)`, realloc in
// its body, reached through another wrapper) resizes through the runtime:
// for an array of compact nodes, for a root array of node pointers and for
// a pinned struct (a mutex beside compact pointers); a calloc-like wrapper
// allocates n objects.  The switch comes mid-run and every list is whole
// after it.  Before, each call allocated one new object and dropped the
// old block (a wrong sum, exit 0).
// REQUIRES: plugin
// RUN: %clang %cflags -O2 -Werror -fplugin=%plugin -fplugin-arg-compactptr-mode=switchable %s %runtime -o %t
// RUN: %clang %cflags -O2 %s -o %t.native
// RUN: %t.native | FileCheck %s
// RUN: %t | FileCheck %s
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_STATS=1 %t 2> %t.err | FileCheck %s
// RUN: FileCheck --check-prefix=STATS %s < %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=2M COMPACTPTR_VERIFY=1 %t | FileCheck %s
// STATS: switch to wide mode
// CHECK: shards 6 items 126000 sum 378147000 heads 6 firsts 15
#include <compactptr.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT item { int v; struct item *next; };
struct shard { pthread_mutex_t mu; struct item *head; long n; };

static CP_ALLOCATOR void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n);
  if (!q) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  return q;
}
static CP_ALLOCATOR void *grow(void *p, size_t n, size_t size) {
  return xrealloc(p, n * size);
}
static CP_ALLOCATOR void *xcalloc(size_t n, size_t size) {
  void *p = calloc(n, size);
  if (!p)
    exit(2);
  return p;
}

int main(void) {
  struct shard *sh = NULL;
  struct item **heads = NULL, *firsts = NULL;
  long total = 0, items = 0;
  int ns = 0, r, i, s;
  for (r = 0; r < 6; r++) {
    sh = grow(sh, ns + 1, sizeof *sh);
    pthread_mutex_init(&sh[ns].mu, NULL);
    sh[ns].head = NULL;
    sh[ns].n = 0;
    ns++;
    heads = grow(heads, ns, sizeof *heads);
    firsts = grow(firsts, ns, sizeof *firsts);
    firsts[ns - 1].v = ns - 1;
    firsts[ns - 1].next = NULL;
    for (s = 0; s < ns; s++) {
      struct item *block = xcalloc(1000, sizeof *block);
      for (i = 0; i < 6000; i++) {
        struct item *it = i < 1000 ? &block[i] : malloc(sizeof *it);
        it->v = i + s;
        it->next = sh[s].head;
        sh[s].head = it;
        sh[s].n++;
      }
      heads[s] = sh[s].head;
    }
  }
  for (s = 0; s < ns; s++) {
    pthread_mutex_lock(&sh[s].mu);
    for (struct item *it = sh[s].head; it; it = it->next, items++)
      total += it->v;
    pthread_mutex_unlock(&sh[s].mu);
  }
  long h = 0, f = 0;
  for (s = 0; s < ns; s++) {
    h += heads[s] == sh[s].head;
    f += firsts[s].v;
  }
  printf("shards %d items %ld sum %ld heads %ld firsts %ld\n", ns, items,
         total, h, f);
  return 0;
}
