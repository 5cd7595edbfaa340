// Coroutines on stacks of their own (makecontext, swapcontext) would
// interleave their shadow-stack frames on their thread's one chain, and a
// switch would then miss the roots of a suspended context (before: exit 70
// at the first use after the switch, with no diagnostic).  Refused in
// switchable mode; compact-only and wide mode never switch and keep no
// frames.  getcontext and setcontext on one stack are setjmp and longjmp:
// switchable/setjmp-roots.c.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Xclang -verify=none %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=wide -fsyntax-only -Xclang -verify=none %s
// none-no-diagnostics
#include <compactptr.h>
#include <stdlib.h>
#include <ucontext.h>

struct CP_COMPACT node {
  long key;
  struct node *next;
};

static ucontext_t main_ctx, gen_ctx;
static struct node *made;

static void generate(void) {
  for (long i = 0; i < 100; i++) {
    struct node *n = malloc(sizeof *n);
    n->key = i;
    n->next = made;
    made = n;
    swapcontext(&gen_ctx, &main_ctx); // expected-error {{'swapcontext' runs code on a stack of its own; in switchable mode compact-pointer roots are kept in one chain of frames per thread}}
  }
}

long run(void) {
  static char stack[1 << 16];
  struct node *held = malloc(sizeof *held);
  held->key = 7;
  getcontext(&gen_ctx);
  gen_ctx.uc_stack.ss_sp = stack;
  gen_ctx.uc_stack.ss_size = sizeof stack;
  gen_ctx.uc_link = &main_ctx;
  makecontext(&gen_ctx, generate, 0); // expected-error {{'makecontext' runs code on a stack of its own}}
  swapcontext(&main_ctx, &gen_ctx); // expected-error {{'swapcontext' runs code on a stack of its own}}
  return held->key + made->key;
}
