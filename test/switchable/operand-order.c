// The operands clang's own build evaluates before a call that goes first
// (a call that may reach a safepoint, with something around it the switch
// would leave stale) go first too, in clang's order: a call's arguments
// left to right, an operator's left operand before its right.  Before,
// only the call went first, and a program whose output depends on that
// order printed something else than its native build, with exit 0
// (`tag=2 l=0 r=1` for `tag=0 l=1 r=2`).  C leaves the order unspecified;
// the native build with clang is what a user compares against.  Also what
// must stay where it is: an address into a compact object (`&p->next`,
// `&p->key`: a temporary of it would be stale after the switch), a struct
// passed by value (clang copies it after the arguments to its right), an
// operand whose own call went first already (evaluated once), and a
// scalar assignment's target, evaluated after its right side.
// REQUIRES: plugin
// RUN: %clang %cflags -O1 %s -o %t.native
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Werror -fplugin-arg-compactptr-dump=- %s 2>&1 | FileCheck %s --check-prefix=REWRITE
// RUN: %t.native > %t.expect
// RUN: %t | diff %t.expect -
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: FileCheck %s < %t.err
// CHECK: compactptr: switch to wide mode
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  int tag;
  struct node *l, *r;
};

static int counter;
static long seen;

static struct node *leaf(void) {
  struct node *n = calloc(1, sizeof *n);
  n->tag = counter++;
  return n;
}

static struct node *pair(int tag, struct node *l, struct node *r) {
  struct node *n = leaf();
  n->tag = tag;
  n->l = l;
  n->r = r;
  return n;
}

static long note(long a, long b) { return seen += a * 3 + b; }
static void link(struct node **slot, struct node *n) {
  n->r = *slot;
  *slot = n;
}
static long addk(int *k, struct node *n) { return *k += n->tag; }
struct stats {
  long made;
};
static struct stats st;
static long show(struct stats s, int k) { return s.made - k; }
static int ga, gb;
typedef enum level { LOW, HIGH } level_t;
typedef struct node node_t;
static level_t glevel = HIGH;
static node_t *gkeep;
struct pairv {
  long a;
};
static struct pairv sfun(void) {
  gb += 5;
  return (struct pairv){gb};
}
static long fs(struct pairv v, int g, int k) { return v.a * 7 + g * 3 + k; }
static long fl(level_t l, node_t *n, int k) { return (long)l * 5 + n->tag + k; }
static long f2(int a, int k) { return a * 11 + k; }
static long bump2(int a, int k) { return a * 13 + k; }
static long (*const tab[2])(int, int) = {f2, bump2};
static int bumpidx(void) { return ga++ & 1; }
static struct node *mk(void) {
  st.made++;
  ga += 3;
  return leaf();
}

int main(void) {
  struct node *keep = leaf();
  long sum = 0;
  for (int i = 0; i < 20000; i++) {
    // REWRITE: cp__h{{[0-9]+}} = counter++; {{.*}}leaf(){{.*}}leaf()
    struct node *p = pair(counter++, leaf(), leaf());
    // A read of a global before the call, and of a compact object's field.
    sum += note(counter, leaf()->tag);
    sum += keep->tag + pair(i, keep, leaf())->tag;
    link(&keep->r, mk());
    sum += addk(&keep->tag, mk());
    sum += show(st, mk()->tag);
    mk()->tag = mk()->tag + ga++;
    sum += ga + mk()->tag * (long)(gb += 2) + mk()->tag;
    sum += pair(ga++, pair(gb++, mk(), keep), mk())->tag;
    // A struct argument stays in its place, and so does what follows it.
    sum += fs(sfun(), gb, mk()->tag);
    // The callee first, as natively.
    sum += tab[bumpidx()](ga, mk()->tag);
    {
      // A temporary is declared by the type a typedef names, which a
      // local of the same name does not hide.
      int level_t = 2, node_t = 3;
      glevel = (level_t + node_t + i) & 1 ? HIGH : LOW;
      gkeep = keep;
      // REWRITE: enum level cp__h{{[0-9]+}}; struct node *cp__h{{[0-9]+}} = 0;
      sum += fl(glevel, gkeep, mk()->tag);
    }
    keep = p;
    if (i % 5000 == 0)
      printf("tag=%d l=%d r=%d\n", p->tag, p->l->tag, p->r->tag);
  }
  printf("%ld %ld %d\n", sum, seen, counter);
  return 0;
}
