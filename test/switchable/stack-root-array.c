// Stack memory holding compact pointers that no frame can register -- an
// array compound literal, alloca memory -- in a function that reaches a
// safepoint: a switch while it lives would leave what it holds pointing
// into the released arena.  An error, with the way out (a named local
// array is registered in the frame).  In a function that reaches no
// safepoint it is fine: no switch can happen while it lives.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Werror %s
#include <alloca.h>
#include <compactptr.h>
#include <stdlib.h>

struct CP_COMPACT node { int key; struct node *next; };

static struct node *mk(int k) {
  struct node *n = malloc(sizeof *n);
  n->key = k;
  n->next = 0;
  return n;
}

static int sum(struct node **v, int n) {
  int s = 0;
  for (int i = 0; i < n; i++)
    s += v[i]->key;
  return s;
}

int no_safepoint(struct node *a, struct node *b) {
  struct node **t = alloca(2 * sizeof *t); // fine: no safepoint while it lives
  t[0] = a;
  t[1] = b;
  return sum((struct node *[]){a, b}, 2) + sum(t, 2);
}

int main(int argc, char **argv) {
  (void)argv;
  struct node *named[2]; // registered in the frame
  named[0] = mk(1);
  named[1] = mk(2);
  int s = sum(named, 2);
  s += sum((struct node *[]){mk(3), mk(4)}, 2); // expected-error {{this compound literal holds pointers to compact type 'struct node' in a function that reaches a safepoint; no frame can register it as a root, so the switch would not translate them (declare it as a named local array)}}
  struct node **t = __builtin_alloca(argc * sizeof(struct node *)); // expected-error {{this alloca memory holds pointers to compact type 'struct node' in a function that reaches a safepoint; no frame can register it as a root, so the switch would not translate them (use a named local array, or a root array: malloc(n * sizeof(struct node *)))}}
  t[0] = mk(5);
  return s + sum(t, 1) + no_safepoint(named[0], named[1]);
}
