// Compact pointers passed as variadic arguments lie in the caller's
// argument area, which no frame registers: read with va_arg after a call
// that may switch, they would point into the released arena (before, the
// program stopped at the first use after the switch, with no compile-time
// diagnostic).  Refused in a function that reaches a safepoint when such a
// call comes first in the text or shares a loop with the va_arg; read
// before any such call, the arguments become locals (roots), and the
// program runs across the switch.  Compact-only mode never switches.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Xclang -verify=none %s
// RUN: %clang %cflags -O1 -DRUN -fplugin=%plugin %s %runtime -o %t
// RUN: %clang %cflags -O1 -DRUN %s -o %t.native
// RUN: %t.native > %t.expect
// RUN: env COMPACTPTR_ARENA_LIMIT=2M COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: grep -q 'switch to wide mode' %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=2M COMPACTPTR_VERIFY=1 %t | diff %t.expect -
// RUN: FileCheck %s < %t.expect
// none-no-diagnostics
#include <compactptr.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  long key;
  struct node *a, *b;
};

#ifndef RUN
// The node is allocated first: a switch there leaves the arguments stale.
struct node *make_late(long key, int n, ...) {
  struct node *t = malloc(sizeof *t);
  va_list ap;
  va_start(ap, n);
  t->a = n > 0 ? va_arg(ap, struct node *) : NULL; // expected-error {{va_arg reads a compact pointer after the call to 'malloc' on line 33, which may reach a safepoint; the variadic arguments are no roots}}
  t->b = NULL;
  va_end(ap);
  t->key = key;
  return t;
}

// Each pass of the loop allocates after its read: the next read follows.
struct node *chain(int n, ...) {
  struct node *head = NULL;
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n; i++) {
    struct node *k = va_arg(ap, struct node *); // expected-error {{va_arg reads a compact pointer after the call to 'malloc'}}
    struct node *c = malloc(sizeof *c);
    c->a = k;
    c->b = head;
    head = c;
  }
  va_end(ap);
  return head;
}

// The same, allocated by a statement-expression macro.
#define NEW_NODE() ({ struct node *n_ = calloc(1, sizeof(struct node)); n_; })
struct node *make_macro(long key, int n, ...) {
  struct node *t = NEW_NODE();
  va_list ap;
  va_start(ap, n);
  t->a = n > 0 ? va_arg(ap, struct node *) : NULL; // expected-error {{va_arg reads a compact pointer after the call to 'calloc' on line 62}}
  va_end(ap);
  t->key = key;
  return t;
}

// A goto back to a label before the read: the allocation after it in the
// text comes before the next read (the CFG says so; the text's order
// missed it).
struct node *chain_goto(int n, ...) {
  struct node *head = NULL;
  va_list ap;
  va_start(ap, n);
  int i = 0;
again:
  if (i < n) {
    struct node *k = va_arg(ap, struct node *); // expected-error {{va_arg reads a compact pointer after the call to 'malloc' on line 82}}
    struct node *c = malloc(sizeof *c);
    c->a = k;
    c->b = head;
    head = c;
    i++;
    goto again;
  }
  va_end(ap);
  return head;
}

// A loop that waits for another thread is polled: a safepoint with no call.
extern _Atomic int go;
struct node *after_wait(int n, ...) {
  va_list ap;
  va_start(ap, n);
  while (!go)
    ;
  struct node *t = va_arg(ap, struct node *); // expected-error {{va_arg reads a compact pointer after the loop on line 98, which waits for another thread (a poll there is a safepoint)}}
  va_end(ap);
  return t;
}

// A helper handed the va_list reads for its caller, after the caller's
// allocation (before: neither function was refused, exit 70).
static struct node *first_of(va_list ap) { return va_arg(ap, struct node *); }
struct node *join(int n, ...) {
  va_list ap;
  va_start(ap, n);
  struct node *t = malloc(sizeof *t);
  t->a = first_of(ap); // expected-error {{'first_of', handed the va_list here, reads a compact pointer after the call to 'malloc' on line 111}}
  t->b = NULL;
  va_end(ap);
  return t;
}

// A branch that allocates and goes on to the read: still before it.
struct node *make_fallthrough(long key, int n, ...) {
  struct node *spare = NULL;
  if (n > 1)
    spare = malloc(sizeof *spare);
  va_list ap;
  va_start(ap, n);
  struct node *t = n > 0 ? va_arg(ap, struct node *) : spare; // expected-error {{va_arg reads a compact pointer after the call to 'malloc' on line 122}}
  va_end(ap);
  t->key = key;
  return t;
}
#endif

// Read first, allocate after: the arguments are locals by then.
static struct node *make(long key, int n, ...) {
  struct node *kid[2] = {NULL, NULL};
  va_list ap;
  va_start(ap, n);
  for (int i = 0; i < n && i < 2; i++)
    kid[i] = va_arg(ap, struct node *);
  va_end(ap);
  struct node *t = malloc(sizeof *t);
  t->key = key;
  t->a = kid[0];
  t->b = kid[1];
  return t;
}

// An error path that allocates a blank node and returns comes first in the text, but
// no path leads from its call to the reads.
static struct node *make_or_blank(long key, int n, ...) {
  if (n < 0) {
    struct node *blank = calloc(1, sizeof *blank);
    blank->key = key;
    return blank;
  }
  va_list ap;
  va_start(ap, n);
  struct node *a = n > 0 ? va_arg(ap, struct node *) : NULL;
  va_end(ap);
  return make(key, 1, a);
}

static long sum(const struct node *t) {
  long s = 0;
  while (t) {
    s += t->key + sum(t->a);
    t = t->b;
  }
  return s;
}

int main(void) {
  struct node *l = make(1, 0);
  for (long i = 2; i <= 100000; i++)
    l = make(0, 2, make_or_blank(i, i % 3 ? 0 : 1, make(i, 0)), l);
  printf("sum %ld\n", sum(l));
  return 0;
}
// CHECK: sum 6666733333
