/* globals.c - globals and statics holding compact pointers (roots): a
 * global list head, a file-static tree root, a function-local static
 * cache, a global array of compact pointers, a global plain struct with
 * compact-pointer members, and a global value of a compact struct type
 * whose fields point into the heap (it is a value: never linked to).
 * Usage: globals [n]   (default 3000) */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT item {
  int key;
  struct item *next;
  struct item *left, *right;
};

struct registry {
  struct item *first, *last;
  long count;
};

struct item *g_head;                 /* global root */
static struct item *s_tree;          /* file-static root */
struct item *g_slots[16];            /* global array of roots */
struct registry g_reg = {NULL, NULL, 0};
struct item g_value;                 /* a compact struct by value */
static unsigned g_seed = 99u;

static unsigned rnd(void) {
  g_seed ^= g_seed << 7;
  g_seed ^= g_seed >> 9;
  g_seed ^= g_seed << 8;
  return g_seed;
}

static struct item *new_item(int key) {
  struct item *it = malloc(sizeof(struct item));
  if (!it) exit(2);
  it->key = key;
  it->next = it->left = it->right = NULL;
  return it;
}

static void tree_insert(struct item *it) {
  struct item *p = s_tree;
  if (!p) {
    s_tree = it;
    return;
  }
  for (;;) {
    if (it->key < p->key) {
      if (!p->left) { p->left = it; return; }
      p = p->left;
    } else {
      if (!p->right) { p->right = it; return; }
      p = p->right;
    }
  }
}

/* Remembers the last item it was asked for; hits when asked again.  A
 * negative key clears the cache (so no freed pointer stays in a root). */
static struct item *cached_find(int key, long *hits) {
  static struct item *cache;
  struct item *p;
  if (key < 0) {
    cache = NULL;
    return NULL;
  }
  if (cache && cache->key == key) {
    ++*hits;
    return cache;
  }
  for (p = s_tree; p && p->key != key;) p = key < p->key ? p->left : p->right;
  if (p) cache = p;
  return p;
}

static long tree_sum(const struct item *p) {
  return p ? p->key + tree_sum(p->left) + tree_sum(p->right) : 0;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? strtol(argv[1], NULL, 10) : 3000;
  long i, found = 0, hits = 0, len = 0, slot_sum = 0;
  struct item *p;
  if (n < 16) n = 16;

  for (i = 0; i < n; i++) {
    struct item *it = new_item((int)(rnd() % 100000u));
    it->next = g_head;
    g_head = it;
    tree_insert(it);
    if (!g_reg.first) g_reg.first = it;
    g_reg.last = it;
    g_reg.count++;
    g_slots[i % 16] = it;
  }
  g_value = *g_reg.first;       /* heap -> global value */
  g_value.next = g_reg.last;    /* a global holding a heap pointer */
  for (p = g_head; p; p = p->next) len++;
  for (i = 0; i < 16; i++) slot_sum += g_slots[i]->key;
  printf("len=%ld count=%ld first=%d last=%d tree_sum=%ld slot_sum=%ld\n", len,
         g_reg.count, g_reg.first->key, g_reg.last->key, tree_sum(s_tree),
         slot_sum);
  printf("value key=%d next.key=%d next==head %d\n", g_value.key,
         g_value.next->key, g_value.next == g_head);

  for (i = 0; i < n; i++) {
    int key = (int)(i % 3 == 0 ? (unsigned)g_slots[i % 16]->key : rnd() % 100000u);
    if (cached_find(key, &hits)) found++;
    if (i % 3 == 0 && cached_find(key, &hits)) found++;
  }
  printf("found=%ld cache_hits=%ld\n", found, hits);

  /* unlink the tree from the globals and free through the list */
  s_tree = NULL;
  cached_find(-1, &hits);
  for (i = 0; i < 16; i++) g_slots[i] = NULL;
  g_reg.first = g_reg.last = NULL;
  g_value.next = NULL;
  while (g_head) {
    p = g_head->next;
    free(g_head);
    g_head = p;
  }
  printf("cleared head_null=%d\n", g_head == NULL);
  return 0;
}
