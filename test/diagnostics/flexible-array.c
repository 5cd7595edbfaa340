// A flexible array member in a compact type is room whose elements the
// switch copies as bytes (switchable/flexible-array-switch.c), translates
// one by one where they are compact pointers (a skip list's forward
// links, switchable/flexible-array-handles.c) or copies by their type's
// layout where they are compact structs (switchable/flexible-array-
// structs.c); flexible-array-alloc.c has their allocations.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
#include <compactptr.h>
#include <string.h>

struct CP_COMPACT node {
  struct node *next;
  int n;
  int data[];
};

struct CP_COMPACT skip {
  int key;
  struct skip *forward[];
};

// Its elements' room is counted in 8-byte pointers, handles of 4 in the
// compact layout: a byte copy, comparison or fill of more than the fixed
// part is refused.
void clone(struct skip *q, const struct skip *p, int lvl) {
  memcpy(q, p, sizeof(struct skip) + lvl * sizeof(struct skip *)); // expected-error {{'memcpy' of 'struct skip' with a size other than sizeof(struct skip): its flexible array member 'forward' holds compact pointers, 4-byte handles in the compact layout, whose room the program counts in 8-byte pointers; copy the fixed part by assignment (*q = *p) and the elements by index (q->forward[i] = p->forward[i]) or with memmove(&q->forward[0], &p->forward[0], n * sizeof p->forward[0])}}
  memset(q, 0, sizeof *q + lvl * sizeof q->forward[0]); // expected-error {{'memset' of 'struct skip' with a size other than sizeof(struct skip)}}
  memset(q, 0, sizeof *q);
  *q = *p;
  memmove(&q->forward[0], &p->forward[0], lvl * sizeof p->forward[0]);
}


struct CP_COMPACT leaf {
  struct leaf *next;
  int v;
};

struct CP_COMPACT bag {
  struct bag *up;
  struct leaf items[];
};

// Compact structs are counted in their size of the moment: a copy of the
// whole object is the same bytes.
void clone_bag(struct bag *q, const struct bag *p, int n) {
  memcpy(q, p, sizeof *p + n * sizeof p->items[0]);
}

// A plain struct ending in a flexible array member, as the last member of
// a compact one (a GNU extension): refused.
struct tail {
  int n;
  char bytes[];
};
struct CP_COMPACT item {
  struct item *next;
  struct tail t; // expected-error {{member 't' of compact type 'struct item' is a struct with a flexible array member, which is not supported; put the flexible array member in 'struct item' itself}}
};

// A static initializer of the member (a GNU extension): the runtime knows a
// variable's fixed part only.
static struct skip head = {-1, {0, 0}}; // expected-error {{'head' of compact type 'struct skip' initializes its flexible array member 'forward' (a GNU extension), which is not supported: the runtime knows the variable's fixed part only; allocate the object with malloc}}
static struct node counts = {0, 3, {1, 2, 3}}; // expected-error {{'counts' of compact type 'struct node' initializes its flexible array member 'data'}}
static struct node empty = {0, 0, {}};
int first(void) { return head.key + counts.n + empty.n; }

// Rows of compact pointers: the room is counted per element.
struct CP_COMPACT grid {
  int rows;
  struct grid *cells[][2]; // expected-error {{flexible array member 'cells' in compact type 'struct grid' has rows of compact pointers or structs, which is not supported; make each row a struct (struct row { ... cells[N]; } cells[];)}}
};

