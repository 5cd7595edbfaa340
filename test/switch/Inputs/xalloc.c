/* A malloc wrapper in a file of its own, built like the rest. */
#include <stdlib.h>

void *xalloc(size_t n) {
  void *p = malloc(n);
  if (!p)
    abort();
  return p;
}
