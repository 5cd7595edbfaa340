/*
 * scaling.c - a multi-threaded pointer-heavy workload for the thread-scaling
 * benchmark (bench/threadbench): every thread grows and churns its own
 * binary search tree, and now and then takes a lock of a shared hash table
 * to insert an entry or to remove (and free) one another thread inserted.
 * Plain C plus CP_COMPACT: built natively it uses malloc, built with the
 * plugin the compactptr runtime.
 *
 * The table has one mutex per LOCKS-th of its buckets (lock striping, as
 * threaded hash tables do) rather than one for all: with a single mutex
 * the two threads queued on it and neither build reached 1.5x on two
 * cores (against the mean of one thread pinned to each core, native
 * 1.42-1.47x, compact-only 1.32-1.35x; without the shared operations
 * native reached 1.95x), so the figure measured the lock, not the heap.
 *
 *   usage: scaling THREADS [OPS_PER_THREAD]
 * Prints one line per thread (its tree's size and key sum, which depend on
 * the thread's seed only) and `ok scaling`; on stderr, the parallel phase's
 * seconds, operations and processor seconds (all threads').  Exit 1 on a
 * failed self-check, 2 on bad arguments.
 */
#include <compactptr.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

struct CP_COMPACT tnode {
  unsigned key, val;
  struct tnode *left, *right;
};
struct CP_COMPACT hentry {
  unsigned key, owner;
  struct hentry *next;
};

enum { KEYS = 1 << 17, HBITS = 16, MAXT = 64, LOCKS = 64 };
static struct hentry *table[1 << HBITS];
static pthread_mutex_t table_lock[LOCKS];
static long ops_per_thread = 2000000;

typedef struct result {
  long size, sum, shared_ins, shared_del;
} result_t;
static result_t results[MAXT];

static unsigned long long next_rand(unsigned long long *s) {
  unsigned long long x = *s;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *s = x;
  return x * 0x2545F4914F6CDD1Dull;
}

static struct tnode *tree_find(struct tnode *t, unsigned key) {
  while (t && t->key != key)
    t = key < t->key ? t->left : t->right;
  return t;
}

/* Inserts key unless present; returns 1 if it did. */
static int tree_insert(struct tnode **root, unsigned key) {
  struct tnode *t = *root, *parent = NULL, *n;
  while (t) {
    if (t->key == key)
      return 0;
    parent = t;
    t = key < t->key ? t->left : t->right;
  }
  n = malloc(sizeof *n);
  if (!n)
    exit(2);
  n->key = key;
  n->val = key * 2654435761u;
  n->left = n->right = NULL;
  if (!parent)
    *root = n;
  else if (key < parent->key)
    parent->left = n;
  else
    parent->right = n;
  return 1;
}

/* Removes key if present; returns 1 if it did. */
static int tree_remove(struct tnode **root, unsigned key) {
  struct tnode *t = *root, *parent = NULL, *child;
  while (t && t->key != key) {
    parent = t;
    t = key < t->key ? t->left : t->right;
  }
  if (!t)
    return 0;
  if (t->left && t->right) {
    /* Replace by the smallest key of the right subtree. */
    struct tnode *sp = t, *s = t->right;
    while (s->left) {
      sp = s;
      s = s->left;
    }
    t->key = s->key;
    t->val = s->val;
    if (sp == t)
      sp->right = s->right;
    else
      sp->left = s->right;
    free(s);
    return 1;
  }
  child = t->left ? t->left : t->right;
  if (!parent)
    *root = child;
  else if (parent->left == t)
    parent->left = child;
  else
    parent->right = child;
  free(t);
  return 1;
}

static void tree_stats(struct tnode *t, long *size, long *sum, int *bad) {
  while (t) {
    if (t->val != t->key * 2654435761u)
      *bad = 1;
    tree_stats(t->left, size, sum, bad);
    ++*size;
    *sum += t->key;
    t = t->right;
  }
}

static void tree_free(struct tnode *t) {
  while (t) {
    struct tnode *r = t->right;
    tree_free(t->left);
    free(t);
    t = r;
  }
}

/* The shared table: a key another thread inserted is removed (and freed
 * here: a cross-thread free); otherwise this thread's entry goes in. */
static void shared_op(unsigned key, unsigned me, result_t *r) {
  struct hentry **slot = &table[key & ((1u << HBITS) - 1)], *e, *prev = NULL;
  pthread_mutex_t *lock = &table_lock[key & (LOCKS - 1)];
  pthread_mutex_lock(lock);
  for (e = *slot; e && e->key != key; e = e->next)
    prev = e;
  if (e && e->owner != me) {
    if (prev)
      prev->next = e->next;
    else
      *slot = e->next;
    free(e);
    r->shared_del++;
  } else if (!e) {
    e = malloc(sizeof *e);
    if (!e)
      exit(2);
    e->key = key;
    e->owner = me;
    e->next = *slot;
    *slot = e;
    r->shared_ins++;
  }
  pthread_mutex_unlock(lock);
}

static void *worker(void *arg) {
  unsigned me = (unsigned)(long)arg;
  unsigned long long seed = 0x9e3779b97f4a7c15ull * (me + 1);
  struct tnode *root = NULL;
  result_t *r = &results[me];
  int bad = 0;
  long i;
  /* Start from half the key space. */
  for (i = 0; i < KEYS / 2; i++)
    tree_insert(&root, (unsigned)(next_rand(&seed) % KEYS));
  for (i = 0; i < ops_per_thread; i++) {
    unsigned long long x = next_rand(&seed);
    unsigned key = (unsigned)(x % KEYS);
    unsigned op = (unsigned)(x >> 40) % 32;
    if (op < 16) {
      struct tnode *t = tree_find(root, key);
      if (t && t->val != key * 2654435761u)
        bad = 1;
    } else if (op < 23) {
      tree_insert(&root, key);
    } else if (op < 30) {
      tree_remove(&root, key);
    } else {
      shared_op(key, me, r);
    }
  }
  tree_stats(root, &r->size, &r->sum, &bad);
  tree_free(root);
  if (bad)
    r->size = -1;
  return NULL;
}

static double clock_seconds(clockid_t clock) {
  struct timespec ts;
  clock_gettime(clock, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  pthread_t th[MAXT];
  int n = argc > 1 ? atoi(argv[1]) : 1, i;
  double t0, t1, c0, c1;
  long ins = 0, del = 0, left = 0;
  if (argc > 2)
    ops_per_thread = atol(argv[2]);
  if (n < 1 || n > MAXT || ops_per_thread < 1) {
    fprintf(stderr, "usage: scaling THREADS(1-%d) [OPS_PER_THREAD]\n", MAXT);
    return 2;
  }
  for (i = 0; i < LOCKS; i++)
    pthread_mutex_init(&table_lock[i], NULL);
  c0 = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
  t0 = clock_seconds(CLOCK_MONOTONIC);
  for (i = 0; i < n; i++) {
    if (pthread_create(&th[i], NULL, worker, (void *)(long)i) != 0)
      return 2;
  }
  for (i = 0; i < n; i++) {
    pthread_join(th[i], NULL);
  }
  t1 = clock_seconds(CLOCK_MONOTONIC);
  c1 = clock_seconds(CLOCK_PROCESS_CPUTIME_ID);
  for (i = 0; i < n; i++) {
    if (results[i].size < 0) {
      printf("FAIL scaling: thread %d's tree is corrupt\n", i);
      return 1;
    }
    printf("thread %d: %ld keys, sum %ld\n", i, results[i].size, results[i].sum);
    ins += results[i].shared_ins;
    del += results[i].shared_del;
  }
  for (i = 0; i < (1 << HBITS); i++) {
    struct hentry *e = table[i];
    while (e) {
      struct hentry *next = e->next;
      free(e);
      left++;
      e = next;
    }
  }
  if (ins - del != left) {
    printf("FAIL scaling: the shared table holds %ld entries, not %ld\n", left,
           ins - del);
    return 1;
  }
  printf("ok scaling\n");
  fprintf(stderr, "seconds %.6f ops %ld cpu %.6f\n", t1 - t0,
          (long)n * (ops_per_thread + KEYS / 2), c1 - c0);
  return 0;
}
