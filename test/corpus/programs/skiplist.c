/* skiplist.c - skip lists, after William Pugh's reference implementation.
 *
 * In the style of Pugh's "skipLists.c" and the many programs derived from
 * it: nodes end in a one-element array of forward pointers that is really
 * as long as the node's level (the "struct hack": the allocation size is
 * `sizeof(struct nodeStructure) + level * sizeof(node)`, made by a macro),
 * one global sentinel node NIL with the largest key ends every level, the
 * list header is a node of the maximum level, and insert and delete keep
 * an `update[]` array of the last node visited on each level.  Random
 * levels come from a bit buffer refilled from random().  Shapes: a
 * variable-length trailing array of node pointers, an allocation macro, a
 * global node whose address is a node pointer, typedef'd pointer types,
 * lower-case macros for true/false.
 *
 * Usage: skiplist [n]       (default 100000)
 */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

#define false 0
#define true 1
typedef char boolean;
#define BitsInRandom 31

#define MaxNumberOfLevels 16
#define MaxLevel (MaxNumberOfLevels - 1)
#define newNodeOfLevel(l) (node)malloc(sizeof(struct nodeStructure) + (l) * sizeof(node))

typedef int keyType;
typedef int valueType;

typedef struct nodeStructure *node;

typedef struct CP_COMPACT nodeStructure {
  keyType key;
  valueType value;
  node forward[1];              /* variable sized array of forward pointers */
} nodeStructure;

typedef struct listStructure {
  int level;                    /* Maximum level of the list (1 more than the number of levels in the list) */
  struct nodeStructure *header; /* pointer to header */
} *list;

static struct nodeStructure NIL_node = { 0x7fffffff, 0, { NULL } };
#define NIL (&NIL_node)

static int randomsLeft;
static long randomBits;

static void init(void)
{
  srandom(1);
  randomBits = random();
  randomsLeft = BitsInRandom / 2;
}

static list newList(void)
{
  list l;
  int i;

  l = (list)malloc(sizeof(struct listStructure));
  l->level = 0;
  l->header = newNodeOfLevel(MaxNumberOfLevels);
  for (i = 0; i < MaxNumberOfLevels; i++)
    l->header->forward[i] = NIL;
  return l;
}

static void freeList(list l)
{
  node p, q;

  p = l->header;
  do {
    q = p->forward[0];
    free(p);
    p = q;
  } while (p != NIL);
  free(l);
}

static int randomLevel(void)
{
  int level = 0;
  int b;

  do {
    b = randomBits & 3;
    if (!b)
      level++;
    randomBits >>= 2;
    if (--randomsLeft == 0) {
      randomBits = random();
      randomsLeft = BitsInRandom / 2;
    }
  } while (!b);
  return level > MaxLevel ? MaxLevel : level;
}

static boolean insert(list l, keyType key, valueType value)
{
  int k;
  node update[MaxNumberOfLevels];
  node p, q;

  p = l->header;
  k = l->level;
  do {
    while (q = p->forward[k], q->key < key)
      p = q;
    update[k] = p;
  } while (--k >= 0);

  if (q->key == key) {
    q->value = value;
    return false;
  }

  k = randomLevel();
  if (k > l->level) {
    k = ++l->level;
    update[k] = l->header;
  }
  q = newNodeOfLevel(k);
  q->key = key;
  q->value = value;
  do {
    p = update[k];
    q->forward[k] = p->forward[k];
    p->forward[k] = q;
  } while (--k >= 0);
  return true;
}

static boolean delete(list l, keyType key)
{
  int k, m;
  node update[MaxNumberOfLevels];
  node p, q;

  p = l->header;
  k = m = l->level;
  do {
    while (q = p->forward[k], q->key < key)
      p = q;
    update[k] = p;
  } while (--k >= 0);

  if (q->key == key) {
    for (k = 0; k <= m && (p = update[k])->forward[k] == q; k++)
      p->forward[k] = q->forward[k];
    free(q);
    while (l->header->forward[m] == NIL && m > 0)
      m--;
    l->level = m;
    return true;
  }
  return false;
}

static boolean search(list l, keyType key, valueType *valuePointer)
{
  int k;
  node p, q = NULL;

  p = l->header;
  k = l->level;
  do {
    while (q = p->forward[k], q->key < key)
      p = q;
  } while (--k >= 0);
  if (q->key != key)
    return false;
  *valuePointer = q->value;
  return true;
}

/* nodes linked on each level and an in-order checksum through level 0 */
static void stats(list l)
{
  node p;
  long n = 0, sum = 0;
  int k;

  for (p = l->header->forward[0]; p != NIL; p = p->forward[0]) {
    n++;
    sum = (sum * 7 + p->key + p->value) % 1000000007;
  }
  printf("%ld keys, level %d, checksum %ld; nodes per level:", n, l->level, sum);
  for (k = 0; k <= l->level; k++) {
    long c = 0;

    for (p = l->header->forward[k]; p != NIL; p = p->forward[k])
      c++;
    printf(" %ld", c);
  }
  printf("\n");
}

int main(int argc, char *argv[])
{
  list l;
  int i, k, n = argc > 1 ? atoi(argv[1]) : 100000;
  int *keys, v, found = 0, deleted = 0;

  init();
  l = newList();
  keys = (int *)malloc(n * sizeof(int));
  for (k = 0; k < n; k++)
    keys[k] = random() % (4 * n);
  for (i = 0; i < 4; i++)
    for (k = 0; k < n; k++)
      insert(l, keys[k], keys[k] + i);
  for (k = 0; k < n; k++)
    if (search(l, keys[k], &v) && v == keys[k] + 3)
      found++;
  for (k = 0; k < n; k += 2)
    deleted += delete(l, keys[k]);
  stats(l);
  printf("found %d deleted %d\n", found, deleted);
  freeList(l);
  free(keys);
  return 0;
}
