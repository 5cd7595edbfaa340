// Switchable mode: a statement expression is printed whole, by mode, so a
// call in it that may reach a safepoint would switch after its layout was
// picked and with the roots around it unsaved: refused, at the user's
// macro or text -- unless the call is an allocation and either nothing in
// the statement expression depends on the layout or the allocation is the
// first thing it evaluates (then the mode is tested after it).  A native
// region that holds compact pointers must be two statements of one block.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=switchable -fsyntax-only -Xclang -verify %s
#include <compactptr.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT node { long key; struct node *next; };

// The allocation first, the layout after it: accepted
// (switchable/allocation-macro-initializes.c runs such macros).
#define NEW_ZEROED(T) __extension__({ T *p_ = malloc(sizeof *p_); memset(p_, 0, sizeof *p_); p_; })

struct node *push(struct node *head, long key) {
  struct node *n = NEW_ZEROED(struct node);
  n->key = key;
  n->next = head;
  return n;
}

// Something evaluated before the allocation, an allocation whose size
// reads a variable of the macro's, two allocations: refused.
#define NEW_KEYED(T, k) __extension__({ long k_ = (k); T *p_ = malloc(sizeof *p_); p_->key = k_; p_; })
#define NEW_MANY(T, n) __extension__({ unsigned long n_ = (n); T *p_; p_ = malloc(n_ * sizeof *p_); p_->key = 0; p_; })
#define NEW_TWO(T) __extension__({ T *a_ = malloc(sizeof *a_); a_->next = malloc(sizeof *a_); a_; })
struct node *not_first(long key) {
  struct node *a = NEW_KEYED(struct node, key); // expected-error {{this statement expression (from macro 'NEW_KEYED') calls a function that may reach a safepoint}}
  struct node *b = NEW_MANY(struct node, 2); // expected-error {{this statement expression (from macro 'NEW_MANY') calls a function that may reach a safepoint}}
  struct node *c = NEW_TWO(struct node); // expected-error {{this statement expression (from macro 'NEW_TWO') calls a function that may reach a safepoint}}
  a->next = b;
  b->next = c;
  return a;
}

// A call before the allocation on the left of a comma, a call beside it
// that C may run first, a size that reads the layout, a static local that
// printing once per layout would make two of: refused.
long bump(void);
struct node *pick(void);
struct node *not_alone(struct node *h) {
  struct node *a = ({ struct node *p_; p_ = (bump(), malloc(sizeof *p_)); p_->key = 1; p_; }); // expected-error {{this statement expression calls a function that may reach a safepoint}}
  struct node *b = ({ struct node *p_; if ((p_ = malloc(sizeof *p_)) == pick()) abort(); p_->key = 2; p_; }); // expected-error {{this statement expression calls a function that may reach a safepoint}}
  struct node *c = ({ struct node *p_ = calloc(h->key, sizeof *p_); p_->key = 3; p_; }); // expected-error {{this statement expression calls a function that may reach a safepoint}}
  struct node *d = ({ struct node *p_ = malloc(sizeof *p_); static long made_; p_->key = ++made_; p_; }); // expected-error {{this statement expression calls a function that may reach a safepoint}}
  a->next = b;
  b->next = c;
  c->next = d;
  return a;
}

long poll_inside(struct node *n) {
  long v = ({ cp_safepoint(); n->key; }); // expected-error {{this statement expression calls a function that may reach a safepoint}}
  return n->key + v;
}

// A poll whose statement expression reads no layout after it: 'n' is saved
// around it and read back.
long poll_then_constant(struct node *n) {
  long v = ({ cp_safepoint(); 4; });
  return n->key + v;
}

static void enter(void) { cp_native_enter(); }

long unpaired(struct node *n) {
  enter();
  cp_native_leave(); // expected-error {{this native region holds compact pointers ('n'...) across it}}
  return n->key;
}

// No statement expression, and the region is one block: accepted.
long fine(struct node *n) {
  CP_NATIVE((void)0);
  return n->key;
}

// Nothing compact around the call, and no compact pointer live across it:
// an error-check macro stays as it is.
int do_io(int fd);
#define CHECK(x) __extension__({ int r_ = (x); if (r_ < 0) abort(); r_; })
long setup(int fd) {
  int r = CHECK(do_io(fd));
  struct node *n = malloc(sizeof *n);
  n->key = r;
  return n->key;
}

// A compact-pointer local the region assigns has at its exit only the
// value from before a switch.
long assigns(struct node *a) {
  struct node *b = 0;
  cp_native_enter(); // expected-error {{'b' holds a compact pointer that this native region assigns or declares}}
  b = a;
  cp_native_leave();
  return b->key;
}

// An allocation macro that reads no layout after the call: the allocation
// saves the roots live across it ('head') and reads them back at once, and
// the macro is evaluated first where something around it would go stale
// (an argument beside 'head', a field's new value).  Accepted
// (switchable/allocation-macro.c runs it).
#define NEW(T) __extension__({ T *p_ = calloc(1, sizeof(T)); if (!p_) abort(); p_; })
struct node *link2(struct node *a, struct node *b);
struct node *grow(struct node *head) {
  struct node *n = NEW(struct node);
  n->next = head;
  head = link2(n, NEW(struct node));
  head->next->next = NEW(struct node);
  return NEW(struct node);
}

// In an operand that may not run, beside a compact pointer: the whole ?:
// goes first, into a temporary.  Accepted
// (switchable/allocation-macro-initializes.c runs it).
void maybe_grow(struct node *head, int c) {
  head->next = c ? NEW(struct node) : 0;
}

// A compact pointer the statement expression declares before the call is
// no root of the function; an initializer list cannot go first.
#define KEEP(T, old) __extension__({ T *q_ = (old); T *p_ = calloc(1, sizeof(T)); p_ ? q_ : p_; })
struct node *refused(struct node *head) {
  head = KEEP(struct node, head); // expected-error {{this statement expression (from macro 'KEEP') calls a function that may reach a safepoint}}
  struct node *pair[2] = {head, NEW(struct node)}; // expected-error {{this initializer list holds a compact pointer across a call that may reach a safepoint}}
  return pair[1];
}
