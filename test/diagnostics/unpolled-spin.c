// Switchable mode: a spin loop (one that may wait for another thread)
// polls at each iteration, but a poll needs a place in the file's text: a
// spin loop whose body comes from a macro, or that sits inside a statement
// expression, gets none, and is warned (unpolled-spin) instead of refused
// (it compiled before spin loops polled).  A spin loop written in the
// file, with a macro only in its condition, polls: no warning.  Compact-only
// mode never switches, and with auto-safepoints off nothing is polled by
// the plugin: no warning either.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Werror %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-auto-safepoints=off -fsyntax-only -Werror %s
#include <compactptr.h>
#include <stdatomic.h>

struct CP_COMPACT node {
  struct node *next;
};

static atomic_int go;
static int lk;

#define WAIT_FOR(f) do { while (!atomic_load(&(f))) ; } while (0)
#define SPIN_LOCK(l) while (__sync_lock_test_and_set(&(l), 1)) {}
#define NOT_YET(f) (!atomic_load(&(f)))

void waits(void) {
  WAIT_FOR(go); // expected-warning-re {{no safepoint poll can go in this spin loop: its body comes from macro 'WAIT_FOR'; if it waits for a thread that switches, {{.*}} write the loop outside the macro, or call cp_safepoint() in its body}}
}

void locks(void) {
  SPIN_LOCK(lk); // expected-warning {{its body comes from macro 'SPIN_LOCK'}}
  __sync_lock_release(&lk);
}

int in_expression(void) {
  return ({ while (!atomic_load(&go)) {} 1; }); // expected-warning {{no safepoint poll can go in this spin loop: it is inside a statement expression}}
}

void polled(void) {
  while (NOT_YET(go)) {
  }
}
