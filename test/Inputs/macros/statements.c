/* Statement macros of BSD-queue style code that hold loops and declare
 * their own cursors, used in main and in functions that allocate: a
 * remove macro with a search loop over a global head whose address is a
 * compact pointer (the head lives in the compact heap), a sum macro that
 * declares its cursor and walks with a for loop, an EACH macro whose body
 * is a macro argument ending in an if without braces (`if (c) x; else
 * y;`), a loop written inside a STMT() argument, an iterator that opens
 * its body with `if (dead) continue; else`, and a head type declared by a
 * macro that ends with the declaration's own `;`, and a block macro with a
 * loop over a local array used in main (`{ int i_; for (...) ...; }`).
 * Usage: statements [n] (default 3000).  Prints checksums. */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT it {
  int v, dead;
  struct it *next;
};
#define DECL_HEAD(name, type) struct name { struct type *first; };
DECL_HEAD(lst, it)

struct lst all;

#define REM(h, x)                                                              \
  do {                                                                         \
    if ((h)->first == (x)) {                                                   \
      (h)->first = (x)->next;                                                  \
    } else {                                                                   \
      struct it *c_ = (h)->first;                                              \
      while (c_->next != (x))                                                  \
        c_ = c_->next;                                                         \
      c_->next = (x)->next;                                                    \
    }                                                                          \
  } while (0)
#define SUM(h, s)                                                              \
  do {                                                                         \
    struct it *p_;                                                             \
    for (p_ = (h)->first; p_; p_ = p_->next)                                   \
      (s) += p_->v;                                                            \
  } while (0)
#define EACH(x, h, body) for (x = (h)->first; x; x = x->next) body
#define STMT(s) do { s } while (0)
#define CLEAR(v) { int i_; for (i_ = 0; i_ < 4; i_++) (v)[i_] = 0; }
#define FOREACH_LIVE(x, h) for (x = (h)->first; x; x = x->next) if ((x)->dead) continue; else

static void push(struct lst *h, int v) {
  struct it *n = malloc(sizeof *n);
  n->v = v;
  n->dead = 0;
  n->next = h->first;
  h->first = n;
}

/* Allocates after the removal: a function of the checked form. */
static void replace(struct it *old, int v) {
  REM(&all, old);
  free(old);
  push(&all, v);
}

/* Copies the live elements: the body after the iterator allocates. */
static void copy_live(struct lst *from, struct lst *to) {
  struct it *x;
  FOREACH_LIVE(x, from) {
    struct it *n = malloc(sizeof *n);
    n->v = x->v * 2;
    n->dead = 0;
    n->next = to->first;
    to->first = n;
  }
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 3000, i;
  long s = 0, dead = 0, live = 0, s2 = 0;
  struct it *x, *b = NULL;
  struct lst copy = {NULL};
  long acc[4] = {1, 2, 3, 4};
  for (i = 0; i < n; i++) {
    push(&all, i);
    if (i == n / 2)
      b = all.first;
#ifdef SWITCH_MIDWAY
    if (i == n / 3)
      cp_switch_to_wide();
#endif
  }
  REM(&all, b);
  free(b);
  for (i = 0; i < 10; i++) {
    struct it *y = all.first->next;
    REM(&all, y);
    free(y);
  }
  replace(all.first->next->next, -5);
  SUM(&all, s);
  EACH(x, &all, if (x->v % 3 == 0) x->dead = 1;);
  EACH(x, &all, if (x->dead) dead++; else live += x->v;);
  x = all.first;
  STMT(while (x->v > n - 50) x = x->next;);
  FOREACH_LIVE(x, &all)
    s2 += x->v;
  copy_live(&all, &copy);
  SUM(&copy, s2);
  CLEAR(acc);
  for (x = copy.first; x; x = x->next)
    acc[x->v & 3] += x->v;
  printf("sum %ld, dead %ld, live %ld, first kept %d, live twice %ld, by class %ld %ld\n", s,
         dead, live, all.first->v, s2, acc[0], acc[2]);
  return 0;
}
