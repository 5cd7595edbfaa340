// A cleanup function receives its variable's address where no `&` is
// written: for a value of compact type on the stack, a compact pointer to
// a stack object, which the function would read in the compact layout.
// Refused in the modes with handles (wide mode keeps one layout).  A
// cleanup of a compact-pointer variable receives a `T **`: fine.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify=err %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Xclang -verify=err %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=wide -fsyntax-only -Xclang -verify=ok %s
// ok-no-diagnostics
#include <compactptr.h>
#include <stdlib.h>

struct CP_COMPACT node {
  long key;
  struct node *next;
};

static long seen;
static void done(struct node *n) { seen += n->key; }
static void drop(struct node **pp) { free(*pp); }

long f(void) {
  struct node *owned __attribute__((cleanup(drop))) = malloc(sizeof *owned);
  owned->key = 1;
  {
    struct node local __attribute__((cleanup(done))) = {2, 0}; // err-error {{the cleanup function 'done' receives the address of 'local' as a compact pointer}}
  }
  return seen;
}
