// A use of a compact type produced by a macro is rewritten by printing the
// outermost expansion at its use site (test/rewrite/macro-*.c); a macro
// that produces the function itself is spelled out in place
// (test/rewrite/generator-macro.c).  Refused, with the macro's name: such
// a macro whose expansion holds a _Pragma that reaches the parser (here a
// loop hint; spelled out again, it would be lost).
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Xclang -verify %s
// In switchable mode the function cannot be dual (its braces come from the
// macro) and is checked; the refusal is the same:
// RUN: not %clang %cflags -fplugin=%plugin -fsyntax-only %s 2>&1 | FileCheck %s
// CHECK: macro-body.c:[[@LINE+10]]:1: error: cannot rewrite this use of a compact type: it is produced by macro 'SUMMER'
#include <compactptr.h>

struct CP_COMPACT node { int key; struct node *next; };

#define GETTER(name, field) int name(struct node *p) { return p->field->key; }
#define SUMMER(name, field) int name(struct node *p) { int s = 0; \
    _Pragma("clang loop unroll(disable)") for (; p; p = p->field) s += p->key; return s; }

GETTER(next_key, next) // spelled out and rewritten
SUMMER(sum_keys, next) // expected-error {{cannot rewrite this use of a compact type: it is produced by macro 'SUMMER', and no expression or statement of the function is a whole expansion of it}}

#define NEXT_KEY(p) ((p)->next->key + 1)
int f(struct node *p) {
  return NEXT_KEY(p) * 2; // rewritten: the expansion is one expression
}

// A declaration a macro makes is printed by the engine (clang's declaration
// printer would leave its initializer unrewritten); one it cannot print --
// here with an attribute -- is refused rather than printed unrewritten.
#define PEEK(p) do { __attribute__((unused)) int k_ = (p)->key; } while (0)
int g(struct node *p) {
  PEEK(p); // expected-error {{cannot rewrite the expansion of macro 'PEEK': a declaration it makes (with attributes, a storage class other than static or register, or several types in a for loop's init) cannot be printed rewritten; declare it outside the macro}}
  return 0;
}

// Nor one that would not parse again to the same tokens: a macro name its
// own expansion left unexpanded (spelled again, `bump` would expand once
// more) or a __COUNTER__ (every later one would shift).
static int bump(int x) { return x; }
#define bump(x) bump((x) + 1)
#define BUMPER(name) int name(struct node *p) { return bump(p->key); }
BUMPER(bumped) // expected-error {{cannot rewrite this use of a compact type: it is produced by macro 'BUMPER'}}
#define TAGGED(name) int name(struct node *p) { return p->key + __COUNTER__; }
TAGGED(tagged) // expected-error {{cannot rewrite this use of a compact type: it is produced by macro 'TAGGED'}}
// Nor one with a _Pragma that the preprocessor acts on, nor one with a
// directive between its arguments: spelled out on one line, either would
// be lost.
#define QUIET(name) _Pragma("GCC diagnostic push") _Pragma("GCC diagnostic ignored \"-Wunused-variable\"") \
    int name(struct node *p) { int unused; return p->key; } _Pragma("GCC diagnostic pop")
QUIET(quiet) // expected-error {{cannot rewrite this use of a compact type: it is produced by macro 'QUIET'}}
#define PAIR(name, a, b) int name(struct node *p) { return p->key + a + b; }
PAIR(paired, 1, // expected-error {{cannot rewrite this use of a compact type: it is produced by macro 'PAIR'}}
#undef NOT_DEFINED
     2)
