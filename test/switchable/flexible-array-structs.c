// A flexible array member of compact structs: a ranked skip list in the
// manner of a sorted-set implementation, whose node ends in its levels,
// each a forward link and the span it skips (`struct level { struct znode
// *forward; unsigned long span; } level[];`), with a backward link and a
// key kept in a plain string.  The room is counted in the program's
// sizeof of a level, the layout of the moment's; the runtime gives the
// object that many levels in both layouts and the switch copies each by
// its type's program, translating its link.  A second type whose levels
// shrink (an int beside the link) puts the member at other offsets and
// sizes in the two layouts.  Native output in every mode, across a switch
// at several arena limits, with the heap verified.
// REQUIRES: plugin
// RUN: %clang %cflags -O2 %s -o %t.native
// RUN: %clang %cflags -O2 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %clang %cflags -O2 -Werror -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co
// RUN: %clang %cflags -O2 -Werror -fplugin=%plugin -fplugin-arg-compactptr-mode=wide %s %runtime -o %t.wide
// RUN: %t.native > %t.expect
// RUN: %t.co | diff %t.expect -
// RUN: %t.wide | diff %t.expect -
// RUN: %t | diff %t.expect -
// RUN: env COMPACTPTR_ARENA_LIMIT=512K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: FileCheck %s < %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: FileCheck %s < %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=768K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: FileCheck %s < %t.err
// CHECK: switch to wide mode (high-water mark) {{.*}}, verified
#include <compactptr.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXLEVEL 16

struct CP_COMPACT znode {
  char *key;
  double score;
  struct znode *backward;
  struct zlevel {
    struct znode *forward;
    unsigned long span;
  } level[];
};

struct zlist {
  struct znode *header, *tail;
  unsigned long length;
  int level;
};

static unsigned long seed = 99;
static unsigned rnd(void) {
  seed = seed * 6364136223846793005ul + 1442695040888963407ul;
  return (unsigned)(seed >> 33);
}

static int random_level(void) {
  int l = 1;
  while ((rnd() & 0xffff) < 0x4000 && l < MAXLEVEL)
    l++;
  return l;
}

static struct znode *znode_new(int level, double score, const char *key) {
  struct znode *n = malloc(sizeof(*n) + level * sizeof(struct zlevel));
  if (!n)
    abort();
  n->score = score;
  n->key = key ? strdup(key) : NULL;
  return n;
}

static void zl_init(struct zlist *zl) {
  zl->level = 1;
  zl->length = 0;
  zl->header = znode_new(MAXLEVEL, 0, NULL);
  for (int j = 0; j < MAXLEVEL; j++) {
    zl->header->level[j].forward = NULL;
    zl->header->level[j].span = 0;
  }
  zl->header->backward = NULL;
  zl->tail = NULL;
}

static int before(const struct znode *n, double score, const char *key) {
  return n->score < score || (n->score == score && strcmp(n->key, key) < 0);
}

static void zl_insert(struct zlist *zl, double score, const char *key) {
  struct znode *update[MAXLEVEL], *x = zl->header;
  unsigned long rank[MAXLEVEL];
  for (int i = zl->level - 1; i >= 0; i--) {
    rank[i] = i == zl->level - 1 ? 0 : rank[i + 1];
    while (x->level[i].forward && before(x->level[i].forward, score, key)) {
      rank[i] += x->level[i].span;
      x = x->level[i].forward;
    }
    update[i] = x;
  }
  int level = random_level();
  if (level > zl->level) {
    for (int i = zl->level; i < level; i++) {
      rank[i] = 0;
      update[i] = zl->header;
      update[i]->level[i].span = zl->length;
    }
    zl->level = level;
  }
  x = znode_new(level, score, key);
  for (int i = 0; i < level; i++) {
    x->level[i].forward = update[i]->level[i].forward;
    update[i]->level[i].forward = x;
    x->level[i].span = update[i]->level[i].span - (rank[0] - rank[i]);
    update[i]->level[i].span = (rank[0] - rank[i]) + 1;
  }
  for (int i = level; i < zl->level; i++)
    update[i]->level[i].span++;
  x->backward = update[0] == zl->header ? NULL : update[0];
  if (x->level[0].forward)
    x->level[0].forward->backward = x;
  else
    zl->tail = x;
  zl->length++;
}

static int zl_delete(struct zlist *zl, double score, const char *key) {
  struct znode *update[MAXLEVEL], *x = zl->header;
  for (int i = zl->level - 1; i >= 0; i--) {
    while (x->level[i].forward && before(x->level[i].forward, score, key))
      x = x->level[i].forward;
    update[i] = x;
  }
  x = x->level[0].forward;
  if (!x || x->score != score || strcmp(x->key, key) != 0)
    return 0;
  for (int i = 0; i < zl->level; i++) {
    if (update[i]->level[i].forward == x) {
      update[i]->level[i].span += x->level[i].span - 1;
      update[i]->level[i].forward = x->level[i].forward;
    } else {
      update[i]->level[i].span -= 1;
    }
  }
  if (x->level[0].forward)
    x->level[0].forward->backward = x->backward;
  else
    zl->tail = x->backward;
  while (zl->level > 1 && !zl->header->level[zl->level - 1].forward)
    zl->level--;
  zl->length--;
  free(x->key);
  free(x);
  return 1;
}

/* The element of rank r (1-based), by spans. */
static const struct znode *zl_by_rank(const struct zlist *zl, unsigned long r) {
  const struct znode *x = zl->header;
  unsigned long traversed = 0;
  for (int i = zl->level - 1; i >= 0; i--) {
    while (x->level[i].forward && traversed + x->level[i].span <= r) {
      traversed += x->level[i].span;
      x = x->level[i].forward;
    }
    if (traversed == r)
      return x;
  }
  return NULL;
}

/* Levels that shrink: an int beside the link, 8 bytes compact, 16 wide. */
struct CP_COMPACT bnode {
  short n;
  struct bnode *up;
  struct slot {
    struct bnode *child;
    int weight;
  } slots[];
};

static struct bnode *bnode_new(struct bnode *up, int n) {
  size_t sz = offsetof(struct bnode, slots) + (size_t)n * sizeof(struct slot);
  struct bnode *b = calloc(1, sz);
  if (!b)
    abort();
  b->up = up;
  b->n = (short)n;
  return b;
}

static long bnode_sum(const struct bnode *b, int depth) {
  long s = depth;
  for (int i = 0; i < b->n; i++) {
    s += b->slots[i].weight * (depth + 1);
    if (b->slots[i].child) {
      if (b->slots[i].child->up != b)
        return -1;
      s += bnode_sum(b->slots[i].child, depth + 1);
    }
  }
  return s;
}

static void bnode_free(struct bnode *b) {
  for (int i = 0; i < b->n; i++)
    if (b->slots[i].child)
      bnode_free(b->slots[i].child);
  free(b);
}

/* Pointers to elements: kept in a compact struct's field and in a local
 * across the switch (the verifier takes them for what they are, a value
 * inside the bigger object). */
struct CP_COMPACT cursor {
  struct slot *at;
  struct cursor *next;
};

static long cursor_sum(const struct cursor *c) {
  long s = 0;
  for (; c; c = c->next)
    s = s * 7 + c->at->weight + (c->at->child ? c->at->child->n : 0);
  return s;
}

int main(void) {
  /* A tree built first, kept across the skip list's switch. */
  struct bnode *root = bnode_new(NULL, 6);
  for (int i = 0; i < 6; i++) {
    root->slots[i].weight = i + 1;
    root->slots[i].child = bnode_new(root, 1 + i % 4);
    for (int j = 0; j < root->slots[i].child->n; j++) {
      root->slots[i].child->slots[j].weight = i * 10 + j;
      root->slots[i].child->slots[j].child = bnode_new(root->slots[i].child, 3);
    }
  }
  printf("tree sum %ld\n", bnode_sum(root, 0));
  struct cursor *cursors = NULL;
  for (int i = 0; i < 6; i++) {
    struct cursor *c = malloc(sizeof *c);
    if (!c)
      abort();
    c->at = &root->slots[i];
    c->next = cursors;
    cursors = c;
  }
  struct slot *third = &root->slots[2];
  printf("cursors %ld third %d\n", cursor_sum(cursors), third->weight);
  struct zlist zl;
  zl_init(&zl);
  char key[32];
  for (int round = 0; round < 5; round++) {
    for (int i = 0; i < 3000; i++) {
      unsigned k = rnd() % 5000;
      snprintf(key, sizeof key, "m%u", k);
      zl_insert(&zl, (double)(k % 97), key);
    }
    int deleted = 0;
    for (int i = 0; i < 1500; i++) {
      unsigned k = rnd() % 5000;
      snprintf(key, sizeof key, "m%u", k);
      deleted += zl_delete(&zl, (double)(k % 97), key);
    }
    unsigned long h = 0;
    for (unsigned long r = 1; r <= zl.length; r += 37) {
      const struct znode *n = zl_by_rank(&zl, r);
      h = h * 31 + (unsigned long)n->score + strlen(n->key);
    }
    const struct znode *t = zl.tail;
    unsigned long back = 0;
    while (t) {
      back++;
      t = t->backward;
    }
    printf("round %d: length %lu level %d deleted %d ranks %lu back %lu\n",
           round, zl.length, zl.level, deleted, h, back);
  }

  printf("tree sum %ld\n", bnode_sum(root, 0));
  printf("cursors %ld third %d\n", cursor_sum(cursors), third->weight);
  while (cursors) {
    struct cursor *c = cursors;
    cursors = c->next;
    free(c);
  }
  bnode_free(root);

  struct znode *x = zl.header->level[0].forward;
  while (x) {
    struct znode *next = x->level[0].forward;
    free(x->key);
    free(x);
    x = next;
  }
  free(zl.header);
  return 0;
}
