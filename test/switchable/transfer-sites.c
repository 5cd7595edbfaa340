// An allocation into a local (`v = malloc(...)`) is the only place where
// the switch can run in code around it that cannot otherwise reach a
// safepoint: a region versioned by mode may hold such a transfer site.
// The compact copy's allocation slow path, after it read its roots back,
// tests the mode and, switched, assigns the object and jumps to a label
// right after the same statement in the wide copy, which runs the rest.
// So a run of statements with an allocation between layout-dependent ones
// tests the mode once, and a loop whose only safepoints are such sites is
// versioned whole.  Where a declaration of the copy is in scope at the site
// (the jump would skip it) or the site is not a statement of a block, the
// region stops before it.  The switch lands in each phase in one of the
// runs (256K: main's loop, 512K: grow, 1M: chain, 1250K: blocks, 1350K:
// the shapes that are not regions, 1700K: framed's site, 2M: pairs, 2500K:
// cased; by the allocation counts STATS gave, and each run fails with its
// site's jump taken out of the generated code); every output matches the
// native one.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Werror -fplugin-arg-compactptr-plan=- %s 2>&1 | FileCheck --check-prefix=PLAN %s
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Werror -fplugin-arg-compactptr-dump=- %s 2>&1 | FileCheck %s
// RUN: %clang %cflags -O1 %s -o %t.native && %t.native > %t.native.out
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_STATS=1 COMPACTPTR_VERIFY=1 %t > %t.1 2> %t.err1
// RUN: diff %t.native.out %t.1 && FileCheck --check-prefix=ERR %s < %t.err1
// RUN: env COMPACTPTR_ARENA_LIMIT=512K COMPACTPTR_STATS=1 COMPACTPTR_VERIFY=1 %t > %t.2 2> %t.err2
// RUN: diff %t.native.out %t.2 && FileCheck --check-prefix=ERR %s < %t.err2
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_STATS=1 COMPACTPTR_VERIFY=1 %t > %t.3 2> %t.err3
// RUN: diff %t.native.out %t.3 && FileCheck --check-prefix=ERR %s < %t.err3
// RUN: env COMPACTPTR_ARENA_LIMIT=1250K COMPACTPTR_STATS=1 COMPACTPTR_VERIFY=1 %t > %t.4 2> %t.err4
// RUN: diff %t.native.out %t.4 && FileCheck --check-prefix=ERR %s < %t.err4
// RUN: env COMPACTPTR_ARENA_LIMIT=1350K COMPACTPTR_STATS=1 COMPACTPTR_VERIFY=1 %t > %t.5 2> %t.err5
// RUN: diff %t.native.out %t.5 && FileCheck --check-prefix=ERR %s < %t.err5
// RUN: env COMPACTPTR_ARENA_LIMIT=1700K COMPACTPTR_STATS=1 COMPACTPTR_VERIFY=1 %t > %t.6 2> %t.err6
// RUN: diff %t.native.out %t.6 && FileCheck --check-prefix=ERR %s < %t.err6
// RUN: env COMPACTPTR_ARENA_LIMIT=2M COMPACTPTR_STATS=1 COMPACTPTR_VERIFY=1 %t > %t.7 2> %t.err7
// RUN: diff %t.native.out %t.7 && FileCheck --check-prefix=ERR %s < %t.err7
// RUN: env COMPACTPTR_ARENA_LIMIT=2500K COMPACTPTR_STATS=1 COMPACTPTR_VERIFY=1 %t > %t.8 2> %t.err8
// RUN: diff %t.native.out %t.8 && FileCheck --check-prefix=ERR %s < %t.err8
// RUN: %t > %t.9 && diff %t.native.out %t.9
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node { long key; struct node *next, *link; };

// A run: one layout-dependent statement before the site, three after.
static struct node *grow(struct node *head, long k) {
  struct node *n;
  head->key += 1;
  n = malloc(sizeof *n);
  n->key = k;
  n->next = head;
  n->link = head->next;
  return n;
}

// A loop whose site is in a block of an if: versioned whole.
static struct node *chain(struct node *q, long count) {
  struct node *made;
  long i;
  for (i = 0; i < count; i++) {
    if (i % 3 == 0) {
      q->key ^= i;
      made = malloc(sizeof *made);
      made->key = i;
      made->next = q;
      made->link = q->link;
      q = made;
    } else {
      q->key += i;
    }
  }
  return q;
}

// An array of objects: the array allocation is a site too.
static long blocks(struct node *q, int count) {
  struct node *blk;
  long s = 0;
  int i;
  for (i = 0; i < count; i++) {
    s += q->key;
    blk = malloc(4 * sizeof *blk);
    blk[0].key = i;
    blk[3].key = s % 1000;
    blk[1].next = q;
    blk[2].link = &blk[3];
    s += blk[1].next->key + blk[2].link->key;
    q = q->next ? q->next : q;
    free(blk);
  }
  return s;
}

// Not regions with a site: a declaration of the run is in scope at it,
// or the site is the bare branch of an if.
static struct node *declared_first(struct node *h) {
  struct node *m;
  h->key++;
  long before = h->key;
  m = malloc(sizeof *m);
  m->key = before;
  m->next = h;
  return m;
}
static struct node *bare_branch(struct node *h, long i) {
  struct node *m = h;
  h->key--;
  if (i & 1)
    m = malloc(sizeof *m);
  m->key = i;
  m->next = h;
  return m;
}

// The frame of slots goes before the region that holds the first
// statement saving a root (here the if with a site), not into it.
static struct node *framed(struct node *h, long k) {
  struct node *m;
  h->key++;
  if (h->next) {
    m = malloc(sizeof *m);
    m->key = k;
    m->next = h->next;
    h->next = m;
  }
  h->link = h->next;
  m = grow(h, k);
  m->link = h;
  return m;
}

// Two sites in one loop, the first followed by a continue on one path.
static struct node *pairs(struct node *h, long count) {
  struct node *a, *b;
  long i;
  for (i = 0; i < count; i++) {
    h->key++;
    a = malloc(sizeof *a);
    a->key = i;
    a->next = h;
    if (i % 5 == 0) {
      h = a;
      continue;
    }
    b = (struct node *)calloc(1, sizeof(struct node));
    b->key = -i;
    b->next = a;
    b->link = h;
    h = b;
  }
  return h;
}

// A declaration under a case label is in scope at the site after it (a
// jump there would skip it): the loop is not versioned with the site; the
// run after the declaration is (the declaration stays outside it).
#pragma clang diagnostic ignored "-Wc23-extensions"
static struct node *cased(struct node *h, long count) {
  struct node *a;
  long i;
  for (i = 0; i < count; i++) {
    switch (i & 1) {
    case 0:
      h->key++;
      break;
    default:
      long base = h->key * 2 + 1;
      h->key += 1;
      a = malloc(sizeof *a);
      a->key = base;
      a->next = h;
      h = a;
    }
  }
  return h;
}

static long sum(const struct node *p, long limit) {
  long s = 0;
  for (; p && limit > 0; p = p->next, limit--)
    s = s * 31 % 1000003 + p->key + (p->link ? p->link->key : 7);
  return s;
}

int main(void) {
  struct node *first = 0, *tail = 0, *p, *q;
  long i, total = 0;
  // Phase 1: main's loop, versioned whole.
  for (i = 0; i < 12000; i++) {
    p = malloc(sizeof *p);
    p->key = i;
    p->next = NULL;
    p->link = tail;
    if (tail)
      tail->next = p;
    else
      first = p;
    tail = p;
  }
  total += sum(first, 1L << 30);
  // Phase 2: a run in a helper.
  q = first;
  for (i = 0; i < 30000; i++)
    q = grow(q, i);
  total += sum(q, 50000);
  // Phase 3: a loop in a helper.
  q = chain(q, 60000);
  total += sum(q, 70000);
  // Phase 4: arrays, then the shapes that are not regions.
  total += blocks(q, 20000);
  for (i = 0; i < 30000; i++)
    q = i % 2 ? declared_first(q) : bare_branch(q, i);
  total += sum(q, 200000);
  for (i = 0; i < 5000; i++)
    q = framed(q, i);
  total += sum(q, 300000);
  // Phase 6: two sites in a loop, and a case label's declaration.
  q = pairs(q, 20000);
  total += sum(q, 400000);
  q = cased(q, 20000);
  total += sum(q, 500000);
  printf("%ld\n", total);
  return 0;
}

// PLAN-LABEL: plan: grow (line {{[0-9]+}}): checked:
// PLAN-NEXT: plan:   line {{[0-9]+}}: run of 5 statements versioned: no safepoint can run between them but at 1 allocation(s) whose slow path resumes the wide copy
// PLAN-LABEL: plan: chain (line
// PLAN: plan:   line {{[0-9]+}}: loop versioned whole: no safepoint can run inside it but at 1 allocation(s) whose slow path resumes the wide copy
// PLAN-LABEL: plan: blocks (line
// PLAN: plan:   line {{[0-9]+}}: loop versioned whole: no safepoint can run inside it but at 1 allocation(s) whose slow path resumes the wide copy
// PLAN-LABEL: plan: declared_first (line
// PLAN-NOT: versioned
// PLAN-LABEL: plan: bare_branch (line
// PLAN-NOT: allocation(s)
// PLAN: plan: framed (line [[#FRAMED:]])
// PLAN-NEXT: plan:   line [[#FRAMED+2]]: frame slots: h, m:
// PLAN-NEXT: plan:   line [[#FRAMED+2]]: run of 3 statements versioned: no safepoint can run between them but at 1 allocation(s)
// PLAN-LABEL: plan: pairs (line
// PLAN: plan:   line {{[0-9]+}}: loop versioned whole: no safepoint can run inside it but at 2 allocation(s) whose slow path resumes the wide copy
// PLAN-LABEL: plan: cased (line
// PLAN-NOT: loop versioned whole
// PLAN: plan:   line {{[0-9]+}}: run of 4 statements versioned: no safepoint can run between them but at 1 allocation(s)
// PLAN-LABEL: plan: sum (line
// PLAN-LABEL: plan: main (line
// PLAN: plan:   line {{[0-9]+}}: loop versioned whole: no safepoint can run inside it but at 1 allocation(s) whose slow path resumes the wide copy

// The compact copy's slow path jumps to the label after the wide copy's
// site; the wide copy's site has no jump.
// CHECK-LABEL: static struct node *grow(
// CHECK: {{^}}  { if (cp_is_compact()) { {{.*}} (((struct cp__c_node *)(head))->key) += 1;
// CHECK-NEXT: {{^}}  (void)(n = __extension__({ {{.*}} if (__builtin_expect(!cp_is_compact(), 0)) { n = [[A:cp__a[0-9]+]]; goto [[L:cp__resume[0-9]+]]; } } [[A]]; }));
// CHECK: {{^}}#line {{[0-9]+}} "{{.*}}transfer-sites.c"
// CHECK-NEXT: {{^}}  head->key += 1;
// CHECK-NEXT: {{^}}  (void)(n = __extension__({ {{.*}} n = cp__ls[1]; {{ *}}} cp__a{{[0-9]+}}; })); [[L]]: ;{{$}}
// CHECK-NEXT: {{^}}  n->key = k;
// CHECK-LABEL: static struct node *declared_first(
// CHECK-NOT: goto
// CHECK-LABEL: static struct node *bare_branch(
// CHECK-NOT: goto
// CHECK-LABEL: static struct node *framed(

// ERR: compactptr: switch to wide mode
