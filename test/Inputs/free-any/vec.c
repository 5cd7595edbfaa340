/* A generic vector in a translation unit of its own that never sees a
 * compact type: its items are `void *`, grown and freed with realloc and
 * free.  Built with the plugin and including compactptr.h (HOOKED), or as
 * plain C without the header. */
#ifdef HOOKED
#include <compactptr.h>
#endif
#include <stdlib.h>

struct vec {
  void *items;
  size_t n, cap;
};

void vec_reserve(struct vec *v, size_t cap, size_t elem) {
  void *items = realloc(v->items, cap * elem);
  if (!items)
    exit(3);
  v->items = items;
  v->cap = cap;
}

void vec_release(struct vec *v) {
  free(v->items);
  v->items = NULL;
  v->n = v->cap = 0;
}
