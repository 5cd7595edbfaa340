// Waits in files without compact types.  A thread pool of its own file
// (Inputs/own-file/pool.c: workers in pthread_cond_wait, main in
// pool_wait_idle) runs tasks of this file that build and fold trees; a
// spin lock of its own file (spin.c) guards a shared list whose holder
// allocates.  The switch comes while threads wait there: main called the
// pool out of rewritten code with its roots saved (cp__call_out), the
// workers between tasks never came inside, the spinners called spin_lock
// out of rewritten code -- all count as stopped, and come back inside
// once the switch is over.  Before, the switch waited for them until
// COMPACTPTR_SAFEPOINT_TIMEOUT stopped the program.
// RUN: %clang %cflags -O1 -Werror -I%S/Inputs/own-file %s %S/Inputs/own-file/pool.c %S/Inputs/own-file/spin.c -lpthread -o %t.native
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin -I%S/Inputs/own-file %s %S/Inputs/own-file/pool.c %S/Inputs/own-file/spin.c %runtime -lpthread -o %t
// RUN: %t.native pool > %t.pool.native
// RUN: env COMPACTPTR_ARENA_LIMIT=512K COMPACTPTR_HIGH_WATER=50 COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 COMPACTPTR_SAFEPOINT_TIMEOUT=20000 %t pool > %t.pool.512K 2> %t.pool.512K.err
// RUN: diff %t.pool.native %t.pool.512K
// RUN: FileCheck %s < %t.pool.512K.err
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 COMPACTPTR_SAFEPOINT_TIMEOUT=20000 %t pool > %t.pool.256K 2> %t.pool.256K.err
// RUN: diff %t.pool.native %t.pool.256K
// RUN: FileCheck %s < %t.pool.256K.err
// RUN: %t.native spin > %t.spin.native
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 COMPACTPTR_SAFEPOINT_TIMEOUT=20000 %t spin > %t.spin.256K 2> %t.spin.256K.err
// RUN: diff %t.spin.native %t.spin.256K
// RUN: FileCheck %s < %t.spin.256K.err
// (The mark at half of 512K: the heap's peak depends on how the workers'
// tasks interleave, 384 KiB in one run, below the default mark of 87%.)
// The calls out, and the entries from outside.
// RUN: %clang %cflags -fplugin=%plugin -I%S/Inputs/own-file -fsyntax-only -Werror -fplugin-arg-compactptr-dump=- %s 2>&1 | FileCheck --check-prefix=TEXT %s
// CHECK: compactptr: switch to wide mode (high-water mark) after {{[0-9]+}} allocations: moved {{[0-9]+}} objects, {{.*}} threads stopped, verified
// CHECK: compactptr: mode wide
#include "pool.h"
#include "spin.h"
#include <compactptr.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT tnode {
  long key;
  struct tnode *left, *right;
};

static struct tnode *insert(struct tnode *t, long k) {
  struct tnode **at = &t;
  while (*at)
    at = k < (*at)->key ? &(*at)->left : &(*at)->right;
  struct tnode *n = malloc(sizeof *n);
  n->key = k;
  n->left = n->right = NULL;
  *at = n;
  return t;
}

static long fold(const struct tnode *t) {
  return t ? (t->key % 1000 + 3 * fold(t->left) + 7 * fold(t->right)) % 1000003 : 0;
}

static void drop(struct tnode *t) {
  if (!t)
    return;
  drop(t->left);
  drop(t->right);
  free(t);
}

struct job {
  int seed, n;
  long result;
};

// TEXT: {{^}}static __attribute__((noinline, cold, unused)) void run_job__outside(void *); __inline__ static void run_job(void *a) { int cp__entered __attribute__((unused)) = __extension__({ if (cp__outside()) { run_job__outside(a); return; } 0; });
// TEXT: {{^}}} } struct cp__args_run_job { void *a0; }; static void run_job__thunk(void *cp__p) { struct cp__args_run_job *cp__c = (struct cp__args_run_job *)cp__p; (run_job)(cp__c->a0); } static void run_job__outside(void *a) { struct cp__args_run_job cp__c; cp__c.a0 = a; cp__outside_run(run_job__thunk, &cp__c); }
static void run_job(void *a) {
  struct job *j = a;
  struct tnode *t = NULL;
  unsigned x = (unsigned)j->seed * 2654435761u + 1;
  for (int i = 0; i < j->n; i++) {
    x = x * 1103515245u + 12345u;
    t = insert(t, (long)(x >> 8));
  }
  j->result = fold(t);
  drop(t);
}

static int pool_mode(void) {
  struct tnode *mine = NULL; /* held across every wait: a root */
  struct job js[8];
  long total = 0;
  for (long i = 0; i < 3000; i++)
    mine = insert(mine, (i * 7919) % 5003);
  struct pool *p = pool_create(4);
  for (int r = 0; r < 6; r++) {
    for (int i = 0; i < 8; i++) {
      js[i].seed = r * 100 + i;
      js[i].n = 6000;
      pool_submit(p, run_job, &js[i]);
    }
    // TEXT: (void)(cp__slotframe.s[0] = mine, (!&cp__entry_pool_wait_idle ? cp__call_out() : (void)0), pool_wait_idle(cp__a{{[0-9_]+}})); if (!&cp__entry_pool_wait_idle) cp__call_back(); mine = cp__slotframe.s[0];
    pool_wait_idle(p);
    for (int i = 0; i < 8; i++)
      total = (total * 31 + js[i].result) % 1000000007;
    mine = insert(mine, r);
  }
  pool_destroy(p);
  printf("pool: total %ld, kept %ld\n", total, fold(mine));
  drop(mine);
  return 0;
}

struct CP_COMPACT lnode {
  int key;
  struct lnode *next;
};
static struct lnode *shared;
static int lock;

// TEXT: {{^}}static __attribute__((noinline, cold, unused)) void *spinner__outside(void *); __inline__ static void *spinner(void *a) { int cp__entered __attribute__((unused)) = __extension__({ if (cp__outside()) return spinner__outside(a); 0; });
static void *spinner(void *a) {
  int id = (int)(long)a;
  for (int i = 0; i < 400; i++) {
    // TEXT: (void)((!&cp__entry_spin_lock ? cp__call_out() : (void)0), spin_lock(cp__a{{[0-9_]+}})); if (!&cp__entry_spin_lock) cp__call_back();
    spin_lock(&lock);
    for (int k = 0; k < 20; k++) {
      struct lnode *n = malloc(sizeof *n);
      n->key = id * 100000 + i * 20 + k;
      n->next = shared;
      shared = n;
    }
    spin_unlock(&lock);
  }
  return NULL;
}

static int spin_mode(void) {
  pthread_t t[4];
  long sum = 0, count = 0;
  for (long i = 0; i < 4; i++)
    pthread_create(&t[i], NULL, spinner, (void *)i);
  for (int i = 0; i < 4; i++)
    pthread_join(t[i], NULL);
  for (struct lnode *n = shared; n; n = n->next) {
    sum += n->key;
    count++;
  }
  printf("spin: %ld nodes, sum %ld\n", count, sum);
  return 0;
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "spin"))
    return spin_mode();
  return pool_mode();
}
