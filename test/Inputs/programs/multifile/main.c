/* main.c - multi-file program: builds polygons through shapes.c, computes
 * perimeters with the header's static inline functions, reverses them
 * through a CP_SAFEPOINT function of the other translation unit, deletes
 * some from the shared global list, and frees everything.
 * Build: cc main.c shapes.c.   Usage: multifile [n]   (default 500) */
#include "shapes.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  long n = argc > 1 ? strtol(argv[1], NULL, 10) : 500;
  unsigned seed = 2024u;
  long i, per = 0, per2 = 0, removed = 0;
  struct poly *p, *prev;
  if (n < 2) n = 2;

  for (i = 0; i < n; i++) poly_new((int)i, 3 + (int)(i % 6), &seed);
  for (p = g_polys; p; p = p->next) per += poly_perimeter(p);
  printf("polys=%ld perimeter=%ld\n", polys_check(), per);

  polys_reverse_all();
  for (p = g_polys; p; p = p->next) per2 += poly_perimeter(p);
  printf("reversed check=%ld perimeter=%ld same=%d first.seg.owner.id=%d\n",
         polys_check(), per2, per == per2, g_polys->first->owner->id);

  /* delete every polygon whose id is a multiple of 3 */
  prev = NULL;
  for (p = g_polys; p;) {
    struct poly *nx = p->next;
    if (p->id % 3 == 0) {
      if (prev) prev->next = nx;
      else g_polys = nx;
      poly_free(p);
      removed++;
    } else {
      prev = p;
    }
    p = nx;
  }
  per = 0;
  for (p = g_polys; p; p = p->next) per += poly_perimeter(p);
  printf("removed=%ld check=%ld perimeter=%ld\n", removed, polys_check(), per);
  while (g_polys) {
    p = g_polys->next;
    poly_free(g_polys);
    g_polys = p;
  }
  return 0;
}
