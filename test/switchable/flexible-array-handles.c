// A flexible array member of compact pointers: a skip list's forward
// links (`struct snode *forward[];`, as Pugh wrote it and most skip lists
// since), and an n-ary tree whose nodes keep their children in the node
// and grow it with realloc.  Handles in the compact layout, pointers in
// the wide one: the runtime gives each object room for as many of either
// (cp_flex_count, counting the program's sizeof of a pointer), zeroes
// what the program does not write, and the switch translates the elements
// one by one.  Every way of writing the size seen in such code: sizeof
// plus a count of pointer sizes, offsetof, `sizeof *n`, calloc, a size
// held in a local.  Slot pointers into the member (`pp =
// &x->forward[l]`) and memmove over its elements too.  Native output in
// every mode, across a switch at several arena limits, with the heap
// verified.  Before, such members were refused.
// REQUIRES: plugin
// RUN: %clang %cflags -O2 %s -o %t.native
// RUN: %clang %cflags -O2 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %clang %cflags -O2 -Werror -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co
// RUN: %clang %cflags -O2 -Werror -fplugin=%plugin -fplugin-arg-compactptr-mode=wide %s %runtime -o %t.wide
// RUN: %t.native > %t.expect
// RUN: %t.co | diff %t.expect -
// RUN: %t.wide | diff %t.expect -
// RUN: %t | diff %t.expect -
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: FileCheck %s < %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=512K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: FileCheck %s < %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=768K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: FileCheck %s < %t.err
// CHECK: switch to wide mode (high-water mark) {{.*}}, verified
#include <compactptr.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXLVL 12

struct CP_COMPACT snode {
  int key;
  int lvl;
  struct snode *forward[];
};

static unsigned seed = 7;
static unsigned next_rand(void) {
  seed = seed * 1103515245u + 12345u;
  return seed >> 8;
}

static int random_level(void) {
  int l = 1;
  while (l < MAXLVL && (next_rand() & 3) == 0)
    l++;
  return l;
}

/* Four ways of writing one object's size, taken in turn. */
static struct snode *make_node(int key, int lvl) {
  struct snode *n;
  switch (key & 3) {
  case 0:
    n = malloc(sizeof(struct snode) + lvl * sizeof(struct snode *));
    break;
  case 1:
    n = malloc(offsetof(struct snode, forward) + lvl * sizeof(struct snode *));
    break;
  case 2:
    n = calloc(1, sizeof *n + lvl * sizeof n->forward[0]);
    break;
  default: {
    size_t sz = sizeof(struct snode) + (size_t)lvl * sizeof(struct snode *);
    n = malloc(sz);
    break;
  }
  }
  if (!n)
    abort();
  n->key = key;
  n->lvl = lvl;
  for (int i = 0; i < lvl; i++)
    n->forward[i] = NULL;
  return n;
}

struct skiplist {
  struct snode *head;
  int level;
  long size;
};

static void sl_init(struct skiplist *s) {
  s->head = make_node(-1, MAXLVL);
  s->level = 1;
  s->size = 0;
}

static int sl_insert(struct skiplist *s, int key) {
  struct snode *update[MAXLVL];
  struct snode *x = s->head;
  for (int l = s->level - 1; l >= 0; l--) {
    while (x->forward[l] && x->forward[l]->key < key)
      x = x->forward[l];
    update[l] = x;
  }
  x = x->forward[0];
  if (x && x->key == key)
    return 0;
  int lvl = random_level();
  if (lvl > s->level) {
    for (int l = s->level; l < lvl; l++)
      update[l] = s->head;
    s->level = lvl;
  }
  struct snode *n = make_node(key, lvl);
  for (int l = 0; l < lvl; l++) {
    n->forward[l] = update[l]->forward[l];
    update[l]->forward[l] = n;
  }
  s->size++;
  return 1;
}

/* Unlinks through slot pointers into the members: pp is the address of
 * the link that names the node at each level. */
static int sl_delete(struct skiplist *s, int key) {
  struct snode *victim = NULL;
  for (int l = s->level - 1; l >= 0; l--) {
    struct snode **pp = &s->head->forward[l];
    while (*pp && (*pp)->key < key)
      pp = &(*pp)->forward[l];
    if (*pp && (*pp)->key == key) {
      victim = *pp;
      *pp = victim->forward[l];
    }
  }
  if (!victim)
    return 0;
  free(victim);
  while (s->level > 1 && !s->head->forward[s->level - 1])
    s->level--;
  s->size--;
  return 1;
}

static int sl_contains(const struct skiplist *s, int key) {
  const struct snode *x = s->head;
  for (int l = s->level - 1; l >= 0; l--)
    while (x->forward[l] && x->forward[l]->key < key)
      x = x->forward[l];
  x = x->forward[0];
  return x && x->key == key;
}

static unsigned long sl_digest(const struct skiplist *s) {
  unsigned long h = 0;
  for (int l = 0; l < s->level; l++)
    for (const struct snode *x = s->head->forward[l]; x; x = x->forward[l])
      h = h * 31 + (unsigned long)x->key + (unsigned long)l;
  return h;
}

static void sl_free(struct skiplist *s) {
  struct snode *x = s->head;
  while (x) {
    struct snode *next = x->forward[0];
    free(x);
    x = next;
  }
  s->head = NULL;
}

/* An n-ary tree whose children live in the node, kept sorted by key, the
 * node grown with realloc when full.  A byte before the member puts it at
 * different offsets in the two layouts. */
struct CP_COMPACT tnode {
  struct tnode *up;
  char tag;
  int key, nkids, cap;
  struct tnode *kids[];
};

static struct tnode *tnode_new(struct tnode *up, int key) {
  struct tnode *t = malloc(sizeof *t + 2 * sizeof t->kids[0]);
  if (!t)
    abort();
  t->up = up;
  t->tag = (char)('a' + key % 26);
  t->key = key;
  t->nkids = 0;
  t->cap = 2;
  return t;
}

/* Adds a child in key order; returns the parent, which may have moved. */
static struct tnode *tnode_add(struct tnode *p, int key) {
  if (p->nkids == p->cap) {
    int cap = p->cap * 2;
    struct tnode *q = realloc(p, sizeof *p + cap * sizeof(struct tnode *));
    if (!q)
      abort();
    p = q;
    p->cap = cap;
    for (int i = 0; i < p->nkids; i++)
      p->kids[i]->up = p;
  }
  int i = 0;
  while (i < p->nkids && p->kids[i]->key < key)
    i++;
  memmove(&p->kids[i + 1], &p->kids[i], (p->nkids - i) * sizeof p->kids[0]);
  p->kids[i] = tnode_new(p, key);
  p->nkids++;
  return p;
}

static unsigned long tree_digest(const struct tnode *t, int depth) {
  unsigned long h = (unsigned long)t->key * 2654435761u + (unsigned long)t->tag +
                    (unsigned long)depth;
  for (int i = 0; i < t->nkids; i++) {
    if (t->kids[i]->up != t)
      return 0;
    h = h * 33 + tree_digest(t->kids[i], depth + 1);
  }
  return h;
}

static void tree_free(struct tnode *t) {
  for (int i = 0; i < t->nkids; i++)
    tree_free(t->kids[i]);
  free(t);
}

/* A fixed part that ends 4 bytes short of its alignment: the member starts
 * at the struct's size in both layouts, so that `*q = *p`, a memcpy or a
 * memset of `sizeof *p` leave the elements alone (in the tail padding,
 * the first one was copied and cleared). */
struct CP_COMPACT pnode {
  long key;
  int lvl;
  struct pnode *fw[];
};

static void fixed_part_copies(void) {
  struct pnode *p = malloc(sizeof *p + 2 * sizeof p->fw[0]);
  struct pnode *q = malloc(sizeof *q + 2 * sizeof q->fw[0]);
  struct pnode *r = malloc(sizeof *r + 2 * sizeof r->fw[0]);
  if (!p || !q || !r)
    abort();
  p->key = 1, p->lvl = 2, p->fw[0] = p, p->fw[1] = p;
  q->key = 2, q->lvl = 2, q->fw[0] = q, q->fw[1] = q;
  r->key = 3, r->lvl = 2, r->fw[0] = r, r->fw[1] = r;
  *q = *p;
  memcpy(r, p, sizeof *p);
  printf("copies: q %ld %s, r %ld %s\n", q->key, q->fw[0] == q ? "own" : "p's",
         r->key, r->fw[0] == r ? "own" : "p's");
  memset(p, 0, sizeof *p);
  printf("cleared: %ld %s\n", p->key, p->fw[0] == p ? "kept" : "lost");
  free(p);
  free(q);
  free(r);
}

int main(void) {
  fixed_part_copies();
  struct skiplist s;
  sl_init(&s);
  long inserted = 0, deleted = 0, found = 0;
  for (int round = 0; round < 6; round++) {
    for (int i = 0; i < 4000; i++)
      inserted += sl_insert(&s, (int)(next_rand() % 20000));
    for (int i = 0; i < 1500; i++)
      deleted += sl_delete(&s, (int)(next_rand() % 20000));
    for (int i = 0; i < 2000; i++)
      found += sl_contains(&s, (int)(next_rand() % 20000));
    printf("round %d: size %ld level %d digest %lu\n", round, s.size, s.level,
           sl_digest(&s));
  }
  printf("inserted %ld deleted %ld found %ld\n", inserted, deleted, found);

  struct tnode *root = tnode_new(NULL, 0);
  for (int i = 1; i <= 40; i++)
    root = tnode_add(root, (int)(next_rand() % 1000));
  for (int i = 0; i < root->nkids; i++)
    for (int j = 0; j < 30; j++)
      root->kids[i] = tnode_add(root->kids[i], (int)(next_rand() % 1000));
  for (int i = 0; i < root->nkids; i++)
    root->kids[i]->up = root;
  printf("tree: %d children, digest %lu\n", root->nkids, tree_digest(root, 0));
  tree_free(root);
  sl_free(&s);
  return 0;
}
