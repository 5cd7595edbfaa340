// Reads of an offset kept at run time (uthash's `tbl->hho`) in the shapes
// a review found wrong or refused once the reads were printed in the
// layout of the moment: one generic helper that steps back for two
// element types (its reads took the last cast's type only: silently
// wrong after the switch); a step whose result stays `void *`; a test of
// the offset before its first measurement, and reads that are no step
// (they stopped the program as "set by hand").  The
// element types put their links at offsets that collide across the
// layouts (a user's compact offset is a group's wide one).
// REQUIRES: plugin
// RUN: %clang %cflags -O1 %s -o %t.native
// RUN: %t.native > %t.expect
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %t | diff %t.expect -
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: grep -q 'switch to wide mode' %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: grep -q 'switch to wide mode' %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=512K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: grep -q 'switch to wide mode' %t.err
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co
// RUN: %t.co | diff %t.expect -
#include <compactptr.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT link;
struct link {
  struct link *next;
  void *prev; /* the element before, as uthash keeps it */
};
struct table {
  struct link *first, *tail;
  ptrdiff_t off;
  unsigned n;
};

struct CP_COMPACT user {
  struct user *best, *worst;
  struct link ln; /* compact 8, wide 16 */
  int id;
};

struct CP_COMPACT group {
  int id;
  struct link ln; /* compact 4, wide 8 */
};

/* One helper for both types.  (Above 'struct group' it is refused: it
 * could not name that type's offsets; diagnostics/run-time-offset.c.) */
static void *owner_of(struct table *t, struct link *l) {
  return (char *)l - t->off;
}

/* As uthash adds: the new element's `prev` is the tail link's element, a
 * step that stays `void *`. */
#define APPEND(t, e)                                                        \
  do {                                                                      \
    if (!(t)->off) /* not measured yet */                                   \
      (t)->off = (char *)&(e)->ln - (char *)(e);                            \
    (e)->ln.next = NULL;                                                    \
    (e)->ln.prev = (t)->tail ? (void *)((char *)(t)->tail - (t)->off) : NULL; \
    if ((t)->tail)                                                          \
      (t)->tail->next = &(e)->ln;                                           \
    else                                                                    \
      (t)->first = &(e)->ln;                                                \
    (t)->tail = &(e)->ln;                                                   \
    (t)->n++;                                                               \
  } while (0)

static struct table users, groups;

int main(void) {
  for (int i = 0; i < 30000; i++) {
    struct user *u = calloc(1, sizeof *u);
    u->id = i;
    APPEND(&users, u);
    if (i % 3 == 0) {
      struct group *g = calloc(1, sizeof *g);
      g->id = i / 3;
      APPEND(&groups, g);
    }
  }
  long su = 0, sg = 0, back = 0;
  for (struct link *l = users.first; l; l = l->next) {
    struct user *u = (struct user *)owner_of(&users, l);
    su += u->id;
  }
  for (struct link *l = groups.first; l; l = l->next) {
    struct group *g = (struct group *)owner_of(&groups, l);
    sg += g->id;
  }
  /* Back from the last through the `void *` links. */
  for (struct user *e = (struct user *)owner_of(&users, users.tail); e;
       e = e->ln.prev)
    back++;
  printf("%u users %ld, %u groups %ld, back %ld, offsets %s\n", users.n, su,
         groups.n, sg, back, users.off > 0 && groups.off > 0 ? "set" : "unset");
  return 0;
}
