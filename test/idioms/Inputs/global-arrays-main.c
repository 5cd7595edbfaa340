/* Walks the table another translation unit defines (global-arrays.test). */
#include "global-arrays-table.h"
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
  long n = argc > 1 ? atol(argv[1]) : 30000, sum = 0, owned = 0;
  for (long k = 0; k < n; k++)
    table_add(k * 5);
  for (int i = 0; i < TABLE_SIZE; i++) {
    struct slot *s = &table[i];
    for (struct item *it = s->items; it; it = it->next) {
      sum += it->key % 977 * (i + 1);
      owned += it->owner == s;
    }
  }
  printf("sum %ld, owned %ld of %ld\n", sum, owned, n);
  return 0;
}
