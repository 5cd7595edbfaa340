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
// RUN: %rewrite --main-only %s -- %cflags -fplugin-arg-compactptr-mode=switchable 2>/dev/null | FileCheck --check-prefix=DESC %s
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only %s 2>&1 | FileCheck --check-prefix=WARN %s
// RUN: %clang %cflags -O1 %s -o %t.native
// RUN: %t.native > %t.expect
// RUN: %clang %cflags -O1 -fplugin=%plugin %s %runtime -o %t
// RUN: %t | diff %t.expect -
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: grep -q 'switch to wide mode' %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_VERIFY=1 %t | diff %t.expect -
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_HIGH_WATER=20 COMPACTPTR_VERIFY=1 %t | diff %t.expect -
// RUN: FileCheck %s < %t.expect
// CHECK: items 20000 sum 599970000 queue 6667 tagged 20000 ok
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

int main(void) {
  struct cell *head = NULL;
  struct owner *o = malloc(sizeof *o);
  Q_INIT(&o->jobs);
  struct branch *br = NULL;
  for (int i = 0; i < 20000; i++) {
    struct item *it = malloc(sizeof *it);
    it->key = i;
    it->val = (long)i * 2;
    struct cell *c = malloc(sizeof *c);
    c->data = it;
    c->next = head;
    head = c;
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
  return 0;
}
// DESC: {"data", __builtin_offsetof(struct cp__c_cell, data), __builtin_offsetof(struct cell, data), CP_FIELD_ADDRESS, 1, 0, 0},
// DESC: {"link", __builtin_offsetof(struct cp__c_job, link), __builtin_offsetof(struct job, link), CP_FIELD_ADDRESS, 2, 0, 0},
// DESC: {"name_at", {{.*}} CP_FIELD_ADDRESS, 1, 0, 0},
// DESC: {"child", {{.*}} CP_FIELD_ADDRESS, 1, 0, 0},
// WARN-NOT: address-fields.c:{{(8[0-9])}}:{{.*}}void-escape
// WARN: address-fields.c:88:31: warning: {{.*}} is stored through a pointer; unless it lands in an untyped pointer field of a compact object
