// An allocation of a compact type with a flexible array member is one
// object and the room for its elements (`sizeof *e + n`, `offsetof(T,
// member) + n`, calloc with a count of 1), or one object alone: several
// of them at once is refused, as is any size the plugin cannot read.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
#include <compactptr.h>
#include <stddef.h>
#include <stdlib.h>

struct CP_COMPACT node {
  struct node *next;
  int n;
  int data[];
};

struct node *make(int n, int k) {
  struct node *a = malloc(sizeof *a + n * sizeof a->data[0]);
  struct node *b = calloc(1, offsetof(struct node, data) + n * sizeof(int));
  struct node *c = calloc(k, sizeof *c + n); // expected-error {{allocation of compact type 'struct node' must have its size expressed as sizeof(struct node) + n (one object and the room for its flexible array member, also calloc(1, ...); an array of such objects is not supported)}}
  struct node *d = malloc(2 * (sizeof *d + n)); // expected-error {{allocation of compact type 'struct node' must have its size}}
  struct node *e = malloc(sizeof *e);
  struct node *f = calloc(64, sizeof *f); // expected-error {{an array of such objects is not supported}}
  struct node *g = malloc(k * sizeof(struct node)); // expected-error {{an array of such objects is not supported}}
  a->next = b;
  b->next = c;
  c->next = d;
  d->next = e;
  e->next = f;
  f->next = g;
  return a;
}

static CP_ALLOCATOR void *xmalloc(size_t size) {
  void *p = malloc(size);
  if (!p)
    abort();
  return p;
}
static CP_ALLOCATOR void *xcalloc(size_t n, size_t size) {
  void *p = calloc(n, size);
  if (!p)
    abort();
  return p;
}

struct node *wrapped(int n, int k) {
  struct node *a = xmalloc(sizeof *a + n * sizeof(int));
  struct node *b = xcalloc(k, sizeof *b + n); // expected-error {{allocation of compact type 'struct node' must have its size}}
  struct node *c = xcalloc(1, sizeof(struct node) + n + 1);
  a->next = b;
  b->next = c;
  return a;
}

// The size held in a local first: followed when only its initializer
// writes it (then its reads by allocations alone are no layout-stored
// value; one by a memset after the allocation is: a switch at the
// allocation would leave it the compact size).  A local written again is
// not followed.
void *sizes_in_locals(int n, int k) {
  size_t sz = sizeof(struct node) + n;
  struct node *a = malloc(sz);
  size_t again = offsetof(struct node, data) + n; // expected-warning {{this offsetof of compact type 'struct node' initializes 'again'}}
  again += (size_t)k;
  struct node *b = malloc(again); // expected-error {{allocation of compact type 'struct node' must have its size}}
  size_t zeroed = sizeof(struct node) + n; // expected-warning {{this sizeof of compact type 'struct node' initializes 'zeroed': it is the value in the layout of the moment}}
  struct node *c = malloc(zeroed);
  __builtin_memset(c, 0, zeroed);
  a->next = b;
  b->next = c;
  return a;
}

// The struct hack of older C (a last member of one element or none, and
// room allocated past it, as Pugh's skip list declared `forward[1]`): a
// member of links or structs is taken for a flexible array member
// (switchable/struct-hack.c), so an array of such objects is refused as
// for one.  A byte array stays a field (arrays of such structs are
// common), and room past it gets the advice to declare it flexible.
struct CP_COMPACT pugh {
  int key;
  struct pugh *forward[1];
};
struct CP_COMPACT named {
  struct named *next;
  char name[0];
};

void *struct_hack(int n) {
  struct pugh *p = malloc(sizeof(struct pugh) + (n - 1) * sizeof(struct pugh *));
  struct named *q = malloc(sizeof *q + n); // expected-error {{allocation of compact type 'struct named' must have its size expressed as sizeof(struct named) or n * sizeof(struct named); to allocate room past its last member, declare it as a flexible array member (char name[];)}}
  struct pugh *r = malloc(n * sizeof(struct pugh)); // expected-error {{allocation of compact type 'struct pugh' must have its size expressed as sizeof(struct pugh) + n (one object and the room for its last member 'forward', taken for a flexible array member as in the struct hack, also calloc(1, ...); an array of such objects is not supported)}}
  struct named *s = calloc(n, sizeof *s); // a byte array of none is a field
  p->forward[0] = r;
  q->next = s;
  return q;
}

// A last member of one int is an ordinary field, not the hack's room: an
// array of such structs is accepted.
struct CP_COMPACT cell {
  struct cell *next;
  int val[1];
};

struct cell *cells(int n) {
  struct cell *c = calloc(n, sizeof(struct cell));
  c[0].next = c;
  return c;
}

// A member of compact pointers or structs: the room counts its elements
// and nothing else (their size differs between the layouts, so other data
// kept past them would move).  Any object pointer's size counts a compact
// pointer.
struct CP_COMPACT skip {
  int lvl;
  struct skip *fw[];
};
struct CP_COMPACT ranked {
  long score;
  struct level {
    struct ranked *forward;
    unsigned long span;
  } level[];
};

void *element_room(int n, size_t len) {
  struct skip *a = malloc(sizeof(struct skip) + n * sizeof(struct skip *) + len); // expected-error {{allocation of compact type 'struct skip' must have its size expressed as sizeof(struct skip) + n * sizeof(struct skip *): its flexible array member 'fw' holds compact pointers, whose size differs between the layouts, so its room counts its elements and nothing else (keep other data in an object of its own)}}
  struct skip *b = malloc(sizeof *b + n * sizeof(void *));
  struct skip *c = malloc(sizeof *c + n * 4); // expected-error {{must have its size expressed as sizeof(struct skip) + n * sizeof(struct skip *)}}
  struct ranked *d = malloc(sizeof *d + n * sizeof(struct level));
  struct ranked *e = malloc(sizeof *e + n * sizeof(struct skip *)); // expected-error {{allocation of compact type 'struct ranked' must have its size expressed as sizeof(struct ranked) + n * sizeof(struct level): its flexible array member 'level' holds compact structs}}
  a->fw[0] = b;
  b->fw[0] = c;
  d->level[0].forward = e;
  return a;
}

