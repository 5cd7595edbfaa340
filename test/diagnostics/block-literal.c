// A block literal's body (clang's -fblocks) is not rewritten, so every use
// of a compact type inside one is refused, in every mode, at the first
// such use: a field read (the compact layout is not the wide one), a
// compact pointer captured or passed in, an allocation, the size of a
// compact struct.  A block that never touches a compact type is fine, and
// so is a function the block calls.
// REQUIRES: plugin
// RUN: %clang %cflags -fblocks -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -fblocks -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -fblocks -fplugin=%plugin -fplugin-arg-compactptr-mode=wide -fsyntax-only -Xclang -verify %s
#include <compactptr.h>
#include <stdlib.h>

struct CP_COMPACT node {
  int v;
  struct node *next;
};

static int total(struct node *p) {
  int s = 0;
  for (; p; p = p->next)
    s += p->v;
  return s;
}

int blocks(struct node *h, int k) {
  int (^sum)(struct node *) = ^(struct node *p) {
    int s = 0;
    for (; p; p = p->next) // expected-error {{compact types are not rewritten inside a block literal (this expression is of, or reads through, compact type 'struct node')}}
      s += p->v;
    return s;
  };
  int (^len)(void) = ^{
    return h ? 1 : 0; // expected-error {{compact types are not rewritten inside a block literal}}
  };
  void *(^make)(void) = ^{
    return (void *)malloc(sizeof(struct node)); // expected-error {{compact types are not rewritten inside a block literal}}
  };
  int (^outer)(void) = ^{
    int (^inner)(void) = ^{
      return h->v; // expected-error {{compact types are not rewritten inside a block literal}}
    };
    return inner();
  };
  int (^plain)(int) = ^(int x) { return x * k; };
  int (^through)(void) = ^{ return total(0) + k; };
  return sum(h) + len() + (make() != 0) + outer() + plain(2) + through();
}
