// A local that a checked function registers by address (an array of
// compact pointers, of pointers to handle fields) is pushed in a frame
// that a cleanup pops at the end of its block, and C lets no jump enter
// that block past such a declaration: a case label after it in a switch
// body, or a label after it that a goto (GNU C's `goto *p` too) before it
// or outside names, is refused at the
// declaration with what to do, instead of the rewritten file failing to
// compile.  Jumps that do not enter its scope past it are fine.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
#include <compactptr.h>
#include <stdlib.h>

struct CP_COMPACT node { int key; struct node *l, *r; };

static struct node *make(int k) {
  struct node *n = calloc(1, sizeof *n);
  n->key = k;
  return n;
}

int in_switch(struct node *root, int op) {
  switch (op) {
    struct node **path[2]; // expected-error {{'path' holds compact pointers in a function that reaches a safepoint, so it is registered in a frame that a cleanup pops at the end of its block, and a case label after it in that block is jumped to from before it or outside the block, which C does not allow past such a declaration; declare it before the switch statement or the jump, or in a block of its own}}
  case 0:
    path[0] = &root->l;
    *path[0] = make(5);
    return (*path[0])->key;
  default:
    return 0;
  }
}

int forward_goto(struct node *root, int skip) {
  if (skip)
    goto done;
  {
    struct node *keep[2] = {root->l, root->r}; // expected-error {{and label 'done' after it in that block is jumped to from before it or outside the block}}
    root->l = make(1);
    root->r = keep[0];
  done:
    return root->l ? root->l->key : 0;
  }
}

int computed_goto(struct node *root, int k) {
  static void *const targets[] = {&&first, &&second};
  goto *targets[k & 1];
first:
  return 0;
  {
    struct node *keep[2] = {root->l, root->r}; // expected-error {{and label 'second' after it in that block is jumped to from before it or outside the block}}
    root->l = make(4);
  second:
    return keep[0] ? keep[0]->key : 1;
  }
}

// Fine: the array before the switch, a backward jump, a switch inside
// the array's own block.
int fine(struct node *root, int op) {
  struct node *keep[2] = {root->l, root->r};
again:
  switch (op) {
  case 0:
    root->l = make(2);
    break;
  default:
    op = 0;
    goto again;
  }
  {
    struct node **at[1] = {&root->r};
    switch (op) {
    case 0:
      *at[0] = make(3);
      break;
    }
  }
  return keep[0] ? keep[0]->key : root->l->key;
}
