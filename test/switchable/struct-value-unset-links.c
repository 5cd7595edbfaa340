// A struct value whose links are set only up to a count (Thompson's NFA
// fragments: `struct frag { int n; struct state *out[8]; }`), stored whole
// into the heap.  C lets a struct with members never set be copied, and the
// program never reads them; the store encoded every member with the check
// that stops the program ("pointer ... stored into a compact field is not
// aligned", exit 70, at -O2 even for a value that was representable: the
// compiler may take an indeterminate value's branch either way).  A value
// stored whole now keeps any member no handle can represent as a poisoned
// handle (below the arena: following it stops the program with a line
// that says so), and the switch and the verifier leave it as it is.  Here the unset members hold a byte pattern
// and a stack address, so the run is the same every time.
// RUN: %clang %cflags -O2 -Wall -Werror %s -o %t.native && %t.native > %t.native.out
// RUN: %clang %cflags -O2 -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.compact
// RUN: %t.compact | diff %t.native.out -
// RUN: %clang %cflags -O2 -fplugin=%plugin %s %runtime -o %t
// RUN: %t | diff %t.native.out -
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 20000 2> %t.err > %t.out
// RUN: %t.native 20000 | diff - %t.out
// RUN: FileCheck %s < %t.err
// RUN: %clang %cflags -O0 -fplugin=%plugin %s %runtime -o %t.O0
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 %t.O0 20000 | diff - %t.out
// RUN: not %t.compact follow 2>&1 | FileCheck --check-prefix=FOLLOW %s
// RUN: env COMPACTPTR_DEBUG=1 %t.compact 2>&1 >/dev/null | FileCheck --check-prefix=DEBUG %s
// CHECK: compactptr: switch to wide mode (high-water mark) {{.*}}, verified
// Following a member that was never set (undefined natively) stops with a
// line that says what it is, where a plain fault would say nothing.
// FOLLOW: compactptr: a link that names no object was followed (an access at 0x80{{[0-9a-f]+}}, by the instruction at {{.*}}): a struct value stored whole into the heap had a pointer there that no handle can represent
// DEBUG: compactptr: debug: a struct value stored whole into the heap holds 0xabababababababab, which no handle can represent: stored as a link to 0x8000
#include <compactptr.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT state {
  int c;
  struct state *out;
};

/* Compact by inference: it holds compact pointers. */
struct frag {
  int n;
  struct state *out[8];
};

static struct frag single(struct state *s, const void *junk) {
  struct frag f;
  memset(&f, 0xab, sizeof f); /* the members past n: never read */
  uintptr_t a = (uintptr_t)junk;
  memcpy(&f.out[3], &a, sizeof a);
  f.n = 1;
  f.out[0] = s;
  return f;
}

int main(int argc, char **argv) {
  int follow = argc > 1 && strcmp(argv[1], "follow") == 0;
  int n = argc > 1 && !follow ? atoi(argv[1]) : 10;
  int on_stack = 0;
  long sum = 0;
  struct frag *v = malloc(n * sizeof *v);
  for (int i = 0; i < n; i++) {
    struct state *s = malloc(sizeof *s);
    s->c = i;
    s->out = i > 0 ? v[i - 1].out[0] : NULL;
    v[i] = single(s, &on_stack);
  }
  for (int i = 0; i < n; i++)
    for (int k = 0; k < v[i].n; k++)
      sum += v[i].out[k]->c + (v[i].out[k]->out ? 1 : 0);
  if (follow)
    sum += v[0].out[1]->c; /* never set */
  printf("frags %d sum %ld\n", n, sum);
  free(v);
  return 0;
}
