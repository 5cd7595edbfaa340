/* A table of slots shared by two translation units: one defines it, the
 * other knows it only by an extern declaration of unknown size. */
#include <compactptr.h>
#define TABLE_SIZE 37
struct CP_COMPACT item {
  long key;
  struct item *next;
  struct slot *owner;
};
struct CP_COMPACT slot {
  struct item *items;
};
extern struct slot table[];
void table_add(long key);
