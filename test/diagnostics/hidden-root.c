// Switchable mode saves the compact-pointer locals live across a call that
// may reach a safepoint by name.  Where an inner declaration hides a live
// one, the saving text cannot name it: refused at the call, "rename one of
// them".  A hidden variable that is dead across the call (the CFG says no
// later read) needs no saving: accepted -- placing the frame of slots once
// took every use in the function for a use in the call's expression and
// refused it.  The accepted program prints what the native build prints,
// switching mid-run.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=switchable -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -DACCEPTED -O1 %s -o %t.native && %t.native > %t.native.out
// RUN: %clang %cflags -DACCEPTED -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_STATS=1 COMPACTPTR_VERIFY=1 %t > %t.out 2> %t.err
// RUN: diff %t.native.out %t.out && grep -q "switch to wide mode" %t.err
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node { long key; struct node *next; };

// The outer `p` is dead once the inner block starts.
static struct node *dead_outer(struct node *h, long k) {
  struct node *p = h;
  p->key = k;
  {
    struct node *p;
    p = malloc(sizeof *p);
    p->key = k + 1;
    p->next = h;
    h = p;
  }
  return h;
}

#ifndef ACCEPTED
// The outer `p` is read after the inner block: live, and hidden.
static struct node *live_outer(struct node *h, long k) {
  struct node *p = h;
  {
    struct node *p;
    p = malloc(sizeof *p); // expected-error {{'p' holds a compact pointer across this call, which may reach a safepoint, but an inner declaration of the same name hides it here; rename one of them}}
    p->key = k;
    p->next = h;
    h = p;
  }
  p->key += 1;
  return h;
}
#endif

int main(void) {
  struct node *h = calloc(1, sizeof *h), *p;
  long i, s = 0;
  for (i = 0; i < 30000; i++)
    h = dead_outer(h, i);
#ifndef ACCEPTED
  h = live_outer(h, 1);
#endif
  for (p = h; p; p = p->next)
    s += p->key;
  printf("%ld\n", s);
  return 0;
}
