// A `void *` local or parameter that holds what the plugin cannot see
// into -- a table's `void *lookup(k)`, the `void *data` a callback gets
// through a function pointer, va_arg, libuv's `QUEUE *q = QUEUE_NEXT(h)`
// -- or a member of a local struct (a callback's context it fills
// through a pointer) may hold a compact object's address (the table, the list cell, the
// queue declared CP_COMPACT keep it in an untyped field, which the switch
// moves).  Held across a call that may switch, it was no root and pointed
// into the released arena after it (exit 70, with no compile-time
// diagnostic).  Each is a frame root now; the switch moves what in it is
// a compact address and leaves anything else.  A local handed an integer
// made a pointer, or made an integer, is none: the switch would change an
// integer that fell inside a live slab.  va_arg of a `void *` after such a
// call is warned, as the variadic arguments are no roots.
// REQUIRES: plugin
// RUN: %rewrite --main-only %s -- %cflags -fplugin-arg-compactptr-mode=switchable 2>/dev/null > %t.c
// RUN: FileCheck --check-prefix=FRAME %s < %t.c
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -DLATE %s 2>&1 | FileCheck --check-prefix=WARN %s
// RUN: %clang %cflags -O1 %s -o %t.native
// RUN: %t.native > %t.expect
// RUN: %clang %cflags -O1 -fplugin=%plugin %s %runtime -o %t
// RUN: env COMPACTPTR_STATS=1 %t lookup 2> %t.lookup | diff %t.expect -
// RUN: grep -q 'switch to wide mode (cp_switch_to_wide())' %t.lookup
// RUN: env COMPACTPTR_STATS=1 %t visit 2> %t.visit | diff %t.expect -
// RUN: grep -q 'switch to wide mode (cp_switch_to_wide())' %t.visit
// RUN: env COMPACTPTR_STATS=1 %t vararg 2> %t.vararg | diff %t.expect -
// RUN: grep -q 'switch to wide mode (cp_switch_to_wide())' %t.vararg
// RUN: env COMPACTPTR_STATS=1 %t queue 2> %t.queue | diff %t.expect -
// RUN: grep -q 'switch to wide mode (cp_switch_to_wide())' %t.queue
// RUN: env COMPACTPTR_STATS=1 %t ctx 2> %t.ctx | diff %t.expect -
// RUN: grep -q 'switch to wide mode (cp_switch_to_wide())' %t.ctx
// RUN: env COMPACTPTR_STATS=1 %t pair 2> %t.pair | diff %t.expect -
// RUN: grep -q 'switch to wide mode (cp_switch_to_wide())' %t.pair
// RUN: env COMPACTPTR_STATS=1 %t more 2> %t.more | diff %t.expect -
// RUN: grep -q 'switch to wide mode (cp_switch_to_wide())' %t.more
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_VERIFY=1 %t | diff %t.expect -
// RUN: FileCheck %s < %t.expect
// CHECK: lookup 1830 visit 4005 vararg 9 queue 15 keys 2855 find 49 more 98 ok
#include <compactptr.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT node {
  long val;
  struct node *next;
};

static const char *at = "";
static int tick;
// Each place a test switches: the n-th time `where` is reached.
static void maybe_switch(const char *where, int n) {
  if (strcmp(at, where) == 0 && ++tick == n)
    cp_switch_to_wide();
}

static struct node *mk(long val, struct node *next) {
  struct node *n = malloc(sizeof *n);
  n->val = val;
  n->next = next;
  return n;
}

// A symbol table the user declared CP_COMPACT, as the void-escape
// warning advises: its values are untyped.
struct CP_COMPACT entry {
  int key;
  void *value;
  struct entry *next;
};
static struct entry *bucket[64];

void *lookup(int key) {
  for (struct entry *e = bucket[key & 63]; e; e = e->next)
    if (e->key == key)
      return e->value;
  return NULL;
}

void insert(int key, void *value) {
  struct entry *e = malloc(sizeof *e);
  e->key = key;
  e->value = value;
  e->next = bucket[key & 63];
  bucket[key & 63] = e;
}

// FRAME: void *v = {{.*}}CP_ROOT_POINTER, 1, 0, {{"v"}}
static long sum_lookups(int n) {
  long sum = 0;
  for (int i = 0; i < n; i++) {
    void *v = lookup(i);
    maybe_switch("lookup", 30);
    struct node *extra = mk(1, NULL); // may switch too
    sum += ((struct node *)v)->val + extra->val;
  }
  return sum;
}

// A generic list whose cells are compact; its foreach hands each cell's
// data to a callback through a pointer.
struct CP_COMPACT cell {
  void *data;
  struct cell *next;
};
typedef void (*visit_fn)(void *data, void *user);

static struct cell *push(struct cell *l, void *data) {
  struct cell *c = malloc(sizeof *c);
  c->data = data;
  c->next = l;
  return c;
}

static void foreach(struct cell *l, visit_fn f, void *user) {
  for (; l; l = l->next)
    f(l->data, user);
}

static struct node *garbage;
// FRAME: static void visit(void *data, void *user) {{.*}}CP_ROOT_POINTER, 1, 0, {{"data"}}
static void visit(void *data, void *user) {
  long *sum = user;
  maybe_switch("visit", 40);
  garbage = mk(0, garbage); // may switch
  *sum += ((struct node *)data)->val;
}

// va_arg read into a local before the allocation.
// FRAME: void *first = va_arg(ap, void *); {{.*}}CP_ROOT_POINTER, 1, 0, {{"first"}}
static struct cell *push_all(struct cell *l, int n, ...) {
  va_list ap;
  va_start(ap, n);
  void *first = va_arg(ap, void *);
  maybe_switch("vararg", 1);
  l = push(l, NULL);
  l->data = first;
  for (int i = 1; i < n; i++)
    l = push(l, NULL);
  va_end(ap);
  return l;
}

#ifdef LATE
static struct cell *push_late(struct cell *l, int n, ...) {
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++)
    // WARN: [[@LINE+1]]:17: warning: va_arg reads a 'void *' after the call to 'push' on line [[@LINE+1]], which may reach a safepoint; the variadic arguments are no roots, so if the caller passed a compact object's address there
    l = push(l, va_arg(ap, void *));
  va_end(ap);
  return l;
}
#endif

// libuv's queue: two untyped links in each element.
typedef void *QUEUE[2];
#define Q_NEXT(q) (*(QUEUE **)&((*(q))[0]))
#define Q_PREV(q) (*(QUEUE **)&((*(q))[1]))
struct CP_COMPACT req {
  int id;
  QUEUE link;
};

// FRAME: QUEUE *q = Q_NEXT(&head); {{.*}}CP_ROOT_POINTER, 1, 0, {{"q"}}
static long walk_queue(int n) {
  QUEUE head;
  Q_NEXT(&head) = &head;
  Q_PREV(&head) = &head;
  for (int i = 0; i < n; i++) {
    struct req *r = malloc(sizeof *r);
    r->id = i;
    Q_NEXT(&r->link) = &head;
    Q_PREV(&r->link) = Q_PREV(&head);
    Q_NEXT(Q_PREV(&head)) = &r->link;
    Q_PREV(&head) = &r->link;
  }
  long sum = 0;
  QUEUE *q = Q_NEXT(&head);
  while (q != &head) {
    maybe_switch("queue", 5);
    garbage = mk(0, garbage); // may switch
    struct req *r = (struct req *)((char *)q - offsetof(struct req, link));
    sum += r->id;
    q = Q_NEXT(q);
  }
  return sum;
}

// A local struct with untyped members: a callback's context that it fills
// through a pointer, and one a table's value is stored into.  Each such
// member is a root.
struct find_ctx {
  long want;
  void *found;
};
static void find_cb(void *data, void *user) {
  struct find_ctx *c = user;
  if (((struct node *)data)->val == c->want)
    c->found = data;
}
// FRAME: struct find_ctx ctx = {want, NULL}; {{.*}}CP_ROOT_POINTER, 1, 0, {{"ctx.found"}}
// FRAME: } pair = {0}; {{.*}}CP_ROOT_POINTER, 2, 0, {{"pair.a"}}
static long find(struct cell *l, long want) {
  struct find_ctx ctx = {want, NULL};
  foreach(l, find_cb, &ctx);
  maybe_switch("ctx", 1);
  garbage = mk(0, garbage); // may switch
  struct {
    int n;
    void *a[2];
  } pair;
  pair.a[0] = lookup(7);
  pair.n = 1;
  maybe_switch("pair", 1);
  garbage = mk(0, garbage); // may switch
  return ((struct node *)ctx.found)->val + ((struct node *)pair.a[0])->val;
}

// More places such a value lands: an out-parameter, a local array, a
// member of a member, an element of a local array of structs, a whole
// struct value, a local first set to a
// sentinel no arena holds.  And places where a root would not compile,
// left as they were: a `register` local, one a goto may jump past.
struct outer {
  int tag;
  struct {
    void *p;
  } in;
};
static struct outer make_outer(int k) {
  struct outer o = {k, {lookup(k)}};
  return o;
}
struct kvp {
  int k;
  void *v;
};
static void get(int k, void **out) { *out = lookup(k); }
#define NOT_FOUND ((void *)-1)
// FRAME: void *res = NOT_FOUND; {{.*}}CP_ROOT_POINTER, 1, 0, {{"res"}}
// FRAME: void *vals[2] = {0}; {{.*}}CP_ROOT_POINTER, 2, 0, {{"vals"}}
// FRAME: struct outer o = {0}; {{.*}}CP_ROOT_POINTER, 1, 0, {{"o.in.p"}}
// FRAME: struct outer w = make_outer(13); {{.*}}CP_ROOT_POINTER, 1, 0, {{"w.in.p"}}
// FRAME: struct kvp kv[2] = {0}; {{.*}}CP_ROOT_POINTER, 1, 0, {{"kv\[0\].v"}}{{.*}}CP_ROOT_POINTER, 1, 0, {{"kv\[1\].v"}}
static long more(void) {
  void *out;
  get(11, &out);
  void *res = NOT_FOUND;
  res = lookup(12);
  void *vals[2];
  vals[0] = lookup(14);
  vals[1] = NULL;
  struct outer o;
  o = make_outer(15);
  struct outer w = make_outer(13);
  struct kvp kv[2];
  kv[1].v = lookup(17);
  register void *rv = lookup(16);
  long r = (long)((struct node *)rv)->val;
  maybe_switch("more", 1);
  garbage = mk(0, garbage); // may switch
  return ((struct node *)out)->val + ((struct node *)res)->val +
         ((struct node *)vals[0])->val + ((struct node *)o.in.p)->val +
         ((struct node *)w.in.p)->val + ((struct node *)kv[1].v)->val +
         (res == NOT_FOUND) + r;
}
static long jumps(int k) {
  if (k < 0)
    goto out;
  void *v = lookup(k);
  k += (int)((struct node *)v)->val;
out:
  return k;
}

// An integer kept as `void *`: no root, also when it comes from a table
// (`GPOINTER_TO_INT`), and a struct member handed one.
struct count {
  void *n;
  int hits;
};
static void *count_of(int k) { return (void *)(intptr_t)(3000000 + k); }
// FRAME-LABEL: static long counts{{[(]}}int n) {
// FRAME-NOT: CP_ROOT_POINTER
// FRAME: return total;
static long counts(int n) {
  long total = 0;
  for (int i = 0; i < n; i++) {
    void *c = count_of(i);
    struct count cc = {(void *)(intptr_t)(3000000 + i), 0};
    garbage = mk(0, garbage);
    total += (long)(intptr_t)c - 3000000 + (long)(intptr_t)cc.n - 3000000;
  }
  return total;
}

// An integer kept as `void *`: no root.
// FRAME-LABEL: static long keys{{[(]}}int n) {
// FRAME-NOT: 0, {{"k"}}
// FRAME: return sum {{[-]}} n
static long keys(int n) {
  long sum = 0;
  for (int i = 0; i < n; i++) {
    void *k = (void *)(intptr_t)(i + 1);
    garbage = mk(0, garbage);
    sum += (long)(intptr_t)k;
  }
  return sum - n * (n + 1) / 2 + 400;
}

int main(int argc, char **argv) {
  if (argc > 1)
    at = argv[1];
  for (int i = 0; i < 60; i++)
    insert(i, mk(i, NULL));
  long a = sum_lookups(60);
  struct cell *l = NULL;
  for (int i = 0; i < 90; i++)
    l = push(l, mk(i, NULL));
  long b = 0;
  foreach(l, visit, &b);
  long f = find(l, 42);
  l = push_all(NULL, 3, (void *)mk(9, NULL), (void *)NULL, (void *)NULL);
  long c = ((struct node *)l->next->next->data)->val;
  long d = walk_queue(6);
  long e = keys(2000) + counts(50) + jumps(3) + jumps(-1);
  long g = more();
  printf("lookup %ld visit %ld vararg %ld queue %ld keys %ld find %ld more %ld ok\n",
         a, b, c, d, e, f, g);
  return 0;
}
