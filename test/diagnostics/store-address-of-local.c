// Compact pointers point to heap objects.  A local, global or file-static
// variable of a compact type whose address is used as a compact pointer is
// placed in the compact heap (test/idioms/globals.test); the variables
// that cannot be are refused, saying why: parameters passed by value,
// variable-length arrays, static locals, thread-local variables (once for
// each variable, saying why its type is compact where nobody annotated
// it).  Arrays
// of compact structs with constant dimensions are placed in the heap too
// (test/idioms/global-arrays.test).
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
#include <compactptr.h>
#include <string.h>

struct CP_COMPACT node {
  int key;
  struct node *next;
};

struct node sentinel;
static _Thread_local struct node per_thread; // a root of each thread, but not in the heap

void link_param(struct node *p, struct node byval) {
  p->next = &byval; // expected-error {{storing the address of parameter 'byval' into compact field 'next'; compact fields can only point to heap objects (a parameter passed by value stays in wide layout; copy it into a local, which then lives in the compact heap)}}
  p->next = &per_thread; // expected-error {{(a thread-local variable stays in wide layout; allocate it with malloc)}}
}

struct node *escape(void) {
  static struct node pool[4];
  struct node *q = &pool[1]; // expected-error {{the address of static local 'pool' cannot be used as a compact pointer; compact pointers must point to heap objects (a static local stays in wide layout; declare it at file scope, where it lives in the compact heap)}}
  return q;
}

struct node *variable(int n) {
  struct node row[n];
  row[0].next = &row[n - 1]; // expected-error {{the address of local 'row' cannot be used as a compact pointer; compact pointers must point to heap objects (a variable-length array of compact structs stays in wide layout; allocate it with malloc(n * sizeof(...)))}}
  return row[0].next;
}

struct node *cached(void) {
  static struct node cache;
  return &cache; // expected-error {{(a static local stays in wide layout; declare it at file scope, where it lives in the compact heap)}}
}

// A parser's state nobody annotated is compact because it holds a node
// pointer: the error says so, once for the variable (the fix is at its
// declaration), not once for each use of its address.
struct parser {
  const char *pos;
  int line;
  struct node *pending;
};
static void step(struct parser *p) { p->line++; }
int parse(void) {
  static struct parser ps;
  step(&ps); // expected-error {{the address of static local 'ps' cannot be used as a compact pointer; compact pointers must point to heap objects (a static local stays in wide layout; declare it at file scope, where it lives in the compact heap); 'struct parser' is compact by inference: it holds a pointer to a compact type ('pending')}}
  step(&ps);
  struct parser *again = &ps;
  step(again);
  return ps.line;
}

// Placed in the compact heap: no diagnostic.
void link_local(struct node *p) {
  struct node local;
  local.next = NULL;
  p->next = &local;
  p->next = &sentinel;
  p->next = NULL;
}

// Byte addresses of values are fine: memset, memcpy.
void clear(void) {
  struct node v;
  memset(&v, 0, sizeof v);
}
