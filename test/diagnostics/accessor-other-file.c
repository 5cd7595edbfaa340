// Switchable mode: a function of type 'void *(void *)' that returns a
// compact pointer and whose address goes to another file's function that
// is not pthread_create (a generic list walker's `next_of` accessor): the
// result goes to code the plugin does not see, which may hold it while
// it calls back code that switches (void-escape).  The message names the
// function the accessor goes to and claims no thread: before, it said the
// accessor was "run there as a thread's start routine" whose result
// "reaches pthread_join".  The thread wording stays for start routines
// pthread_create is handed (thread-return-value.c, fork-helper-result.c).
// Quiet: a start routine this file starts with pthread_create (the
// runtime keeps its result), an accessor handed to a function of this
// file, compact-only builds.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Werror %s
#include <compactptr.h>
#include <pthread.h>
#include <stdlib.h>

struct CP_COMPACT sym {
  int v;
  struct sym *prev;
};

/* lib_walk.c, built without the plugin */
void walk_chain(void *first, void *(*next_of)(void *),
                void (*visit)(void *, void *), void *ctx);

// expected-warning@+1 {{a compact pointer to 'struct sym' is returned as 'void *' by 'sym_prev', whose address goes to 'walk_chain', code of another file: the result goes to code the plugin does not see; kept there, it is no root, and after the switch it points into the released arena (keep the code that holds the result in this file, or hand it over in a field or a root of its own type; for a thread, start it with pthread_create here: the runtime keeps the results of the start routines it sees; a cast to 'void *' at the return says that code keeps nothing)}}
static void *sym_prev(void *s) { return ((struct sym *)s)->prev; }
static void *sym_prev_here(void *s) { return ((struct sym *)s)->prev; }
static void add(void *s, void *ctx) { *(long *)ctx += ((struct sym *)s)->v; }

static void walk_here(void *first, void *(*next_of)(void *), long *acc) {
  void *p;
  for (p = first; p; p = next_of(p))
    add(p, acc);
}

static void *make(void *arg) {
  struct sym *s = malloc(sizeof *s);
  s->v = (int)(long)arg;
  s->prev = NULL;
  return s;
}

long run(struct sym *top) {
  long acc = 0;
  pthread_t th;
  void *r;
  walk_chain((void *)top, sym_prev, add, &acc);
  walk_here((void *)top, sym_prev_here, &acc);
  pthread_create(&th, NULL, make, (void *)7);
  pthread_join(th, &r);
  return acc + ((struct sym *)r)->v;
}
