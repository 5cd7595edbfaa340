// longjmp out of functions that pushed shadow-stack frames (checked code
// holding compact pointers across an allocation) or entered compact bodies
// skips their exits: before, their frames stayed on the thread's chain and
// the next switch walked dead stack memory (a segfault, or a hang reading
// a garbage root descriptor), and a compact body's count stayed raised
// (every later safepoint deferred).  The setjmp call now puts both back as
// they were when it first returned.
// - parse: an interpreter's error recovery; a recursive builder raises an
//   error from deep inside, after allocating, 1 time in 9; sigsetjmp in a
//   loop; the switch comes in the middle of the run;
// - deep: one longjmp from 200 frames down, then the stack is reused and
//   the switch comes later, in main;
// - body: longjmp out of a walk compiled as a compact body, then a loop
//   that must still switch (not defer forever).
// REQUIRES: plugin
// RUN: %clang %cflags -O2 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %clang %cflags -O2 %s -o %t.native
// RUN: %t.native parse > %t.expect-parse
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_STATS=1 %t parse 2> %t.err | diff %t.expect-parse -
// RUN: grep -q 'switch to wide mode' %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_VERIFY=1 %t parse | diff %t.expect-parse -
// RUN: FileCheck --check-prefix=PARSE %s < %t.expect-parse
// RUN: %t.native deep > %t.expect-deep
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_STATS=1 %t deep 2> %t.err | diff %t.expect-deep -
// RUN: grep -q 'switch to wide mode' %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 %t deep | diff %t.expect-deep -
// RUN: %t.native body > %t.expect-body
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_STATS=1 %t body 2> %t.err | diff %t.expect-body -
// RUN: grep -q 'switch to wide mode' %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 %t body | diff %t.expect-body -
#include <compactptr.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT expr {
  int op; // 0: leaf, 1: add, 2: mul
  long val;
  struct expr *lhs, *rhs;
};

static sigjmp_buf recover;
static const char *why;

static struct expr *leaf(long v) {
  struct expr *e = malloc(sizeof *e);
  e->op = 0;
  e->val = v;
  e->lhs = e->rhs = NULL;
  return e;
}

// Builds a tree of the given depth from seed; an error (seed % 9 == 4 at
// depth 2) jumps back to the loop after half the tree was allocated.
static struct expr *parse(int depth, unsigned seed) {
  if (depth == 0)
    return leaf(seed % 10);
  struct expr *e = malloc(sizeof *e);
  e->op = 1 + (int)(seed & 1);
  e->lhs = parse(depth - 1, seed * 7 + 1);
  if (depth == 2 && seed % 9 == 4) {
    why = "unexpected token";
    siglongjmp(recover, 1);
  }
  e->rhs = parse(depth - 1, seed * 11 + 3);
  return e;
}

static long eval(const struct expr *e) {
  if (e->op == 0)
    return e->val;
  long a = eval(e->lhs), b = eval(e->rhs);
  return e->op == 1 ? a + b : (a * b) % 1000003;
}

static int run_parse(void) {
  long total = 0;
  int ok = 0, errors = 0;
  for (unsigned i = 0; i < 4000; i++) {
    if (sigsetjmp(recover, 0)) {
      errors++;
      continue;
    }
    total += eval(parse(5, i));
    ok++;
  }
  printf("parse ok=%d errors=%d total=%ld last=%s\n", ok, errors, total, why);
  return 0;
}
// PARSE: parse ok=

static jmp_buf out;
static struct expr *kept;

static long dive(int n) {
  struct expr *mine = leaf(n); // held across the next call: a frame
  long below = n ? dive(n - 1) : 0;
  if (n == 0)
    longjmp(out, 1);
  return below + mine->val;
}

static void scribble(int n) { // reuses the stack the frames were on
  volatile char pad[64];
  memset((char *)pad, 0x5a, sizeof pad);
  if (n)
    scribble(n - 1);
}

static int run_deep(void) {
  if (setjmp(out) == 0)
    dive(200);
  scribble(300);
  long s = 0;
  for (int i = 0; i < 30000; i++) {
    kept = leaf(i);
    s += kept->val;
  }
  printf("deep %ld\n", s);
  return 0;
}

// A walk that reaches no safepoint it can see, calling code through a
// pointer: a compact body whose entry is counted, left by longjmp.
static long (*weigh)(long);
static long weight(long v) { return v & 1; }
static long find(const struct expr *e, long v) {
  if (!e)
    return 0;
  if (e->op == 0 && e->val == v)
    longjmp(out, 1);
  return find(e->lhs, v) + find(e->rhs, v) + weigh(e->val);
}

static int run_body(void) {
  struct expr *t = parse(4, 3);
  volatile int found = 0;
  weigh = weight;
  if (setjmp(out) == 0)
    find(t, t->lhs->lhs->lhs->lhs->val);
  else
    found = 1;
  long s = 0;
  for (int i = 0; i < 30000; i++) {
    kept = leaf(i);
    s += kept->val;
  }
  printf("body found=%d %ld %ld\n", found, s, eval(t));
  return 0;
}

int main(int argc, char **argv) {
  const char *what = argc > 1 ? argv[1] : "";
  if (!strcmp(what, "parse"))
    return run_parse();
  if (!strcmp(what, "deep"))
    return run_deep();
  if (!strcmp(what, "body"))
    return run_body();
  fprintf(stderr, "usage: longjmp-skips-frames parse|deep|body\n");
  return 2;
}
