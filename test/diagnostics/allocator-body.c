// A function declared CP_ALLOCATOR is bypassed for compact objects: the
// rewrite allocates them through the runtime, in every mode.  So code in
// its body that treats the memory as a compact object -- a constructor
// stamping an id -- never runs for them, and the program would print the
// runtime's zeroed fields (wide mode printed "0 0 100" where the native
// build prints "100 101 102").  Refused where the plugin sees it, with
// the way out; a pool that only hands out memory is fine.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=wide -fsyntax-only -Xclang -verify %s
#include <compactptr.h>
#include <stdlib.h>

struct CP_COMPACT obj { struct obj *next; int id; };
static int next_id = 100;

static CP_ALLOCATOR void *new_obj(size_t size) {
  void *mem = calloc(1, size);
  // expected-error@+2 {{'new_obj' is declared CP_ALLOCATOR, so its calls that allocate compact objects go to the runtime and this body does not run for them: what it does to the 'struct obj' would be lost; initialize the object after the call}}
  // expected-warning@+1 {{'next_id' is updated here for each call of 'new_obj' (CP_ALLOCATOR), but the calls that allocate compact objects go to the runtime and run none of 'new_obj''s code, so 'main', which reads it, sees a value that misses them}}
  ((struct obj *)mem)->id = next_id++;
  return mem;
}

static char arena[4096];
static size_t used;
static CP_ALLOCATOR void *bump(size_t size) { // a pool that only hands out memory
  void *p = arena + used;
  used += (size + 15) & ~(size_t)15;
  return p;
}

int main(void) {
  struct obj *a = new_obj(sizeof(struct obj));
  struct obj *b = bump(sizeof(struct obj));
  a->next = b;
  b->id = next_id++; // initialized after the call: fine
  return a->id + b->id;
}
