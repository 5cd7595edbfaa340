// Switchable mode: libc that holds compact pointers where the switch cannot
// see them.  qsort (bsearch, tsearch, ...) calls its comparator back while
// it holds copies of the elements it was given: a comparator that may
// reach a safepoint (it allocates a compact object) is flagged
// (callback-safepoint); a pure one is not.  tsearch keeps the pointer it
// is given after it returns: a compact pointer passed there is flagged
// (void-escape), and so is one stored in the ENTRY that hsearch keeps,
// as for a generic container of the program (a key's value
// set with pthread_setspecific is kept by the runtime instead).  Before, neither had a warning, and
// both stopped the program after a switch (exit 70).  Compact-only mode
// never switches: no warning.  A comparator of this file called directly
// keeps nothing (before, void-escape warned there too); a function of
// this file that stores its argument does.  The kernel keeps a copy of
// the struct whose address epoll_ctl and timer_create are handed: a
// compact pointer in its `data.ptr` or `sival_ptr` is flagged too (a
// trial's connections came back from epoll_wait after a switch as
// addresses in the released arena: exit 70, with no warning), also
// through a local pointer or an array, and so is one in a signal's value
// that sigqueue queues.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only %s 2>&1 | FileCheck --implicit-check-not=warning: %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Werror %s
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -fplugin-arg-compactptr-Wno-compactptr-callback-safepoint -fplugin-arg-compactptr-Wno-compactptr-void-escape -Werror %s
#define _GNU_SOURCE
#include <compactptr.h>
#include <pthread.h>
#include <search.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <time.h>

struct CP_COMPACT sym {
  int key;
  struct sym *memo;
};

static int by_key(const void *a, const void *b) {
  const struct sym *x = *(struct sym *const *)a, *y = *(struct sym *const *)b;
  return (x->key > y->key) - (x->key < y->key);
}

// Memoizes each comparison it makes into a new object: it allocates.
static int by_key_memo(const void *a, const void *b) {
  struct sym *x = *(struct sym *const *)a;
  struct sym *m = malloc(sizeof *m);
  m->key = x->key;
  m->memo = x->memo;
  x->memo = m;
  return by_key(a, b);
}

static int cmp_sym(const void *a, const void *b) {
  return ((const struct sym *)a)->key - ((const struct sym *)b)->key;
}

static void *stash;
static void keep(void *p) { stash = p; }

static void *index_root;
static pthread_key_t current;

void sort_all(struct sym **v, size_t n) {
  qsort(v, n, sizeof *v, by_key);
  qsort(v, n, sizeof *v, by_key_memo);
  // CHECK: libc-callbacks.c:[[@LINE-1]]:26: warning: 'by_key_memo' may reach a safepoint (it allocates compact objects, or calls what does), and 'qsort' calls it back while it holds copies of the pointers it was given, which are no roots
  struct sym *key = v[0];
  (void)bsearch(&key, v, n, sizeof *v, &by_key_memo);
  // CHECK: libc-callbacks.c:[[@LINE-1]]:40: warning: 'by_key_memo' may reach a safepoint
}

void remember(struct sym *s) {
  tsearch(s, &index_root, cmp_sym);
  // CHECK: libc-callbacks.c:[[@LINE-1]]:11: warning: a compact pointer to 'struct sym' is passed as 'void *' to 'tsearch', which keeps it after it returns; kept there, it is no root, and after the switch it points into the released arena (keep such pointers in a structure of the program's own (a tree or table of compact type) instead, or build the program compact-only (--cp-mode=compact-only), which never switches)
  (void)tfind(s, &index_root, cmp_sym); // kept only while it runs
  pthread_setspecific(current, s);
  // (Not flagged: the runtime keeps a key's compact value as a root,
  // threads/key-value-after-switch.c.)
  // What pthread_getspecific gives back is what it kept, not an object
  // allocated outside the arena (no foreign-object warning, in any mode).
  struct sym *back = pthread_getspecific(current);
  back->key++;
  if (s->memo && cmp_sym(s, s->memo) == 0) // keeps nothing
    s->key++;
  keep(s);
  // CHECK: libc-callbacks.c:[[@LINE-1]]:8: warning: a compact pointer to 'struct sym' is passed as 'void *' to 'keep'; kept there
  memset(s, 0, sizeof *s); // libc that keeps nothing
}

// hsearch keeps the ENTRY it enters: a compact pointer in its `data`
// member, however it got there (before, none of these was warned, and
// after a switch a table of 50000 entries matched 14509 of its items).
void enter(struct sym *s, char *name, struct hsearch_data *tab) {
  hsearch((ENTRY){.key = name, .data = s}, ENTER);
  // CHECK: libc-callbacks.c:[[@LINE-1]]:40: warning: a compact pointer to 'struct sym' is stored as 'void *' in 'ENTRY' handed to 'hsearch' on line [[@LINE-1]], which keeps it after it returns; kept there, it is no root, and after the switch it points into the released arena (keep such pointers in a structure of the program's own
  ENTRY e = {name, s};
  // CHECK: libc-callbacks.c:[[@LINE-1]]:20: warning: a compact pointer to 'struct sym' is stored as 'void *' in 'ENTRY' handed to 'hsearch' on line [[@LINE+1]]
  hsearch(e, ENTER);
  ENTRY f, *found;
  f.key = name;
  f.data = (void *)s; // a cast does not change what libc keeps
  // CHECK: libc-callbacks.c:[[@LINE-1]]:12: warning: a compact pointer to 'struct sym' is stored as 'void *' in 'ENTRY' handed to 'hsearch_r' on line [[@LINE+1]]
  hsearch_r(f, ENTER, &found, tab);
  ENTRY q = {name, NULL}; // no compact pointer in it
  (void)hsearch(q, FIND);
  ENTRY look = {name, s}; // FIND keeps nothing
  (void)hsearch(look, FIND);
}

// Copies, elements and results of a function reach it too.
static ENTRY entry_of(char *name, struct sym *s) {
  ENTRY e = {name, s};
  // CHECK: libc-callbacks.c:[[@LINE-1]]:20: warning: a compact pointer to 'struct sym' is stored as 'void *' in 'ENTRY' handed to 'hsearch' on line [[@LINE+10]]
  return e;
}
void enter_more(struct sym *s, char *name) {
  ENTRY first = {name, s}, copy = first;
  // CHECK: libc-callbacks.c:[[@LINE-1]]:24: warning: a compact pointer to 'struct sym' is stored as 'void *' in 'ENTRY' handed to 'hsearch' on line [[@LINE+1]]
  hsearch(copy, ENTER);
  struct { int n; ENTRY items[2]; } batch = {2, {{name, s}, {name, NULL}}};
  // CHECK: libc-callbacks.c:[[@LINE-1]]:57: warning: a compact pointer to 'struct sym' is stored as 'void *' in 'ENTRY' handed to 'hsearch' on line [[@LINE+1]]
  hsearch(batch.items[0], ENTER);
  hsearch(entry_of(name, s), ENTER);
}

// The helper's result kept in a local first, and a wrapper that enters
// what it is handed.
static ENTRY entry_for(char *name, struct sym *s) {
  ENTRY e = {name, s};
  // CHECK: libc-callbacks.c:[[@LINE-1]]:20: warning: a compact pointer to 'struct sym' is stored as 'void *' in 'ENTRY' handed to 'hsearch' on line [[@LINE+3]]
  return e;
}
static void put(ENTRY e) { hsearch(e, ENTER); }
void enter_wrapped(struct sym *s, char *name) {
  ENTRY got = entry_for(name, s);
  put(got);
  ENTRY direct = {name, s};
  // CHECK: libc-callbacks.c:[[@LINE-1]]:25: warning: a compact pointer to 'struct sym' is stored as 'void *' in 'ENTRY' handed to 'hsearch' on line [[@LINE-5]]
  put(direct);
}

// Kept by the kernel through the struct's address.
void watch(int ep, int fd, struct sym *s) {
  struct epoll_event ev = {.events = EPOLLIN};
  ev.data.ptr = s;
  // CHECK: libc-callbacks.c:[[@LINE-1]]:17: warning: a compact pointer to 'struct sym' is stored as 'void *' in 'struct epoll_event' whose address is handed to 'epoll_ctl' on line [[@LINE+1]], which keeps it after it returns
  epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
  struct sigevent se;
  memset(&se, 0, sizeof se);
  se.sigev_notify = SIGEV_THREAD;
  se.sigev_value.sival_ptr = s;
  // CHECK: libc-callbacks.c:[[@LINE-1]]:30: warning: a compact pointer to 'struct sym' is stored as 'void *' in 'struct sigevent' whose address is handed to 'timer_create' on line [[@LINE+2]]
  timer_t t;
  timer_create(CLOCK_MONOTONIC, &se, &t);
  // Removed: EPOLL_CTL_DEL keeps nothing.
  struct epoll_event gone = {.events = 0};
  gone.data.ptr = s;
  epoll_ctl(ep, EPOLL_CTL_DEL, fd, &gone);
  // Through a local pointer, and an array that decays.
  struct epoll_event by_ptr = {.events = EPOLLIN};
  struct epoll_event *evp = &by_ptr;
  by_ptr.data.ptr = s;
  // CHECK: libc-callbacks.c:[[@LINE-1]]:21: warning: a compact pointer to 'struct sym' is stored as 'void *' in 'struct epoll_event' whose address is handed to 'epoll_ctl' on line [[@LINE+1]]
  epoll_ctl(ep, EPOLL_CTL_MOD, fd, evp);
  struct epoll_event one[1] = {{.events = EPOLLIN}};
  one[0].data.ptr = s;
  // CHECK: libc-callbacks.c:[[@LINE-1]]:21: warning: a compact pointer to 'struct sym' is stored as 'void *' in 'struct epoll_event[1]' handed to 'epoll_ctl' on line [[@LINE+1]]
  epoll_ctl(ep, EPOLL_CTL_ADD, fd, one);
  // A queued signal's value.
  union sigval sv;
  sv.sival_ptr = s;
  // CHECK: libc-callbacks.c:[[@LINE-1]]:18: warning: a compact pointer to 'struct sym' is stored as 'void *' in 'union sigval' handed to 'sigqueue' on line [[@LINE+1]]
  sigqueue(0, SIGUSR1, sv);
  // Read back only: epoll_wait's events are no keeping call.
  struct epoll_event out[4];
  (void)epoll_wait(ep, out, 4, 0);
}
