/* The translation unit that defines the table (global-arrays.test). */
#include "global-arrays-table.h"
#include <stdlib.h>

struct slot table[TABLE_SIZE];

void table_add(long key) {
  struct slot *s = &table[key % TABLE_SIZE];
  struct item *it = malloc(sizeof *it);
  it->key = key;
  it->owner = s;
  it->next = s->items;
  s->items = it;
}
