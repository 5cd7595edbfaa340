// free() of a compact object through a cast (void *, char *) is the
// runtime's free too, in every mode and after the switch; so is free of a
// root array through a cast.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -fplugin-arg-compactptr-dump=- %s 2>&1 | FileCheck --check-prefix=REWRITE %s
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %t | FileCheck %s
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_HIGH_WATER=1 COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t > %t.out 2> %t.err
// RUN: FileCheck %s < %t.out && FileCheck --check-prefix=SWITCH %s < %t.err
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co && %t.co | FileCheck %s
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node { int key; struct node *next; };

static void drop(struct node *p) {
  free((void *)p);
}

int main(void) {
  long i, kept = 0;
  struct node **keep = malloc(64 * sizeof(struct node *));
  for (i = 0; i < 200000; i++) {
    struct node *p = malloc(sizeof *p), *q = malloc(sizeof *q);
    p->key = (int)i;
    q->key = (int)i;
    if (i % 3125 == 0)
      keep[kept++] = q;
    else
      free((char *)q);
    drop(p);
  }
  for (i = 0; i < kept; i++) {
    printf("%d%c", keep[i]->key, i + 1 < kept ? ' ' : '\n');
    free((void *)keep[i]);
  }
  free((void *)keep);
  puts("ok");
  return 0;
}
// REWRITE: cp_free((void *)p);
// REWRITE: cp_free((char *)q);
// REWRITE: cp_root_array_free((void **)((void *)keep));
// CHECK: 0 3125 6250
// CHECK: ok
// SWITCH: compactptr: switch to wide mode{{.*}}verified
// SWITCH: node {{ *}}8 {{ *}}16 {{ *}}0 {{ *}}
