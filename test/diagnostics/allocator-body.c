// A function declared CP_ALLOCATOR is bypassed for compact objects: the
// rewrite allocates them through the runtime, in every mode.  So code in
// its body that treats the memory as a compact object -- a constructor
// stamping an id -- never runs for them, and the program would print the
// runtime's zeroed fields (wide mode printed "0 0 100" where the native
// build prints "100 101 102").  Refused where the plugin sees it, with
// the way out (also for a body that only types the memory on its way out,
// and a typed allocator, which needs no annotation); a pool that only
// hands out memory is fine.
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

// The memory only typed on its way out: the body serves the calls that
// allocate other memory too.  A typed allocator needs no annotation at
// all (its own calloc is rewritten like any other): the message says so.
static CP_ALLOCATOR void *obj_or_die(size_t n) {
  struct obj *o = calloc(1, n); // expected-error {{'obj_or_die' is declared CP_ALLOCATOR, so its calls that allocate compact objects go to the runtime, and this body serves its other calls, whose memory is no 'struct obj'; keep it as 'void *' here (`void *p = calloc(1, n);`)}}
  if (!o)
    abort();
  return o;
}
static CP_ALLOCATOR struct obj *obj_block(size_t n) {
  struct obj *o = calloc(n, sizeof(struct obj)); // expected-error {{'obj_block' allocates the 'struct obj' itself and returns a 'struct obj *', so it needs no CP_ALLOCATOR, which sends its calls to the runtime and skips this body; remove the annotation (this allocation is then rewritten like any other)}}
  if (!o)
    abort();
  return o;
}

int main(void) {
  struct obj *a = new_obj(sizeof(struct obj));
  struct obj *c = obj_or_die(sizeof *c);
  free(c);
  struct obj *b = bump(sizeof(struct obj));
  a->next = b;
  b->id = next_id++; // initialized after the call: fine
  return a->id + b->id;
}
