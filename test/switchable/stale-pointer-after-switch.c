// A compact pointer kept where the switch cannot see it -- here as a
// 'void *' in a stack of libc memory, which the plugin warns about
// (void-escape) -- and used after the switch: the compact arena's range
// stays reserved and inaccessible after the switch, so the use faults
// there, never reads memory mapped there since, and the runtime says so
// in one line with exit status 70 instead of a bare segmentation fault,
// naming the faulting instruction as an offset in its file that addr2line
// turns into the function (and line, with -g).
// Without a switch the program runs as natively.  A fault elsewhere keeps
// its own meaning (the default action: a crash, not this message).  What
// the program printed before the fault goes out first (stdout to a file
// is buffered: before, it was lost to the exit).
// REQUIRES: plugin
// RUN: %clang %cflags -O1 %s -o %t.native && %t.native > %t.expected
// RUN: %clang %cflags -O1 -fplugin=%plugin %s %runtime -o %t 2> %t.warnings
// RUN: FileCheck --check-prefix=WARN %s < %t.warnings
// RUN: %t | diff %t.expected -
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_HIGH_WATER=10 sh -c '%t; echo "exit $?"' > %t.out 2>&1
// RUN: FileCheck --check-prefix=STALE %s < %t.out
// RUN: sh -c "$(sed -n 's/.*: \(addr2line -fie [^)]*\)).*/\1/p' %t.out)" | FileCheck --check-prefix=PC %s
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_HIGH_WATER=10 COMPACTPTR_STATS=1 not --crash %t wild 2>&1 | FileCheck --check-prefix=WILD %s
// WARN: warning: a compact pointer to 'struct tn' is passed as 'void *' to 'spush'
// STALE: {{^}}tree built{{$}}
// STALE-NEXT: compactptr: a compact pointer was used after the switch to wide mode (an access at 0x{{[0-9a-f]+}}, in the released compact arena, by the instruction at 0x{{[0-9a-f]+}} in {{.*}}.tmp: addr2line -fie {{.*}}.tmp 0x{{[0-9a-f]+}}): it was kept where the switch could not translate it
// PC: {{^}}main{{$}}
// STALE-NEXT: exit 70
// WILD-NOT: compactptr: a compact pointer was used
// WILD: compactptr: switch to wide mode
// WILD-NOT: compactptr: a compact pointer was used
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct stack { void **items; size_t n, cap; };

static void spush(struct stack *s, void *p) {
  if (s->n == s->cap) {
    s->cap = s->cap ? 2 * s->cap : 16;
    s->items = realloc(s->items, s->cap * sizeof *s->items);
  }
  s->items[s->n++] = p;
}

static void *spop(struct stack *s) { return s->n ? s->items[--s->n] : NULL; }

struct CP_COMPACT tn { long v; struct tn *l, *r; };

static struct tn *mk(int d, long v) {
  if (!d)
    return NULL;
  struct tn *t = malloc(sizeof *t);
  t->v = v;
  t->l = mk(d - 1, 2 * v);
  t->r = mk(d - 1, 2 * v + 1);
  return t;
}

int main(int argc, char **argv) {
  struct stack s = {0};
  struct tn *root = mk(12, 1); // 4095 nodes: the switch comes in the next build
  if (argc > 1 && !strcmp(argv[1], "wild")) {
    // A switch with nothing stale, then a fault that is not the runtime's.
    root->l = mk(13, 0);
    *(volatile long *)(uintptr_t)8 = root->l->v;
  }
  printf("tree built\n");
  long sum = 0;
  int extra = 0;
  spush(&s, root);
  while (s.n) {
    struct tn *t = spop(&s);
    sum += t->v;
    if (t->l)
      spush(&s, t->l);
    if (t->r)
      spush(&s, t->r);
    if (!extra++) // the stack holds compact pointers while this allocates
      spush(&s, mk(13, 0));
  }
  printf("%ld\n", sum);
  return 0;
}
