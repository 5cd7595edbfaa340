// Untyped pointer fields of compact structs -- a generic list's `void
// *data`, libuv's `typedef void *QUEUE[2]` linking objects through their
// members, a child pointer with a tag in its low bit -- hold addresses of
// compact objects and of places inside them.  They were copied as bytes,
// so after the switch they pointed into the released arena (exit 70, or
// only a void-escape warning).  The descriptor says CP_FIELD_ADDRESS and
// the switch moves each to the same place in the object's wide copy.  A
// store straight into such a field is not warned; one through a pointer
// that may land elsewhere still is.
// REQUIRES: plugin
// RUN: %rewrite --main-only %s -- %cflags -fplugin-arg-compactptr-mode=switchable 2>/dev/null > %t.c
// RUN: FileCheck --check-prefix=DESC %s < %t.c
// RUN: FileCheck --check-prefix=FRAME %s < %t.c
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only %s 2>&1 | FileCheck --check-prefix=WARN %s
// RUN: %clang %cflags -O1 %s -o %t.native
// RUN: %t.native > %t.expect
// RUN: %clang %cflags -O1 -fplugin=%plugin %s %runtime -o %t
// RUN: env COMPACTPTR_STATS=1 %t 2> %t.forced | diff %t.expect -
// RUN: grep -q 'switch to wide mode (cp_switch_to_wide())' %t.forced
// RUN: env COMPACTPTR_STATS=1 %t cons 2> %t.forced-cons | diff %t.expect -
// RUN: grep -q 'switch to wide mode (cp_switch_to_wide()) after 16667 allocations' %t.forced-cons
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: grep -q 'switch to wide mode' %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_VERIFY=1 %t | diff %t.expect -
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_HIGH_WATER=20 COMPACTPTR_VERIFY=1 %t | diff %t.expect -
// RUN: FileCheck %s < %t.expect
// CHECK: items 20000 sum 599970000 queue 6667 tagged 20000 ok
// CHECK-NEXT: drained {{[0-9]+}}, queue empty 1
#include <compactptr.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>

typedef void *QUEUE[2];
#define Q_NEXT(q) (*(QUEUE **)&((*(q))[0]))
#define Q_PREV(q) (*(QUEUE **)&((*(q))[1]))
#define Q_INIT(q) do { Q_NEXT(q) = (q); Q_PREV(q) = (q); } while (0)
#define Q_INSERT_TAIL(h, q)                                                   \
  do {                                                                        \
    Q_NEXT(q) = (h);                                                          \
    Q_PREV(q) = Q_PREV(h);                                                    \
    Q_NEXT(Q_PREV(q)) = (q);                                                  \
    Q_PREV(h) = (q);                                                          \
  } while (0)
#define Q_DATA(p, type, field) ((type *)((char *)(p) - offsetof(type, field)))

struct CP_COMPACT item {
  int key;
  long val;
};

// A generic cell: what it carries is a compact object behind `void *`.
struct CP_COMPACT cell {
  void *data;
  struct cell *next;
};

struct CP_COMPACT job {
  int id;
  QUEUE link;
};

struct CP_COMPACT owner {
  QUEUE jobs;
  char *name_at; // into another object's bytes
  long pad;
};

// A child with its low bit set: a leaf, as crit-bit trees tag theirs.
struct CP_COMPACT branch {
  void *child;
  struct branch *up;
};
#define TAG(p) ((void *)((char *)(p) + 1))
#define UNTAG(p) ((struct item *)((char *)(p) - 1))

// A queue moved into a local QUEUE and drained, a record allocated per job,
// the switch midway (libuv's uv__run_pending): the local array holds
// addresses inside compact objects across the switch, so its frame
// registers it, element by element.
struct CP_COMPACT rec {
  long v;
  struct rec *next;
};
static struct rec *recs;

static long drain(struct owner *o) {
  QUEUE pq;
  QUEUE *q;
  long n = 0, s = 0;
  if (Q_NEXT(&o->jobs) == &o->jobs)
    return 0;
  Q_NEXT(&pq) = Q_NEXT(&o->jobs);
  Q_PREV(&pq) = Q_PREV(&o->jobs);
  Q_PREV(Q_NEXT(&pq)) = &pq;
  Q_NEXT(Q_PREV(&pq)) = &pq;
  Q_INIT(&o->jobs);
  while (Q_NEXT(&pq) != &pq) {
    q = Q_NEXT(&pq);
    Q_NEXT(Q_PREV(q)) = Q_NEXT(q);
    Q_PREV(Q_NEXT(q)) = Q_PREV(q);
    struct job *j = Q_DATA(q, struct job, link);
    struct rec *r = malloc(sizeof *r);
    r->v = j->id;
    r->next = recs;
    recs = r;
    if (++n == 1000)
      cp_switch_to_wide();
    s += j->id;
  }
  return s;
}

// A compact object handed over as `void *` to a function of this file that
// allocates before it stores it in an untyped field: the parameter is a
// root of its frame (the switch forced between, with argument "cons").
static long conses, switch_at_cons;
static struct cell *cons(void *data, struct cell *next) {
  struct cell *c = malloc(sizeof *c);
  if (++conses == switch_at_cons)
    cp_switch_to_wide();
  c->data = data;
  c->next = next;
  return c;
}

int main(int argc, char **argv) {
  struct cell *head = NULL;
  struct owner *o = malloc(sizeof *o);
  Q_INIT(&o->jobs);
  struct branch *br = NULL;
  if (argc > 1 && argv[1][0] == 'c')
    switch_at_cons = 5000;
  for (int i = 0; i < 20000; i++) {
    struct item *it = malloc(sizeof *it);
    it->key = i;
    it->val = (long)i * 2;
    head = cons(it, head);
    if (i % 3 == 0) {
      struct job *j = malloc(sizeof *j);
      j->id = i;
      Q_INSERT_TAIL(&o->jobs, &j->link);
    }
    struct branch *b = malloc(sizeof *b);
    b->child = TAG(it);
    b->up = br;
    br = b;
  }
  o->name_at = (char *)&((struct item *)head->data)->val + 2;
  long n = 0, sum = 0, queued = 0, tagged = 0;
  for (struct cell *c = head; c; c = c->next, n++) {
    struct item *it = c->data;
    sum += it->key + it->val;
  }
  for (QUEUE *q = Q_NEXT(&o->jobs); q != &o->jobs; q = Q_NEXT(q))
    queued += Q_DATA(q, struct job, link)->id % 3 == 0;
  for (struct branch *b = br; b; b = b->up)
    tagged += ((uintptr_t)b->child & 1) && UNTAG(b->child)->val == 2L * UNTAG(b->child)->key;
  int ok = o->name_at == (char *)&((struct item *)head->data)->val + 2;
  printf("items %ld sum %ld queue %ld tagged %ld %s\n", n, sum, queued, tagged,
         ok ? "ok" : "WRONG");
  printf("drained %ld, queue empty %d\n", drain(o), Q_NEXT(&o->jobs) == &o->jobs);
  return 0;
}
// DESC: {"data", __builtin_offsetof(struct cp__c_cell, data), __builtin_offsetof(struct cell, data), CP_FIELD_ADDRESS, 1, 0, 0},
// DESC: {"link", __builtin_offsetof(struct cp__c_job, link), __builtin_offsetof(struct job, link), CP_FIELD_ADDRESS, 2, 0, 0},
// DESC: {"name_at", {{.*}} CP_FIELD_ADDRESS, 1, 0, 0},
// DESC: {"child", {{.*}} CP_FIELD_ADDRESS, 1, 0, 0},
// FRAME: QUEUE pq = {0}; {{.*}}cp__root(&cp__rt{{[0-9]+}}[0], (void *)&pq, CP_ROOT_POINTER, 2, 0, "pq")
// FRAME: cp__root(&cp__rt{{[0-9]+}}[0], (void *)&data, CP_ROOT_POINTER, 1, 0, "data")
// WARN-NOT: void-escape
// WARN: address-fields.c:{{[0-9]+}}:31: warning: the address of field 'link' inside a compact object is stored through a pointer; unless it lands in an untyped pointer field of a compact object
