// A variable of compact type that stays in wide layout (a parameter
// passed by value, a thread-local, a variable-length array) handed as a
// byte address to code that turns it back into a compact pointer: that
// code would read the wide bytes in the compact layout (a by-value
// parameter handed to a visitor printed `id 0 w 8` for `id 8 w 80`, exit
// 0).  Refused at the address, like the same address used as a compact
// pointer directly.  A byte address only a byte function sees is fine.
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Xclang -verify %s
#include <compactptr.h>
#include <stdio.h>
#include <string.h>

struct CP_COMPACT owned {
  struct owned *next;
  int id;
  long w;
};

static void report(struct owned *o) { printf("%d %ld\n", o->id, o->w); }
static void visit(void *ctx) { report(ctx); }
static void hexdump(const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++)
    printf("%02x", b[i]);
}

static void by_value(struct owned o, void (*f)(void *)) {
  f(&o); // expected-error {{the address of parameter 'o' may be turned back into a compact pointer by the code it is handed to, but a parameter passed by value stays in wide layout; copy it into a local}}
  visit(&o); // expected-error {{the address of parameter 'o' may be turned back}}
  void *kept = &o; // expected-error {{the address of parameter 'o' may be turned back}}
  visit(kept);
  hexdump(&o, sizeof o);
  memset(&o, 0, sizeof o);
}

static _Thread_local struct owned last;

static void thread_local_visited(void) {
  visit(&last); // expected-error {{the address of thread-local 'last' may be turned back into a compact pointer by the code it is handed to, but a thread-local variable stays in wide layout; allocate it with malloc}}
  hexdump(&last, sizeof last);
}

static void vla_visited(int n) {
  struct owned many[n];
  memset(many, 0, sizeof many);
  visit(many); // expected-error {{but a variable-length array of compact structs stays in wide layout}}
  visit(&many[1]); // expected-error {{but a variable-length array of compact structs stays in wide layout}}
  hexdump(many, sizeof many);
}

// The same value copied into a local is boxed: no error.
static void copied(struct owned o) {
  struct owned local = o;
  visit((void *)&local); // explicit: not kept
}

void use(struct owned o) {
  by_value(o, visit);
  thread_local_visited();
  vla_visited(3);
  copied(o);
}
