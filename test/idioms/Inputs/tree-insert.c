/* Insert into and delete from a binary tree through `struct node **`
 * that walks down handle fields (`pp = &(*pp)->left`), without special-
 * casing the root: the example of docs/plugin.md, section 4b.
 * Usage: tree-insert [keys]            (default 100000) */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node { int key; struct node *left, *right; };

static void insert(struct node **root, int key) {
  struct node **pp = root;
  while (*pp) pp = key < (*pp)->key ? &(*pp)->left : &(*pp)->right;
  *pp = calloc(1, sizeof **pp);
  (*pp)->key = key;
}

static void remove_min(struct node **pp) {
  while ((*pp)->left) pp = &(*pp)->left;
  struct node *dead = *pp; *pp = dead->right; free(dead);
}

static long sum(struct node *t) { return t ? t->key + sum(t->left) + sum(t->right) : 0; }

static void free_all(struct node *t) {
  if (!t)
    return;
  free_all(t->left);
  free_all(t->right);
  free(t);
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 100000;
  struct node *root = NULL;
  for (int i = 0; i < n; i++) insert(&root, (int)((i * 2654435761u) % 1000003));
  for (int i = 0; i < n / 100; i++) remove_min(&root);
  printf("%ld\n", sum(root));
  free_all(root);
  return 0;
}
