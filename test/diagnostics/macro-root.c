// Switchable mode: a compact-pointer local a macro declares has no text
// of its own for its frame slot's zeroing or saves.  It needs none where
// no safepoint can run while it holds its value (the cursor of a search
// or sum loop: test/Inputs/macros/statements.c; a cursor its loop assigns
// before each use, with an allocation before the loop and a free after);
// one that is live across a call that may reach a safepoint is refused,
// with the macro's name.
// A loop of main whose body a macro produces and that needs a poll in
// each iteration gets none, warned (test/switchable/library-macro-loops.c
// runs such loops across the switch).
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=switchable -fsyntax-only -Xclang -verify %s
#include <compactptr.h>
#include <stdlib.h>

struct CP_COMPACT node { int key; struct node *next; };

#define DUP_FIRST(h) do { struct node *f_ = (h); struct node *n_ = malloc(sizeof *n_); n_->key = f_->key; n_->next = (h); (h) = n_; } while (0)
#define PUSH(h) do { struct node *n_ = malloc(sizeof *n_); n_->key = 0; n_->next = (h); (h) = n_; } while (0)
#define COUNT(h, c) do { struct node *q_; for (q_ = (h); q_; q_ = q_->next) (c)++; } while (0)
// The cursor is assigned by the loop before each use: nothing to keep at
// the malloc before it or the free after it.
#define COPY_KEYS(h, out) do { struct node *c_; int *a_ = malloc(64 * sizeof *a_); int k_ = 0; \
  for (c_ = (h); c_ && k_ < 64; c_ = c_->next) a_[k_++] = c_->key; \
  (out) = k_ ? a_[0] : 0; free(a_); } while (0)
// Read through its address, or by its cleanup at the scope's end, after
// the allocation (neither shows on the CFG), or in the allocation's own
// full expression: refused.
#define ALIASED(h, out) do { struct node *a_ = (h), **pa_ = &a_; struct node *m_ = malloc(sizeof *m_); \
  m_->next = 0; (out) += (*pa_ == (h)); free(m_); } while (0)
static void drop(struct node **p) { (void)p; }
#define CLEANED(h) do { struct node *k_ __attribute__((cleanup(drop))) = (h); struct node *m_ = malloc(sizeof *m_); \
  m_->next = 0; free(m_); } while (0)
#define SAME_EXPR(h) do { struct node *s_ = (h), *m_; (m_ = malloc(sizeof *m_))->next = s_; (h) = m_; } while (0)
// Live across the allocation inside its loop: refused.
#define SPLICE(h) do { struct node *c_; for (c_ = (h); c_; c_ = c_->next) { \
  struct node *m_ = malloc(sizeof *m_); m_->key = c_->key; m_->next = c_->next; c_->next = m_; c_ = m_; } } while (0)

static void grow(struct node **hp) {
  struct node *h = *hp;
  DUP_FIRST(h); // expected-error {{cannot register 'f_' as a root: it is declared by macro 'DUP_FIRST' and holds a compact pointer where 'malloc', which may reach a safepoint, runs; declare it outside the macro}}
  PUSH(h);      // fine: n_ holds nothing yet when malloc runs
  *hp = h;
}

extern void opaque(void);
#define SPIN(h) do { struct node *s_ = (h); while (s_) { opaque(); s_ = s_->next; } } while (0)
#define SPIN_ON(p) do { while ((p)->key < 3) { opaque(); (p)->key++; } } while (0)

int main(void) {
  struct node *h = NULL;
  int c = 0;
  grow(&h);
  COUNT(h, c); // fine: no safepoint runs in the loop; one poll in front
  COPY_KEYS(h, c); // fine: c_ is assigned before each use
  SPLICE(h); // expected-error {{cannot register 'c_' as a root: it is declared by macro 'SPLICE' and holds a compact pointer where 'malloc', which may reach a safepoint, runs; declare it outside the macro}}
  ALIASED(h, c); // expected-error {{cannot register 'a_' as a root: it is declared by macro 'ALIASED'}}
  CLEANED(h); // expected-error {{cannot register 'k_' as a root: it is declared by macro 'CLEANED'}}
  SAME_EXPR(h); // expected-error {{cannot register 's_' as a root: it is declared by macro 'SAME_EXPR'}}
  SPIN(h); // expected-error {{cannot register 's_' as a root: it is declared by macro 'SPIN' and holds a compact pointer where 'opaque', which may reach a safepoint, runs; declare it outside the macro}} expected-warning {{no safepoint poll can go in this loop of main: its body comes from macro 'SPIN'}}
  SPIN_ON(h); // expected-warning {{no safepoint poll can go in this loop of main: its body comes from macro 'SPIN_ON', and it calls code that may allocate}}
  return c;
}
