// A for statement that declares an array of compact pointers (or of
// pointers to handle fields) with an initializer list: in a checked
// function the declaration moves before the loop, zeroed and registered
// in a frame, and its list is rewritten element by element (a list as one
// expression chosen between the layouts did not compile).  Native output
// compact-only, switchable, and across a switch inside the loop.
// REQUIRES: plugin
// RUN: %clang %cflags -O1 %s -o %t.native
// RUN: %t.native > %t.expect
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co
// RUN: %t.co | diff %t.expect -
// RUN: %t | diff %t.expect -
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: grep -q 'switch to wide mode.*verified' %t.err
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  long key;
  struct node *l, *r;
};

static struct node *make(long k) {
  struct node *n = calloc(1, sizeof *n);
  n->key = k;
  return n;
}

static long weave(struct node *root, long rounds) {
  long sum = 0;
  for (struct node *pair[2] = {root->l, root->r}; rounds > 0; rounds--) {
    struct node *n = make(rounds);
    n->l = pair[rounds & 1];
    pair[rounds & 1] = n;
    sum += n->l ? n->l->key : 0;
  }
  return sum;
}

static long hang(struct node *root, long rounds) {
  long sum = 0;
  for (struct node **at[2] = {&root->l, &root->r}; rounds > 0; rounds--) {
    struct node *n = make(rounds);
    n->r = *at[rounds & 1];
    *at[rounds & 1] = n;
    at[rounds & 1] = &n->l;
    sum += n->r ? n->r->key : -1;
  }
  return sum;
}

int main(void) {
  struct node *root = make(0);
  root->l = make(1);
  root->r = make(2);
  printf("%ld\n", weave(root, 20000));
  printf("%ld\n", hang(root, 20000));
  return 0;
}
