/*
 * persistmap.c - a persistent (immutable) ordered map: an AVL tree with path
 * copying.  Every update returns a new version that shares all untouched
 * subtrees with the old one; nodes are reference counted and freed when
 * the last version that reaches them is released.
 *
 * usage: persistmap [updates] [window] [seed]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <compactptr.h>

typedef struct pnode pnode;
struct CP_COMPACT pnode {
  long key;
  long val;
  int height;
  unsigned refs;
  unsigned mark;
  pnode *left, *right;
};

static long live_nodes, made_nodes;
static unsigned epoch;

static pnode *ref(pnode *t)
{
  if (t) t->refs++;
  return t;
}

static void unref(pnode *t)
{
  while (t && --t->refs == 0) {
    pnode *l = t->left, *r = t->right;
    free(t);
    live_nodes--;
    unref(l);
    t = r;                  /* tail call on the right */
  }
}

static int height(const pnode *t) { return t ? t->height : 0; }

/* takes ownership of l and r */
static pnode *make(long key, long val, pnode *l, pnode *r)
{
  pnode *t = malloc(sizeof *t);
  if (!t) { fputs("out of memory\n", stderr); exit(2); }
  t->key = key;
  t->val = val;
  t->left = l;
  t->right = r;
  t->refs = 1;
  t->mark = 0;
  t->height = 1 + (height(l) > height(r) ? height(l) : height(r));
  live_nodes++;
  made_nodes++;
  return t;
}

/* build key/val over l and r (owned), restoring the AVL balance */
static pnode *balance(long key, long val, pnode *l, pnode *r)
{
  int hl = height(l), hr = height(r);
  pnode *res;
  if (hl > hr + 1) {
    if (height(l->left) >= height(l->right)) {
      res = make(l->key, l->val, ref(l->left), make(key, val, ref(l->right), r));
    } else {
      pnode *lr = l->right;
      pnode *a = make(l->key, l->val, ref(l->left), ref(lr->left));
      pnode *b = make(key, val, ref(lr->right), r);
      res = make(lr->key, lr->val, a, b);
    }
    unref(l);
    return res;
  }
  if (hr > hl + 1) {
    if (height(r->right) >= height(r->left)) {
      res = make(r->key, r->val, make(key, val, l, ref(r->left)), ref(r->right));
    } else {
      pnode *rl = r->left;
      pnode *a = make(key, val, l, ref(rl->left));
      pnode *b = make(r->key, r->val, ref(rl->right), ref(r->right));
      res = make(rl->key, rl->val, a, b);
    }
    unref(r);
    return res;
  }
  return make(key, val, l, r);
}

static pnode *insert(const pnode *t, long key, long val)
{
  if (!t) return make(key, val, NULL, NULL);
  if (key < t->key)
    return balance(t->key, t->val, insert(t->left, key, val), ref(t->right));
  if (key > t->key)
    return balance(t->key, t->val, ref(t->left), insert(t->right, key, val));
  return make(key, val, ref(t->left), ref(t->right));
}

static pnode *remove_min(const pnode *t, long *key, long *val)
{
  if (!t->left) {
    *key = t->key;
    *val = t->val;
    return ref(t->right);
  }
  return balance(t->key, t->val, remove_min(t->left, key, val), ref(t->right));
}

static pnode *erase(const pnode *t, long key, int *found)
{
  long k, v;
  pnode *r;
  if (!t) return NULL;
  if (key < t->key)
    return balance(t->key, t->val, erase(t->left, key, found), ref(t->right));
  if (key > t->key)
    return balance(t->key, t->val, ref(t->left), erase(t->right, key, found));
  *found = 1;
  if (!t->left) return ref(t->right);
  if (!t->right) return ref(t->left);
  r = remove_min(t->right, &k, &v);
  return balance(k, v, ref(t->left), r);
}

static const pnode *find(const pnode *t, long key)
{
  while (t && t->key != key)
    t = key < t->key ? t->left : t->right;
  return t;
}

static long range_sum(const pnode *t, long lo, long hi)
{
  long s = 0;
  while (t) {
    if (t->key < lo) t = t->right;
    else if (t->key > hi) t = t->left;
    else {
      s += t->val + range_sum(t->left, lo, hi);
      t = t->right;
    }
  }
  return s;
}

static long size(const pnode *t)
{
  return t ? 1 + size(t->left) + size(t->right) : 0;
}

/* nodes reachable from t not yet marked in this epoch */
static long count_new(pnode *t)
{
  long n = 0;
  while (t && t->mark != epoch) {
    t->mark = epoch;
    n += 1 + count_new(t->left);
    t = t->right;
  }
  return n;
}

/* number of keys of a missing from b or bound to another value there;
 * subtrees the two versions share are skipped */
static long diff(const pnode *a, const pnode *b)
{
  long n = 0;
  while (a && a != b) {
    const pnode *m = find(b, a->key);
    if (!m || m->val != a->val) n++;
    n += diff(a->left, b);
    a = a->right;
  }
  return n;
}

static int check(const pnode *t, long lo, long hi)
{
  int hl, hr;
  if (!t) return 1;
  if (t->key < lo || t->key > hi || !t->refs) return 0;
  hl = height(t->left); hr = height(t->right);
  if (t->height != 1 + (hl > hr ? hl : hr) || hl - hr > 1 || hr - hl > 1) return 0;
  return check(t->left, lo, t->key - 1) && check(t->right, t->key + 1, hi);
}

static unsigned long state;
static unsigned long next_rand(void)
{
  state += 0x9e3779b97f4a7c15UL;
  unsigned long z = state;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9UL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebUL;
  return z ^ (z >> 31);
}

int main(int argc, char **argv)
{
  long updates = argc > 1 ? atol(argv[1]) : 120000;
  long window = argc > 2 ? atol(argv[2]) : 30000;
  long keyspace = 400000;
  pnode **ver;
  long nver = 0, cap = 1024, i, erased = 0, base = 0;
  long qsum = 0, hits = 0;
  state = argc > 3 ? strtoul(argv[3], NULL, 10) : 7;

  ver = malloc(cap * sizeof *ver);
  ver[nver++] = NULL;                   /* version 0: the empty map */
  for (i = 1; i <= updates; i++) {
    pnode *cur = ver[nver - 1], *nxt;
    unsigned long r = next_rand();
    long key = (long)(r % keyspace);
    if ((r >> 20) % 10 < 7) {
      nxt = insert(cur, key, (long)(r >> 40));
    } else {
      int found = 0;
      nxt = erase(cur, key, &found);
      erased += found;
    }
    if (nver == cap) {
      cap *= 2;
      ver = realloc(ver, cap * sizeof *ver);
    }
    ver[nver++] = nxt;
    /* release the oldest versions beyond the window */
    while (nver - base > window) {
      unref(ver[base]);
      ver[base++] = NULL;
    }
    /* queries against random retained versions */
    if (i % 8 == 0) {
      long v = base + (long)(next_rand() % (unsigned long)(nver - base));
      long k = (long)(next_rand() % keyspace);
      const pnode *f = find(ver[v], k);
      if (f) { hits++; qsum += f->val % 1000; }
    }
    if (i % 100000 == 0) {
      long shared;
      epoch++;
      shared = 0;
      for (long v = base; v < nver; v += 97)
        shared += count_new(ver[v]);
      printf("update %ld: versions %ld..%ld, size %ld, live %ld, made %ld, "
             "distinct in sample %ld, ok %d\n",
             i, base, nver - 1, size(ver[nver - 1]), live_nodes, made_nodes, shared,
             check(ver[nver - 1], -1, keyspace));
    }
  }
  printf("erased %ld, query hits %ld, qsum %ld\n", erased, hits, qsum);
  {
    pnode *last = ver[nver - 1], *mid = ver[base + (nver - base) / 2];
    printf("diff(last, mid) %ld, diff(last, last) %ld\n", diff(last, mid), diff(last, last));
    printf("range sums: %ld %ld %ld\n", range_sum(last, 0, keyspace / 3),
           range_sum(mid, keyspace / 3, 2 * keyspace / 3), range_sum(ver[base], 0, keyspace));
  }
  /* compact the history: keep every 1000th version only */
  {
    long kept = 0;
    for (i = base; i < nver; i++) {
      if (i % 1000 == 0 || i == nver - 1) ver[kept++] = ver[i];
      else unref(ver[i]);
    }
    nver = kept;
    base = 0;
    ver = realloc(ver, (nver ? nver : 1) * sizeof *ver);
    epoch++;
    long distinct = 0;
    for (i = 0; i < nver; i++) distinct += count_new(ver[i]);
    printf("after thinning: %ld versions, live %ld, distinct %ld\n", nver, live_nodes, distinct);
  }
  for (i = 0; i < nver; i++) unref(ver[i]);
  free(ver);
  printf("live at exit %ld\n", live_nodes);
  return 0;
}
