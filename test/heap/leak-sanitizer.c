// A program built with -fsanitize=address runs under LeakSanitizer, which
// scans globals, stacks and malloc'd blocks but not the runtime's mapped
// metadata: the runtime registers those mappings as root regions, so its
// own blocks (copy programs, slab headers) are not reported at exit, in
// compact mode and after the switch, while a leak of the program's own is.
// REQUIRES: plugin
// RUN: %clang %cflags -O1 %s -o %t.native && %t.native > %t.expected
// RUN: %clang %cflags -O1 -fsanitize=address -fplugin=%plugin %s %runtime -o %t
// RUN: env ASAN_OPTIONS=detect_leaks=1 %t > %t.out
// RUN: diff %t.expected %t.out
// RUN: env ASAN_OPTIONS=detect_leaks=1 COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_HIGH_WATER=50 COMPACTPTR_STATS=1 %t > %t.out 2> %t.err
// RUN: diff %t.expected %t.out
// RUN: FileCheck --check-prefix=SWITCHED %s < %t.err
// SWITCHED: compactptr: switch to wide mode
// RUN: env ASAN_OPTIONS=detect_leaks=1 not %t leak 2>&1 | FileCheck --check-prefix=LEAK %s
// LEAK: ERROR: LeakSanitizer: detected memory leaks
// LEAK: Direct leak of 4096 byte(s) in 1 object(s)
// LEAK-NOT: descriptor.c
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT node {
  short tag;
  struct node *next;
  struct node *kids[2];
};

static void *volatile kept;

int main(int argc, char **argv) {
  struct node *head = NULL;
  long sum = 0;
  for (int i = 0; i < 60000; i++) {
    struct node *n = malloc(sizeof *n);
    n->tag = (short)(i % 1000);
    n->next = head;
    n->kids[0] = head;
    n->kids[1] = NULL;
    head = n;
  }
  for (struct node *p = head; p; p = p->next)
    sum += p->tag + (p->kids[0] ? 1 : 0);
  while (head) {
    struct node *next = head->next;
    free(head);
    head = next;
  }
  if (argc > 1 && !strcmp(argv[1], "leak")) {
    kept = malloc(4096);
    kept = NULL; /* the program's own leak: LeakSanitizer must see it */
  }
  printf("sum %ld\n", sum);
  return 0;
}
