// The struct hack: a last member of one element, or none, allocated with
// room past it, as C code before flexible array members wrote it (Pugh's
// skip list, `node forward[1]`; a GNU zero-length array of links; links
// in a struct with tail padding).  A byte array of one is not taken for
// room (diagnostics/flexible-array-alloc.c): the symbol below declares
// `char name[]`.  C compilers let a program index such
// a member past its end (-fstrict-flex-arrays=0, the default), so the
// plugin gives it room as it does a flexible array member: the one
// element stays a field of the struct's size (a variable, `*q = *p`), the
// rest is a CP_FIELD_FLEX entry from the second element on.  Native output
// in every mode and across a switch at several arena limits, the heap
// verified.  Before, every such allocation was refused with the advice to
// declare a flexible array member.
// REQUIRES: plugin
// RUN: %clang %cflags -O2 %s -o %t.native
// RUN: %clang %cflags -O2 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %clang %cflags -O2 -Werror -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co
// RUN: %clang %cflags -O0 -Werror -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co0
// RUN: %clang %cflags -O2 -Werror -fplugin=%plugin -fplugin-arg-compactptr-mode=wide %s %runtime -o %t.wide
// RUN: %t.native > %t.expect
// RUN: %t.co | diff %t.expect -
// RUN: %t.co0 | diff %t.expect -
// RUN: %t.wide | diff %t.expect -
// RUN: %t | diff %t.expect -
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: FileCheck %s < %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=384K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: FileCheck %s < %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=512K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: FileCheck %s < %t.err
// CHECK: switch to wide mode (high-water mark) {{.*}}, verified
//
// The descriptor: the element in the struct, then the room from the second.
// RUN: %rewrite --main-only %s -- %cflags -fplugin-arg-compactptr-mode=switchable > %t.c
// RUN: FileCheck --check-prefix=DESC %s < %t.c
// DESC: {"forward", __builtin_offsetof(struct cp__c_snode, forward), __builtin_offsetof(struct snode, forward), CP_FIELD_HANDLE, 1, 0, &cp__desc_snode},
// DESC-NEXT: {"forward", __builtin_offsetof(struct cp__c_snode, forward[1]), __builtin_offsetof(struct snode, forward[1]), CP_FIELD_FLEX, CP_FIELD_HANDLE, sizeof(void *), &cp__desc_snode},
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXLVL 10

typedef struct snode *node;
struct CP_COMPACT snode {
  int key;
  int lvl;
  node forward[1]; // lvl + 1 links: one here, the others past the struct
};

// A header as a variable of the type: its one element is all it has.
static struct snode nil = {0x7fffffff, 0, {0}};

static unsigned long seed = 12345;
static int rnd(void) {
  seed = seed * 6364136223846793005ul + 1442695040888963407ul;
  return (int)(seed >> 33);
}

static node new_node(int lvl, int key) {
  node n = malloc(sizeof(struct snode) + lvl * sizeof(node));
  n->key = key;
  n->lvl = lvl;
  for (int i = 0; i <= lvl; i++)
    n->forward[i] = &nil;
  return n;
}

static void insert(node head, int key) {
  node update[MAXLVL + 1], p = head;
  for (int k = head->lvl; k >= 0; k--) {
    while (p->forward[k]->key < key)
      p = p->forward[k];
    update[k] = p;
  }
  if (p->forward[0]->key == key)
    return;
  int lvl = 0;
  while (lvl < MAXLVL && (rnd() & 3) == 0)
    lvl++;
  node q = new_node(lvl, key);
  for (int k = 0; k <= lvl; k++) {
    q->forward[k] = update[k]->forward[k];
    update[k]->forward[k] = q;
  }
}

// A symbol with its name past the struct.
struct CP_COMPACT sym {
  struct sym *next;
  struct snode *where;
  int len;
  char name[];
};

static struct sym *intern(struct sym **tab, const char *s, node where) {
  size_t len = strlen(s);
  for (struct sym *y = tab[len % 7]; y; y = y->next)
    if (y->len == (int)len && !memcmp(y->name, s, len))
      return y;
  struct sym *y = malloc(sizeof(struct sym) + len + 1);
  y->len = (int)len;
  y->where = where;
  memcpy(y->name, s, len + 1);
  y->next = tab[len % 7];
  tab[len % 7] = y;
  return y;
}

// A GNU zero-length array of links, and a struct whose alignment leaves
// tail padding after its one link.
struct CP_COMPACT bucket {
  int n;
  struct snode *slot[0];
};
struct CP_COMPACT wnode {
  long weight;
  struct wnode *link[1];
};

int main(void) {
  node head = new_node(MAXLVL, -1);
  head->lvl = MAXLVL;
  struct sym *tab[7] = {0};
  struct wnode *chain = NULL;
  char buf[32];
  for (int i = 0; i < 6000; i++) {
    int key = rnd() % 50000;
    insert(head, key);
    snprintf(buf, sizeof buf, "k%d", key % 900);
    intern(tab, buf, head->forward[0]);
    int w = 1 + i % 3;
    struct wnode *x = malloc(sizeof(struct wnode) + (w - 1) * sizeof(struct wnode *));
    x->weight = key;
    for (int j = 0; j < w; j++)
      x->link[j] = chain;
    chain = x;
  }
  struct bucket *b = malloc(sizeof(struct bucket) + 64 * sizeof(struct snode *));
  b->n = 0;
  for (node p = head->forward[0]; p != &nil && b->n < 64; p = p->forward[p->lvl])
    b->slot[b->n++] = p;

  // A copy of a node by assignment carries its one element, as natively.
  struct snode copy = *head->forward[0];
  long sum = 0, count = 0, high = 0;
  for (node p = head->forward[0]; p != &nil; p = p->forward[0]) {
    sum += p->key;
    count++;
    high += p->lvl;
  }
  for (int k = 1; k <= MAXLVL; k++)
    for (node p = head->forward[k]; p != &nil; p = p->forward[k])
      high += k;
  long names = 0;
  for (int t = 0; t < 7; t++)
    for (struct sym *y = tab[t]; y; y = y->next)
      names += y->len + y->name[1] + y->where->key % 7;
  long links = 0;
  int len = 0;
  for (struct wnode *x = chain; x; x = x->link[0], len++)
    links += x->weight % 11 + (x->link[len % 3 < 1 ? 0 : 0] != NULL);
  long slots = 0;
  for (int i = 0; i < b->n; i++)
    slots += b->slot[i]->key;
  printf("count %ld sum %ld levels %ld names %ld links %ld/%d slots %ld copy %d %d\n", count,
         sum, high, names, links, len, slots, copy.key, copy.forward[0]->key);
  return 0;
}
