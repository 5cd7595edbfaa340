/* threads.c - worker threads with private trees and a shared hash table.
 *
 * In the style of bulk-synchronous simulators and servers written with
 * POSIX threads: each worker owns a binary search tree it inserts into
 * and deletes from, recycles deleted nodes through a free list kept in a
 * _Thread_local pointer, and publishes counts into one hash table shared
 * by all workers behind a pthread mutex.  The run has phases separated by
 * a pthread barrier: the workers build their trees; then main fills the
 * shared table with its own requests while the workers wait; then the
 * workers walk and tear down their trees.  main joins them and prints
 * their results in thread order, so the output does not depend on
 * scheduling.  Shapes: threads that allocate and free nodes concurrently,
 * a thread-local node pointer, a mutex-protected global table of node
 * pointers, node pointers held in other threads' locals while main works,
 * per-thread result structs passed through pthread_create's `void *`.
 *
 * Usage: threads [inserts-per-thread [threads]]      (default 60000 2)
 */
#include <compactptr.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT tnode {
  long key;
  long weight;
  struct tnode *left, *right;
};

struct CP_COMPACT hentry {
  long key;
  long count;
  struct hentry *next;
};

#define NBUCKETS 4096
static struct hentry *table[NBUCKETS];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_barrier_t built, resume;

static _Thread_local struct tnode *free_nodes;  /* this thread's recycled nodes */
static _Thread_local long recycled;

struct work {
  int id;
  long n;
  long sum, nodes, recycled, depth;
};

static struct tnode *get_node(void)
{
  struct tnode *t = free_nodes;

  if (t) {
    free_nodes = t->left;
    recycled++;
    return t;
  }
  return malloc(sizeof(struct tnode));
}

static void put_node(struct tnode *t)
{
  t->left = free_nodes;
  free_nodes = t;
}

static struct tnode *insert(struct tnode *root, long key, long weight)
{
  struct tnode *p = root, *parent = NULL, *n;

  while (p) {
    if (key == p->key) {
      p->weight += weight;
      return root;
    }
    parent = p;
    p = key < p->key ? p->left : p->right;
  }
  n = get_node();
  n->key = key;
  n->weight = weight;
  n->left = n->right = NULL;
  if (!parent)
    return n;
  if (key < parent->key)
    parent->left = n;
  else
    parent->right = n;
  return root;
}

/* delete key if present (standard BST delete with successor copy) */
static struct tnode *delete(struct tnode *root, long key)
{
  struct tnode *p = root, *parent = NULL, *child;

  while (p && p->key != key) {
    parent = p;
    p = key < p->key ? p->left : p->right;
  }
  if (!p)
    return root;
  if (p->left && p->right) {
    struct tnode *s = p->right, *sp = p;

    while (s->left) {
      sp = s;
      s = s->left;
    }
    p->key = s->key;
    p->weight = s->weight;
    if (sp == p) sp->right = s->right; else sp->left = s->right;
    put_node(s);
    return root;
  }
  child = p->left ? p->left : p->right;
  if (!parent)
    root = child;
  else if (parent->left == p)
    parent->left = child;
  else
    parent->right = child;
  put_node(p);
  return root;
}

static void publish(long key)
{
  unsigned h = (unsigned)(key * 2654435761u) % NBUCKETS;
  struct hentry *e;

  pthread_mutex_lock(&table_lock);
  for (e = table[h]; e; e = e->next)
    if (e->key == key)
      break;
  if (!e) {
    e = malloc(sizeof(*e));
    e->key = key;
    e->count = 0;
    e->next = table[h];
    table[h] = e;
  }
  e->count++;
  pthread_mutex_unlock(&table_lock);
}

static void walk(struct tnode *t, int d, struct work *w)
{
  if (!t)
    return;
  walk(t->left, d + 1, w);
  w->sum = (w->sum * 31 + t->key * 7 + t->weight) % 1000000007;
  w->nodes++;
  if (d > w->depth)
    w->depth = d;
  walk(t->right, d + 1, w);
}

static void release(struct tnode *t)
{
  if (!t)
    return;
  release(t->left);
  release(t->right);
  free(t);
}

static void *worker(void *arg)
{
  struct work *w = arg;
  struct tnode *root = NULL;
  unsigned long x = 0x9E3779B97F4A7C15UL * (unsigned long)(w->id + 1);
  long i;

  for (i = 0; i < w->n; i++) {
    long key;

    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    key = (long)(x % (unsigned long)(w->n * 2));
    root = insert(root, key, (long)(x >> 40) % 100);
    if (i % 3 == 2)
      root = delete(root, (long)((x >> 20) % (unsigned long)(w->n * 2)));
    if (i % 16 == 0)
      publish(key % 5000);
  }
  pthread_barrier_wait(&built);     /* main serves its requests now */
  pthread_barrier_wait(&resume);
  walk(root, 0, w);
  w->recycled = recycled;
  release(root);
  while (free_nodes) {
    struct tnode *t = free_nodes;

    free_nodes = t->left;
    free(t);
  }
  return NULL;
}

int main(int argc, char *argv[])
{
  long n = argc > 1 ? atol(argv[1]) : 60000;
  int nthreads = argc > 2 ? atoi(argv[2]) : 2;
  long i;
  pthread_t tid[16];
  struct work w[16];
  long distinct = 0, total = 0, maxc = 0;

  if (nthreads < 1 || nthreads > 16)
    nthreads = 2;
  pthread_barrier_init(&built, NULL, (unsigned)nthreads + 1);
  pthread_barrier_init(&resume, NULL, (unsigned)nthreads + 1);
  for (i = 0; i < nthreads; i++) {
    w[i].id = i;
    w[i].n = n;
    w[i].sum = w[i].nodes = w[i].recycled = w[i].depth = 0;
    if (pthread_create(&tid[i], NULL, worker, &w[i]) != 0) {
      perror("pthread_create");
      return 1;
    }
  }
  pthread_barrier_wait(&built);
  for (i = 0; i < n; i++)           /* main's own requests */
    publish(5000 + (long)(i * 7919 % 20000));
  pthread_barrier_wait(&resume);
  for (i = 0; i < nthreads; i++)
    pthread_join(tid[i], NULL);
  pthread_barrier_destroy(&built);
  pthread_barrier_destroy(&resume);
  for (i = 0; i < nthreads; i++)
    printf("thread %ld: %ld nodes, depth %ld, recycled %ld, checksum %ld\n", i, w[i].nodes,
           w[i].depth, w[i].recycled, w[i].sum);
  for (i = 0; i < NBUCKETS; i++)
    while (table[i]) {
      struct hentry *e = table[i];

      distinct++;
      total += e->count;
      if (e->count > maxc)
        maxc = e->count;
      table[i] = e->next;
      free(e);
    }
  printf("shared table: %ld keys, %ld publications, most %ld\n", distinct, total, maxc);
  return 0;
}
