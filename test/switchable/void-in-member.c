// A compact pointer kept in a `void *` of a struct or union held inside a
// compact object -- Redis's dict entry, `union { void *val; uint64_t u64;
// } v` -- is not moved by the switch: only a CP_COMPACT struct's own
// `void *` fields are.  The warning said to keep it "in a 'void *' field of
// a CP_COMPACT struct", which is where it already was; it now names the
// member and what works: the member's struct declared CP_COMPACT too
// (unnamed: `struct CP_COMPACT { ... } v;`), or the field moved up.  A
// union gets the second advice only.  Built as advised, the program keeps
// its native output across a switch.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only %s 2>&1 | FileCheck --check-prefix=WARN %s
// RUN: %clang %cflags -O1 %s -o %t.native
// RUN: %t.native > %t.expect
// RUN: %clang %cflags -O1 -Werror -DADVISED -fplugin=%plugin %s %runtime -o %t
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: grep -q 'switch to wide mode.*verified' %t.err
// WARN: void-in-member.c:46:{{[0-9]+}}: warning: a compact pointer to 'struct obj' is stored into memory as 'void *'; kept there, it is no root, and after the switch it points into the released arena ('val' is in member 'v' of a compact object, whose struct is not CP_COMPACT, so the switch does not move it; declare that struct CP_COMPACT too (`struct CP_COMPACT { ... } v;` for an unnamed one), or make 'val' a field of the compact struct itself)
// WARN: void-in-member.c:50:{{[0-9]+}}: warning: {{.*}}('val' is in union 'u' of a compact object, whose bytes may be another member's, so the switch does not move it; make 'val' a field of the compact struct itself)
#include <compactptr.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT obj { struct obj *next; long num; };
#ifdef ADVISED
#define MEMBER CP_COMPACT
#else
#define MEMBER
#endif
struct CP_COMPACT entry {
  struct entry *next;
  struct MEMBER { void *val; long n; } v;
};
struct CP_COMPACT uentry { struct uentry *next; union { void *val; uint64_t u64; } u; };

int main(void) {
  struct entry *h = NULL;
  for (int i = 0; i < 50000; i++) {
    struct entry *e = malloc(sizeof *e);
    struct obj *o = malloc(sizeof *o);
    o->next = NULL;
    o->num = i;
    e->v.n = 0;
    e->next = h;
    h = e;
    e->v.val = o;
  }
#ifndef ADVISED
  struct uentry *u = malloc(sizeof *u);
  u->u.val = h ? (struct obj *)h->v.val : NULL;
#endif
  long s = 0;
  for (struct entry *e = h; e; e = e->next)
    s += ((struct obj *)e->v.val)->num;
  printf("%ld\n", s);
  return 0;
}
