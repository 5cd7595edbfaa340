// Switchable mode: a compact pointer returned as 'void *' by a function of
// type 'void *(void *)' whose address goes to code of another file (a
// fork-join helper's fj_fork, a pool's submit) may be a thread's result
// there: pthread_join in that file hands it over from memory the switch
// does not see, and the runtime keeps only the results of the start
// routines it sees (pthread_create in this file).  Flagged (void-escape)
// at the return: before, the only warning fell on the join helper's
// result, blaming an allocation.  Not flagged: a start routine this file
// starts itself (its result is kept), a function of the same shape handed
// to a function of this file, a return of something else, a return
// cast to 'void *' by hand, compact-only.  A routine started here too is
// kept for this file's joins and flagged for the other's.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Werror %s
#include <compactptr.h>
#include <pthread.h>
#include <stdlib.h>

struct CP_COMPACT node {
  long v;
  struct node *next;
};

void *fj_fork(void *(*fn)(void *), void *arg); /* another file */
void *fj_join(void *task);

static struct node *build(long n) {
  struct node *h = NULL;
  for (long i = 0; i < n; i++) {
    struct node *x = malloc(sizeof *x);
    x->v = i;
    x->next = h;
    h = x;
  }
  return h;
}

static void *task(void *arg) {
  struct node *l = build((long)arg);
  return l; // expected-warning {{a compact pointer to 'struct node' is returned as 'void *' by 'task', whose address goes to 'fj_fork', code of another file: the result goes to code the plugin does not see}}
}

static void *counted(void *arg) { return arg; } // no compact pointer

static void *started(void *arg) { return build((long)arg); } // kept

static void *local_cb(void *arg) { return build((long)arg); }
static void *apply(void *(*fn)(void *), void *arg) { return fn(arg); }

// A cast to 'void *' at the return says that code runs no thread with it
// (a pool that drops its tasks' results, a container's visitor).
static void *visit(void *arg) {
  struct node *l = arg;
  return (void *)l->next;
}

// Started here and by the other file's helper: kept for this file's
// joins, flagged for the other's.
static void *both(void *arg) {
  struct node *l = build((long)arg);
  return l; // expected-warning {{is returned as 'void *' by 'both', whose address goes to 'fj_fork', code of another file}}
}

long run(void) {
  void *t = fj_fork(task, (void *)100);
  void *u = fj_fork(counted, (void *)3);
  pthread_t th;
  void *r;
  pthread_create(&th, NULL, started, (void *)5);
  pthread_join(th, &r);
  fj_join(fj_fork(visit, r));
  pthread_create(&th, NULL, both, (void *)6);
  pthread_join(th, NULL);
  fj_join(fj_fork(both, (void *)6));
  struct node *a = (struct node *)apply(local_cb, (void *)7);
  return (long)fj_join(u) + (fj_join(t) != NULL) + (r != NULL) + a->v;
}
