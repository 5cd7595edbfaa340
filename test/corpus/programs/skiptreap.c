/* skiptreap.c - three ordered sets cross-checked against each other.
 *
 * In the style of textbook and paper code: Pugh's skip list (a node with a
 * flexible array member of forward pointers, sized by its level and
 * realloc'd to promote it), a treap with split and merge through `struct
 * tnode **`, and Sleator's top-down splay tree with a local header node
 * whose address is taken (`l = r = &N`).  The three must agree on every
 * query. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <compactptr.h>

#define MAXLEVEL 16

struct CP_COMPACT snode {
  long key;
  long val;
  int level;
  struct snode *forward[];
};

struct CP_COMPACT skiplist { int level; long size; struct snode *header; };

struct CP_COMPACT tnode { long key; unsigned prio; long sum; int cnt; struct tnode *l, *r; };

struct CP_COMPACT spl { long key; long val; struct spl *left, *right; };

static unsigned long st = 0x9E3779B97F4A7C15UL;
static unsigned rnd(void) { st ^= st >> 12; st ^= st << 25; st ^= st >> 27; return (unsigned)((st * 2685821657736338717UL) >> 32); }

/* ---------------- skip list ---------------- */
static struct snode *snode_new(int level, long key, long val) {
  struct snode *n = malloc(sizeof(struct snode) + level * sizeof(struct snode *));
  if (!n) abort();
  n->key = key; n->val = val; n->level = level;
  for (int i = 0; i < level; i++) n->forward[i] = NULL;
  return n;
}
static struct skiplist *sl_new(void) {
  struct skiplist *l = malloc(sizeof *l);
  l->level = 1; l->size = 0;
  l->header = snode_new(MAXLEVEL, -1, 0);
  return l;
}
static int random_level(void) { int lv = 1; while ((rnd() & 3) == 0 && lv < MAXLEVEL) lv++; return lv; }
static void sl_insert(struct skiplist *l, long key, long val) {
  struct snode *update[MAXLEVEL];
  struct snode *x = l->header;
  for (int i = l->level - 1; i >= 0; i--) {
    while (x->forward[i] && x->forward[i]->key < key) x = x->forward[i];
    update[i] = x;
  }
  x = x->forward[0];
  if (x && x->key == key) { x->val = val; return; }
  int lv = random_level();
  if (lv > l->level) { for (int i = l->level; i < lv; i++) update[i] = l->header; l->level = lv; }
  x = snode_new(lv, key, val);
  for (int i = 0; i < lv; i++) { x->forward[i] = update[i]->forward[i]; update[i]->forward[i] = x; }
  l->size++;
}
static int sl_delete(struct skiplist *l, long key) {
  struct snode *update[MAXLEVEL];
  struct snode *x = l->header;
  for (int i = l->level - 1; i >= 0; i--) {
    while (x->forward[i] && x->forward[i]->key < key) x = x->forward[i];
    update[i] = x;
  }
  x = x->forward[0];
  if (!x || x->key != key) return 0;
  for (int i = 0; i < l->level; i++) { if (update[i]->forward[i] != x) break; update[i]->forward[i] = x->forward[i]; }
  free(x);
  while (l->level > 1 && !l->header->forward[l->level - 1]) l->level--;
  l->size--;
  return 1;
}
static struct snode *sl_find(struct skiplist *l, long key) {
  struct snode *x = l->header;
  for (int i = l->level - 1; i >= 0; i--) while (x->forward[i] && x->forward[i]->key < key) x = x->forward[i];
  x = x->forward[0];
  return x && x->key == key ? x : NULL;
}
static long sl_range(struct skiplist *l, long lo, long hi) {
  struct snode *x = l->header;
  for (int i = l->level - 1; i >= 0; i--) while (x->forward[i] && x->forward[i]->key < lo) x = x->forward[i];
  long s = 0;
  for (x = x->forward[0]; x && x->key <= hi; x = x->forward[0]) s += x->val;
  return s;
}
/* grow a node's level in place with realloc (promote) */
static void sl_promote(struct skiplist *l, long key) {
  struct snode *update[MAXLEVEL];
  struct snode *x = l->header;
  for (int i = l->level - 1; i >= 0; i--) {
    while (x->forward[i] && x->forward[i]->key < key) x = x->forward[i];
    update[i] = x;
  }
  x = x->forward[0];
  if (!x || x->key != key || x->level >= l->level) return;
  int old = x->level;
  /* unlink, realloc, relink */
  for (int i = 0; i < old; i++) update[i]->forward[i] = x->forward[i];
  struct snode *y = realloc(x, sizeof(struct snode) + (old + 1) * sizeof(struct snode *));
  if (!y) abort();
  y->level = old + 1;
  for (int i = 0; i < y->level; i++) { y->forward[i] = update[i]->forward[i]; update[i]->forward[i] = y; }
}

/* ---------------- treap ---------------- */
static int cnt(struct tnode *t) { return t ? t->cnt : 0; }
static long sum(struct tnode *t) { return t ? t->sum : 0; }
static void upd(struct tnode *t) { t->cnt = 1 + cnt(t->l) + cnt(t->r); t->sum = t->key + sum(t->l) + sum(t->r); }
static void split(struct tnode *t, long key, struct tnode **a, struct tnode **b) {
  if (!t) { *a = *b = NULL; return; }
  if (t->key < key) { split(t->r, key, &t->r, b); *a = t; }
  else { split(t->l, key, a, &t->l); *b = t; }
  upd(t);
}
static struct tnode *merge(struct tnode *a, struct tnode *b) {
  if (!a) return b;
  if (!b) return a;
  if (a->prio > b->prio) { a->r = merge(a->r, b); upd(a); return a; }
  b->l = merge(a, b->l); upd(b); return b;
}
static void treap_insert(struct tnode **root, long key) {
  struct tnode *a, *b, *c;
  split(*root, key, &a, &b);
  split(b, key + 1, &b, &c);
  if (!b) { b = malloc(sizeof *b); b->key = key; b->prio = rnd(); b->l = b->r = NULL; upd(b); }
  *root = merge(merge(a, b), c);
}
static void treap_erase(struct tnode **root, long key) {
  struct tnode *a, *b, *c;
  split(*root, key, &a, &b);
  split(b, key + 1, &b, &c);
  free(b);
  *root = merge(a, c);
}
static long treap_kth(struct tnode *t, int k) {
  while (t) {
    int lc = cnt(t->l);
    if (k < lc) t = t->l;
    else if (k == lc) return t->key;
    else { k -= lc + 1; t = t->r; }
  }
  return -1;
}
static long treap_range(struct tnode **root, long lo, long hi) {
  struct tnode *a, *b, *c;
  split(*root, lo, &a, &b);
  split(b, hi + 1, &b, &c);
  long s = sum(b);
  *root = merge(merge(a, b), c);
  return s;
}

/* ---------------- top-down splay (Sleator) ---------------- */
static struct spl *splay(long key, struct spl *t) {
  struct spl N, *l, *r, *y;
  if (!t) return t;
  N.left = N.right = NULL;
  l = r = &N;
  for (;;) {
    if (key < t->key) {
      if (!t->left) break;
      if (key < t->left->key) { y = t->left; t->left = y->right; y->right = t; t = y; if (!t->left) break; }
      r->left = t; r = t; t = t->left;
    } else if (key > t->key) {
      if (!t->right) break;
      if (key > t->right->key) { y = t->right; t->right = y->left; y->left = t; t = y; if (!t->right) break; }
      l->right = t; l = t; t = t->right;
    } else break;
  }
  l->right = t->left; r->left = t->right;
  t->left = N.right; t->right = N.left;
  return t;
}
static struct spl *spl_insert(long key, long val, struct spl *t) {
  struct spl *n = malloc(sizeof(struct spl));
  n->key = key; n->val = val;
  if (!t) { n->left = n->right = NULL; return n; }
  t = splay(key, t);
  if (key < t->key) { n->left = t->left; n->right = t; t->left = NULL; return n; }
  if (key > t->key) { n->right = t->right; n->left = t; t->right = NULL; return n; }
  t->val = val; free(n); return t;
}
static struct spl *spl_delete(long key, struct spl *t) {
  struct spl *x;
  if (!t) return NULL;
  t = splay(key, t);
  if (key == t->key) {
    if (!t->left) x = t->right;
    else { x = splay(key, t->left); x->right = t->right; }
    free(t);
    return x;
  }
  return t;
}
static long spl_sum(struct spl *t) {
  struct spl *stack[128]; int sp = 0; long s = 0;
  while (t || sp) {
    while (t) { stack[sp++] = t; t = t->left; }
    t = stack[--sp];
    s = s * 7 + t->key + t->val;
    t = t->right;
  }
  return s;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 150000;
  struct skiplist *sl = sl_new();
  struct tnode *tr = NULL;
  struct spl *sp = NULL;
  long mism = 0, h = 0;
  for (int i = 0; i < n; i++) {
    long k = rnd() % (n / 2 + 1);
    unsigned op = rnd() % 10;
    if (op < 6) {
      sl_insert(sl, k, k * 3);
      treap_insert(&tr, k);
      sp = spl_insert(k, k * 3, sp);
    } else if (op < 8) {
      int a = sl_delete(sl, k);
      int b = sl_find(sl, k) != NULL;
      treap_erase(&tr, k);
      sp = spl_delete(k, sp);
      if (b) mism++;
      h += a;
    } else if (op < 9) {
      long hi = k + rnd() % 1000;
      long s1 = sl_range(sl, k, hi), s2 = treap_range(&tr, k, hi) * 3;
      if (s1 != s2) mism++;
      h = h * 31 + s1;
    } else {
      sl_promote(sl, k);
      if (sl->size) h = h * 17 + treap_kth(tr, (int)(rnd() % sl->size));
    }
    if (cnt(tr) != sl->size) { mism++; }
  }
  long ssum = 0; int lvls[MAXLEVEL + 1] = {0};
  for (struct snode *x = sl->header->forward[0]; x; x = x->forward[0]) { ssum = ssum * 7 + x->key + x->val; lvls[x->level]++; }
  printf("size=%ld treap=%d level=%d mism=%ld\n", sl->size, cnt(tr), sl->level, mism);
  printf("levels:"); for (int i = 1; i <= MAXLEVEL; i++) if (lvls[i]) printf(" %d:%d", i, lvls[i]); printf("\n");
  printf("skip=%ld splay=%ld same=%d median=%ld\n", ssum, spl_sum(sp), ssum == spl_sum(sp), treap_kth(tr, cnt(tr) / 2));
  printf("checksum=%016lx\n", (unsigned long)h ^ (unsigned long)ssum);
  return 0;
}
