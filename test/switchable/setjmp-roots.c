// A function that calls setjmp (or getcontext) resumes at that call a
// second time, after a later call switched and jumped back (longjmp,
// setcontext), with the registers of the first return.  Its compact-pointer
// locals and parameters must come back translated: every one in scope is
// saved around each call that may switch, the setjmp call itself saves and
// reads them back, and the slots are not cleared after reading back, so the
// second return finds them as the switch left them.  Before, each case
// stopped with exit 70 (a compact pointer used after the switch).  A
// volatile local, which C lets change between setjmp and longjmp, is a
// root in place (registered at its declaration), not a slot.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Werror -fplugin-arg-compactptr-dump=- %s 2>&1 | FileCheck --check-prefix=TEXT %s
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %clang %cflags -O1 %s -o %t.native
// RUN: %t.native 20000 | FileCheck %s
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_STATS=1 COMPACTPTR_VERIFY=1 %t 20000 2> %t.err | FileCheck %s
// RUN: grep -q 'switch to wide mode' %t.err
// RUN: %t 20000 | FileCheck %s
#include <compactptr.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <ucontext.h>

struct CP_COMPACT node {
  long key;
  struct node *next;
};

static struct node *heap_list; // a root: keeps what grow allocates
static jmp_buf env;

static struct node *mk(long key, struct node *next) {
  struct node *n = malloc(sizeof *n);
  n->key = key;
  n->next = next;
  return n;
}

static void grow(int n) {
  for (int i = 0; i < n; i++)
    heap_list = mk(i, heap_list);
}

static void grow_and_jump(int n) {
  grow(n);
  longjmp(env, 1);
}

static long sum(const struct node *p) {
  long s = 0;
  for (; p; p = p->next)
    s += p->key;
  return s;
}

// p is never assigned after setjmp: after longjmp it must be the object
// it named, moved by the switch.  q is a parameter.
static long jump_back(struct node *q, int n) {
  struct node *p = mk(42, q);
  if (setjmp(env) == 0)
    grow_and_jump(n);
  return sum(p);
}
// TEXT-LABEL: static long jump_back(struct node *q, int n) {struct cp__slotframe_s
// The shadow-stack top and the compact-body count are put back after the
// call too (switchable/longjmp-skips-frames.c).
// TEXT: if (__extension__({  __auto_type cp__r{{[0-9]+}} = (cp__slotframe.s[{{[0-9]}}] = {{[pq]}}, cp__slotframe.s[{{[0-9]}}] = {{[pq]}}, __extension__({ cp_frame_t *cp__jt = cp__frame_top; unsigned cp__jd = cp__compact_depth, cp__jn = cp__native_nest; __auto_type cp__jr = setjmp(env); cp__jump_landed(cp__jt, cp__jd, cp__jn); cp__jr; })); {{[pq]}} = cp__slotframe.s[{{[0-9]}}]; {{[pq]}} = cp__slotframe.s[{{[0-9]}}];  cp__r{{[0-9]+}}; }) == 0)

// The jump comes from a callback the function calls through a pointer
// (an interpreter's protected call), with a list built before setjmp.
static long protected_call(void (*f)(int), int n) {
  struct node *h = NULL;
  for (int i = 0; i < 10; i++)
    h = mk(1000 + i, h);
  if (setjmp(env))
    return sum(h);
  f(n);
  return -1;
}

// getcontext returns twice too: setcontext after a call that switched.
static long context_back(int n) {
  static ucontext_t uc;
  static volatile int done;
  struct node *p = mk(7, NULL);
  done = 0;
  getcontext(&uc);
  if (!done) {
    done = 1;
    grow(n);
    setcontext(&uc);
  }
  return sum(p);
}

// Locals declared after setjmp are out of scope at it: saved only on the
// slow paths of the allocations, with no frame of slots (this was refused
// as if the frame could not be placed).
static long declared_after(long n) {
  if (setjmp(env))
    return -1;
  struct node *p = malloc(sizeof *p);
  p->key = n;
  p->next = NULL;
  struct node *q = malloc(sizeof *q);
  q->key = 1;
  q->next = p;
  return q->key + q->next->key;
}

// A volatile local assigned after setjmp keeps its last value.
static long volatile_local(int n) {
  struct node *volatile p = mk(1, NULL);
  if (setjmp(env) == 0) {
    p = mk(2, p);
    grow_and_jump(n);
  }
  return sum(p);
}
// TEXT-LABEL: static long volatile_local(int n) {
// TEXT-NEXT: struct node *volatile p = mk(1, NULL); cp_root_desc_t cp__rt{{[0-9]+}}[1]; cp_frame_t cp__fr{{[0-9]+}} __attribute__((cleanup(cp_frame_pop))); int cp__in{{[0-9]+}} __attribute__((unused)) = (cp__root(&cp__rt{{[0-9]+}}[0], (void *)&p, CP_ROOT_POINTER

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 1000;
  struct node *q = mk(100, NULL);
  long a = jump_back(q, n);
  long b = protected_call(grow_and_jump, n);
  long c = context_back(n);
  long d = volatile_local(n);
  long e = declared_after(41);
  printf("%ld %ld %ld %ld %ld %ld\n", a, b, c, d, e, sum(heap_list));
  return 0;
}
// CHECK: 142 10045 7 3 42 799960000
