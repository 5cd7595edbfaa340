// A local whose address enters the heap lives in the compact heap (a
// boxed local), and its initializer list calls a function that allocates
// (`struct list l = { mk(0), 1 };`, a queue or skip list set up with its
// first node): the elements up to the last such call run first, in order,
// into temporaries (compact pointers among them are roots), then the
// object is allocated and initialized with them in the layout of the mode
// after the calls.  Before, this was refused ("initialize it in a
// statement of its own"); a designated list, an element read from a
// global that the call changes, a compact pointer held across the call,
// and elements after the last call are here, with a switch among them.
// REQUIRES: plugin
// RUN: %clang %cflags -O1 %s -o %t.native
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Werror -fplugin-arg-compactptr-dump=- %s 2>&1 | FileCheck %s --check-prefix=REWRITE
// RUN: %t.native > %t.expect
// RUN: %t.co | diff %t.expect -
// RUN: %t | diff %t.expect -
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: FileCheck %s < %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_VERIFY=1 %t | diff %t.expect -
// RUN: not %clang %cflags -fplugin=%plugin -fsyntax-only -DBAD %s 2>&1 | FileCheck %s --check-prefix=BAD
// CHECK: compactptr: switch to wide mode
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  int key;
  struct node *next;
};

struct list {
  struct node *head;
  long n;
  struct node *tail;
  int tag;
};

static int made;
static struct node *keep;

static struct node *mk(int k) {
  struct node *n = malloc(sizeof *n);
  n->key = k;
  n->next = NULL;
  made++;
  return n;
}

static void push(struct list *l, int k) {
  struct node *n = mk(k);
  n->next = l->head;
  l->head = n;
  l->n++;
}

static long drain(struct list *l) {
  long s = l->n * 1000 + l->tag;
  for (struct node *p = l->head; p; p = p->next)
    s += p->key;
  if (l->tail)
    s += l->tail->key * 7;
  return s;
}

static long round_of(int i, struct node *other) {
  // REWRITE: cp__box_a {{.*}}= ({ struct node *cp__i{{[0-9]+}} = 0; {{.*}}mk(i)){{.*}}cp_alloc(&cp__desc_list)
  struct list a = {mk(i), 1, NULL, made};
  // Designated, a compact pointer held across the call (a global it
  // changes), a global read after it (clang evaluates in field order),
  // all before the object is allocated.
  // REWRITE: cp__i{{[0-9]+}} = keep; cp__i{{[0-9]+}} = {{.*}}mk(i + 1){{.*}}; cp__i{{[0-9]+}} = made; {{.*}}cp_alloc(&cp__desc_list)
  struct list b = {.tag = made, .head = keep, .tail = mk(i + 1), .n = 2};
  // REWRITE: mk(i + 2){{.*}}; cp__i{{[0-9]+}} = made++; cp__i{{[0-9]+}} = other; {{.*}}cp_alloc(&cp__desc_list)
  struct list c = {.n = made++, .head = mk(i + 2), .tail = other};
  for (int k = 0; k < 3; k++) {
    push(&a, k);
    push(&b, k + 10);
    push(&c, k + 20);
  }
  keep = a.head;
  return drain(&a) + drain(&b) * 3 + drain(&c) * 5 + other->key;
}

// A compact-pointer local read in an element before the call, and not
// used after it: it goes into a root too.
static long first_of(struct node *p, int i) {
  struct list d = {p, i, mk(i + 3), 0};
  push(&d, 4);
  return drain(&d);
}

#ifdef BAD
// The local is read after the call (the fields' order) but written
// before it: the call's roots are found by position, and would miss it.
static long out_of_order(struct node *p, int i) {
  struct node *q = p->next;
  // BAD: :[[@LINE+1]]:39: error: 'd' lives in the compact heap
  struct list d = {.tail = q, .head = mk(i)};
  push(&d, 1);
  return drain(&d);
}
#endif

int main(void) {
  long sum = 0;
  struct node *other = mk(-1);
  keep = mk(-2);
  for (int i = 0; i < 4000; i++) {
    sum += round_of(i, other) + first_of(keep, i);
    other = keep;
  }
  printf("%ld %d\n", sum, made);
  return 0;
}
