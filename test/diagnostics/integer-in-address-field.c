// An integer made a pointer (GLib's GINT_TO_POINTER) kept in an untyped
// pointer field of a compact struct: the switch moves a value there that
// falls inside the compact arena as an object's address, so such an
// integer would change (a reviewer's 200,000 ids from 2,100,000 up:
// 199,955 changed after a switch, exit 0).  Warned where it is stored,
// straight or through parameters of functions of this file that store it
// there (a set's add that hands the key to its insert: a trial's 200,000
// keys summed wrong, exit 0), also when a helper of this file makes it
// (`int_to_ptr(k)`); a null pointer constant and a compact object's
// address are not.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
#include <compactptr.h>
#include <stdint.h>
#include <stdlib.h>

#define GINT_TO_POINTER(i) ((void *)(intptr_t)(i))

struct CP_COMPACT cell {
  void *data;
  struct cell *next;
};

static struct cell *prepend(struct cell *l, void *data) {
  struct cell *c = malloc(sizeof *c);
  c->data = data;
  c->next = l;
  return c;
}

struct cell *fill(int n) {
  struct cell *l = NULL, *c = malloc(sizeof *c);
  // expected-warning@+1 {{an integer made a pointer is kept in field 'data', an untyped pointer field of a compact struct; the switch moves a value there that falls inside the compact arena as if it were an object's address, so an integer that does would change; keep integers in a field of integer type}}
  c->data = GINT_TO_POINTER(n);
  c->next = NULL;
  c->data = 0;
  c->data = (void *)0;
  for (int i = 0; i < n; i++)
    l = prepend(l, GINT_TO_POINTER(i)); // expected-warning {{an integer made a pointer is kept in field 'data'}}
  l = prepend(l, c);
  return l;
}

// Two calls deep, and from a helper.
static void add(struct cell **l, void *key) { *l = prepend(*l, key); }
static void *int_to_ptr(long i) { return (void *)(intptr_t)i; }
void fill_deep(struct cell **l, int n) {
  for (int i = 0; i < n; i++)
    add(l, GINT_TO_POINTER(0x200000 + i)); // expected-warning {{an integer made a pointer is kept in field 'data'}}
  (*l)->data = int_to_ptr(n); // expected-warning {{an integer made a pointer is kept in field 'data'}}
  add(l, malloc(4));
}
