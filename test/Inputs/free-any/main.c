/* A root array of node pointers handed to vec.c, which grows and frees it
 * as `void *`. */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  long v;
  struct node *next;
};
struct vec {
  void *items;
  size_t n, cap;
};
void vec_reserve(struct vec *v, size_t cap, size_t elem);
void vec_release(struct vec *v);

int main(void) {
  struct vec v = {0, 0, 0};
  v.items = malloc(2 * sizeof(struct node *)); /* a root array */
  v.cap = 2;
  for (long i = 0; i < 100; i++) {
    if (v.n == v.cap)
      vec_reserve(&v, 2 * v.cap, sizeof(struct node *));
    struct node *n = malloc(sizeof *n);
    n->v = i;
    n->next = NULL;
    ((struct node **)v.items)[v.n++] = n;
  }
  cp_switch_to_wide();
  long s = 0;
  for (size_t i = 0; i < v.n; i++) {
    s += ((struct node **)v.items)[i]->v;
    free(((struct node **)v.items)[i]);
  }
  vec_release(&v);
  printf("%ld\n", s);
  return 0;
}
