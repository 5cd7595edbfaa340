// A struct only declared where a function holds pointers to it in roots
// (`struct ctx;`, a visitor's context defined further down): the frame's
// root descriptors name the type's descriptor, which is declared with the
// type's definition.  The function gets the descriptor declared before
// it; before, the rewrite did not compile ("use of undeclared identifier
// 'cp__desc_ctx'") where the native build and compact-only did.
// REQUIRES: plugin
// RUN: %clang %cflags -O1 %s -o %t.native
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %clang %cflags -O1 -fplugin=%plugin -fplugin-arg-compactptr-dump=- -fsyntax-only %s 2>&1 | FileCheck %s --check-prefix=REWRITE
// RUN: %t.native > %t.expect
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: FileCheck %s < %t.err
// CHECK: compactptr: switch to wide mode
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  struct node *next;
  long key;
};

struct ctx; /* defined below */
struct CP_COMPACT later;

static void fill(struct ctx *c, long n);
static void fill_later(struct ctx **c);
static long sum(struct later *l);

// REWRITE: {{^}}static cp_type_desc_t cp__desc_ctx; __inline__ static void run(
static void run(struct ctx *c, long rounds) {
  for (long r = 0; r < rounds; r++)
    fill(c, 1000);
}

// A C23 attribute ahead of the function: the declaration goes before it,
// or the attribute would apply to the descriptor and the constructor
// would never run.
static int set_up;
// (So does the declaration of the way in from outside: setup is an entry.)
// REWRITE: {{^}}static __attribute__((noinline, cold, unused)) void setup__outside(void); static cp_type_desc_t cp__desc_ctx; {{\[\[}}gnu::constructor]] __inline__ static void setup(
[[gnu::constructor]] static void setup(void) {
  struct ctx *c = 0;
  fill_later(&c);
  set_up = c != 0;
}

// Held across an allocation in a frame slot, before its type is defined.
// REWRITE: {{^}}static cp_type_desc_t cp__desc_later; {{.*}}static long walk(
static long walk(struct later *l, long n) {
  struct node *extra = malloc(sizeof *extra);
  extra->key = n;
  extra->next = NULL;
  long s = sum(l) + extra->key;
  free(extra);
  return s;
}

struct ctx {
  struct node *head;
  long count;
};

struct CP_COMPACT later {
  struct node *list;
};

static void fill(struct ctx *c, long n) {
  for (long i = 0; i < n; i++) {
    struct node *e = malloc(sizeof *e);
    e->key = c->count++;
    e->next = c->head;
    c->head = e;
  }
}

static struct ctx boot;
static void fill_later(struct ctx **c) {
  fill(&boot, 10);
  *c = &boot;
}

static long sum(struct later *l) {
  long s = 0;
  for (struct node *p = l->list; p; p = p->next)
    s += p->key;
  return s;
}

int main(void) {
  struct ctx c = {NULL, 0};
  run(&c, 60);
  struct later *l = malloc(sizeof *l);
  l->list = c.head;
  printf("%d %ld nodes, sum %ld\n", set_up, c.count, walk(l, 7));
  return 0;
}
