// A pointer to a handle field (`&p->next`) is followed through locals,
// parameters of this translation unit's functions and the results of its
// static functions; wherever it goes beyond that, or is used other than by
// dereferencing, assigning and comparing it, it is refused: in compact
// layout it points at a 4-byte handle, which no other code could tell from
// an 8-byte native slot.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -ferror-limit=0 -Xclang -verify %s
// RUN: not %rewrite %s -- %cflags 2>&1 | FileCheck %s
#include <compactptr.h>
#include <stdio.h>

struct CP_COMPACT node {
  int key;
  struct node *next;
  struct node *kids[4];
};

struct holder { struct node **at; };
struct node **g_slot;
void elsewhere(struct node **pp);

struct node **exported(struct node *p) {
  return &p->next; // expected-error {{the address of handle field 'next' is returned from 'exported', which other translation units can call; declare it static}}
}

void stores(struct node *p, struct holder *h, struct node ***ppp) {
  static struct node **kept;
  g_slot = &p->next; // expected-error {{the address of handle field 'next' is stored into global 'g_slot'; a pointer to a handle field can only be kept in local variables, parameters and fields of compact structs, passed to functions of this translation unit and dereferenced}}
  h->at = &p->kids[1]; // expected-error {{the address of handle field 'kids' is stored into field 'at'; a pointer to a handle field can only be kept in local variables, parameters and fields of compact structs, passed to functions of this translation unit and dereferenced; a field can keep one only in a struct that holds compact pointers itself, which the plugin lays out and the switch moves the address in ('struct holder' holds none: declare it CP_COMPACT, or keep such a pointer beside a compact pointer, as a queue keeps 'struct node **tail' beside its 'struct node *head')}}
  *ppp = &p->next; // expected-error {{the address of handle field 'next' is stored into memory}}
  kept = &p->next; // expected-error {{is stored into static local 'kept'}}
  elsewhere(&p->next); // expected-error {{the address of handle field 'next' is passed to 'elsewhere', which is not defined in this translation unit}}
}

static void variadic(int n, ...) { (void)n; }

void calls(struct node *p, void (*f)(struct node **)) {
  f(&p->next); // expected-error {{the address of handle field 'next' is passed through a function pointer}}
  variadic(1, &p->next); // expected-error {{is passed to 'variadic' as a variadic argument}}
}

void uses(struct node *p) {
  struct node **pp = &p->kids[0];
  pp++; // expected-error {{'pp', which may point at a handle field, is moved by pointer arithmetic; a pointer to a handle field points at a 32-bit handle in compact layout, so it can only be dereferenced, assigned and compared}}
  p->next = pp[1]; // expected-error {{'pp', which may point at a handle field, is subscripted (write *p for the slot itself)}}
  printf("%p\n", (void *)pp); // expected-error {{'pp', which may point at a handle field, is converted to 'void *'}}
  struct node ***a = &pp; // expected-error {{is kept in 'pp', whose address is taken here}}
  (void)a;
}

void whole_array(struct node *p) {
  struct node *(*k)[4] = &p->kids; // expected-error {{'kids' is a handle array field; its address cannot be taken (the address of one element, &p->kids[i], can)}}
  (void)k;
}

// A named local array of them is followed too (an iterative insertion's
// path back to the root: switchable/slot-pointer-array.c), by element
// only.
static int depth_of(struct node ***at) { return at != 0; }
void path_arrays(struct node *p) {
  struct node **path[8], **other[2][2];
  static struct node **kept[2];
  path[0] = &p->next;
  path[1] = &p->kids[2];
  struct node ***top = path; // expected-error {{'path', an array of pointers that may point at handle fields, is used as a pointer; its elements can only be read and written by subscript ('path[i]'), where the analysis follows them}}
  depth_of(&path[1]); // expected-error {{is kept in an element of 'path', whose address is taken here}}
  other[0][1] = &p->next; // expected-error {{the address of handle field 'next' is stored into memory}}
  kept[0] = &p->next; // expected-error {{the address of handle field 'next' is stored into memory}}
  path[2]++; // expected-error {{is moved by pointer arithmetic}}
  *path[1] = *path[0];
  (void)top;
}

// Stored by an initializer list: as by an assignment, whatever the braces
// and designators; a named local array's own initializer is its elements.
struct plain_holder { int x; struct node **s; };
void init_lists(struct node *p) {
  struct node **m[1][2] = {{&p->next, &p->kids[0]}}; // expected-error 2 {{is stored into an array element}}
  struct plain_holder q = { .s = &p->next }; // expected-error {{the address of handle field 'next' is stored into field 's'}}
  struct node ***c = (struct node **[]){&p->next}; // expected-error {{is stored into an array element}}
  struct node **path[2] = {&p->next, &p->kids[1]};
  *path[0] = *path[1];
  (void)m, (void)q, (void)c, (void)(sizeof path / sizeof *path);
}

// Fine: kept in locals and parameters, passed to a function of this
// translation unit, returned from a static function, dereferenced,
// assigned and compared.
static struct node **last_slot(struct node **pp) {
  while (*pp)
    pp = &(*pp)->next;
  return pp;
}

void append(struct node **head, struct node *n) {
  struct node **end = last_slot(head);
  if (end != head && *end == NULL)
    *end = n;
}

// CHECK: slot-pointer-escape.c:24:10: error: the address of handle field 'next' is returned from 'exported'

// Shifting a B-tree node's children with memmove by a size that is not a
// count of slots (bytes of a wide pointer): refused, with the loop that
// does it instead (a count of `sizeof x->kids[0]` is rewritten:
// rewrite/handle-run-memmove.c).
struct CP_COMPACT bnode {
  int n;
  struct bnode *kids[8];
};

void shift_kids(struct bnode *x, int i) {
  __builtin_memmove(&x->kids[i + 2], &x->kids[i + 1], (unsigned long)(x->n - i) * 8); // expected-error 2 {{to be copied by __builtin_memmove (a copy is rewritten when both addresses are elements of arrays of the same pointer type, `&a[i]`, and the size is `n * sizeof a[0]`; otherwise copy the pointers one by one)}}
}
