// A thread-local holding compact pointers is not a root: the switch would
// leave it pointing into the released arena.  Refused in switchable mode;
// without a switch (compact-only) it holds native addresses that stay
// valid: accepted.
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Xclang -verify=ok %s
// ok-no-diagnostics
#include <compactptr.h>
#include <stdlib.h>

struct CP_COMPACT node {
  int key;
  struct node *next;
};

static _Thread_local struct node *head; // expected-error {{thread-local 'head' holds pointers to compact type 'struct node'; thread-locals are not roots, so the switch would not translate it}}
__thread struct node *spare[2]; // expected-error {{thread-local 'spare' holds pointers to compact type 'struct node'}}
static _Thread_local int plain_counter; // no compact pointer: fine

int push(int k) {
  struct node *n = malloc(sizeof *n);
  n->key = k;
  n->next = head;
  head = n;
  return ++plain_counter;
}
