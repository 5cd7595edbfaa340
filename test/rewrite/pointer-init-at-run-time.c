// The textbook red-black tree's sentinel: a static node whose address is
// the tree's NIL, and the root initialized to it.  The sentinel lives in
// the compact heap (its address is a compact pointer), so its address
// exists only at run time: the pointer's initializer moves to a
// constructor of the file, which runs before main and before the
// program's own constructors.
// RUN: %rewrite --main-only %s -- %cflags > %t.c
// RUN: FileCheck %s < %t.c
// RUN: %clang %cflags -O2 -Wall -Werror %s -o %t.native && %t.native > %t.native.out
// RUN: grep "in a constructor 1," %t.native.out
// RUN: %clang %cflags -O2 -Wall -Werror -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.compact
// RUN: %t.compact | diff %t.native.out -
// RUN: %clang %cflags -O2 -Wall -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.native.out -
// RUN: FileCheck --check-prefix=SWITCH %s < %t.err
// SWITCH: compactptr: switch to wide mode (high-water mark) {{.*}}, verified
// CHECK: static struct tnode *root;
// CHECK: static struct tnode *cursor, *spare;
// CHECK: static __attribute__((constructor(101), used)) void cp__init_root(void) { root = {{.*}}cp__box_get_nil_node(){{.*}}; }
// CHECK: static __attribute__((constructor(101), used)) void cp__init_spare(void) { spare = {{.*}}cp__box_get_nil_node(){{.*}}; }
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT tnode {
  int key;
  struct tnode *left, *right, *parent;
};

static struct tnode nil_node = {0, &nil_node, &nil_node, &nil_node};
#define NIL (&nil_node)
static struct tnode *root = NIL;
static struct tnode *cursor, *spare = NIL; /* one of two declarators */

/* A constructor of the program's sees root set: the plugin's runs first. */
static int root_was_nil;
__attribute__((constructor)) static void early(void) { root_was_nil = root == NIL; }

static void insert(int key) {
  struct tnode *z = malloc(sizeof *z), *y = NIL, *x = root;
  z->key = key;
  z->left = z->right = NIL;
  while (x != NIL) {
    y = x;
    x = key < x->key ? x->left : x->right;
  }
  z->parent = y;
  if (y == NIL)
    root = z;
  else if (key < y->key)
    y->left = z;
  else
    y->right = z;
}

static long walk(const struct tnode *t, int depth) {
  if (t == NIL)
    return 0;
  return walk(t->left, depth + 1) + (long)t->key * depth + walk(t->right, depth + 1);
}

int main(void) {
  cursor = root; /* the sentinel, before the first insert */
  for (int i = 0; i < 30000; i++)
    insert((int)((unsigned)i * 2654435761u % 100003u));
  printf("empty at start %d, in a constructor %d, spare is nil %d, weighted sum %ld\n",
         cursor == NIL, root_was_nil, spare == NIL, walk(root, 1));
  return 0;
}
