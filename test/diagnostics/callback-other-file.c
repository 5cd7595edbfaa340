// Switchable mode: a function that may reach a safepoint (it allocates)
// handed as a callback to a function of another file whose prototype has
// compact types.  That file is rewritten too, sees no safepoint in its
// walk and compiles it in the dual form: a switch that becomes due in the
// callback waits under the walk's compact body, and once the arena runs
// out the program stops (a trial's walker, exit 70; the same code in one
// file ran).  Warned at the argument; quiet for a callback that cannot
// reach a safepoint, for a walk declared CP_SAFEPOINT, for a function
// whose prototype has no compact type (its file is not rewritten: the
// callback is entered from outside), and in compact-only builds.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Xclang -verify=co %s
// co-no-diagnostics
#include <compactptr.h>
#include <stdlib.h>

struct CP_COMPACT item {
  long k;
  struct item *next, *extra;
};

/* walk.c */
long walk(struct item *h, long (*f)(struct item *));
CP_SAFEPOINT long walk_checked(struct item *h, long (*f)(struct item *));
void for_each(void *ctx, void (*f)(void *, void *));

static long grow(struct item *i) {
  struct item *x = malloc(sizeof *x);
  x->k = i->k + 1;
  x->next = NULL;
  x->extra = i->extra;
  i->extra = x;
  return x->k;
}
static long key(struct item *i) { return i->k; }
static void visit(void *ctx, void *elt) {
  struct item *x = malloc(sizeof *x);
  x->k = (long)elt;
  *(long *)ctx += x->k;
  free(x);
}

long run(struct item *h) {
  long s = 0;
  s += walk(h, grow); // expected-warning {{'grow' may reach a safepoint (it allocates compact objects, or calls what does), and 'walk', a function of another file, may call it back: that file sees no safepoint in 'walk', so a switch due during such a callback waits until it returns, and should the arena run out first the program stops; declare 'walk' CP_SAFEPOINT where both files see it [-Wcompactptr-callback-safepoint]}}
  s += walk(h, &grow); // expected-warning {{'grow' may reach a safepoint}}
  s += walk(h, key);
  s += walk_checked(h, grow);
  for_each(&s, visit);
  return s;
}
