// A compact pointer made from memory the plugin can see is not a compact
// allocation is an error: a wrapper that returns a block from malloc, a
// pool that carves objects out of a malloc'd buffer with a bump pointer, a
// bump pointer moved by hand.  The fix-it, on a note at the function's
// declaration (clang would print a distant fix-it's line number in the
// margin of the error's own line), declares the function
// CP_ALLOCATOR (allocations of compact objects then go to the runtime).
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// RUN: not %clang %cflags -fplugin=%plugin -fsyntax-only -fdiagnostics-parseable-fixits %s 2>&1 | FileCheck %s
#include <compactptr.h>
#include <stdlib.h>

struct CP_COMPACT ent { unsigned key; struct ent *next; };

static int remaining;
static char *temp;

static char *localmalloc(int size) {
  char *blah;
  if (size > remaining) {
    temp = malloc(32768);
    remaining = 32768;
  }
  blah = temp;
  temp += size;
  remaining -= size;
  return blah;
}
// CHECK: fix-it:"{{.*}}unannotated-allocator.c":{19:1-19:1}:"CP_ALLOCATOR "

static void *wrap(size_t n) {
  void *p = calloc(1, n);
  return p;
}

struct ent *from_pool(void) {
  return (struct ent *)localmalloc(sizeof(struct ent)); // expected-error {{the 'char *' returned by 'localmalloc' becomes a compact pointer to 'struct ent', but it is not a compact allocation: memory from 'localmalloc' (the bump pointer 'temp'); declare 'localmalloc' CP_ALLOCATOR, and the plugin allocates compact objects through the runtime instead}} expected-note@19 {{declare 'localmalloc' CP_ALLOCATOR here; its body then no longer runs for compact objects, so what it counts or takes back from a free list is not theirs: free them with free() or a CP_DEALLOCATOR function}}
}

struct ent *from_wrapper(void) {
  struct ent *e = wrap(sizeof *e); // expected-error {{the 'void *' returned by 'wrap' becomes a compact pointer to 'struct ent', but it is not a compact allocation: memory from 'wrap' (a block from 'calloc')}} expected-note@32 {{declare 'wrap' CP_ALLOCATOR here}}
  return e;
}

// The wrapper in one arm of a conditional: the fix is the same.
struct ent *from_wrapper_or_null(int c) {
  struct ent *e = c ? wrap(sizeof *e) : 0; // expected-error {{the 'void *' returned by 'wrap' becomes a compact pointer to 'struct ent', but it is not a compact allocation: memory from 'wrap' (a block from 'calloc')}} expected-warning {{this sizeof of compact type 'struct ent' is handed to 'wrap', which may keep it}}
  return e;
}

static char *bump;
struct ent *by_hand(void) {
  struct ent *e = (struct ent *)bump; // expected-error {{a compact pointer to 'struct ent' is made from the bump pointer 'bump', which is not a compact allocation; allocate compact objects with malloc(sizeof(struct ent)), or move the pool into a function declared CP_ALLOCATOR}}
  bump += sizeof *e;
  return e;
}
// A piece carved a tag's step (1 to 3 bytes) past the bump pointer is the
// pool's memory still: a tag is no step between objects, and the origin is
// traced through it.
struct ent *tagged_piece(void) {
  char *r = bump;
  bump += 32;
  struct ent *e = (struct ent *)(r + 1); // expected-error {{a compact pointer to 'struct ent' is made from the bump pointer 'bump', which is not a compact allocation}}
  return e;
}

// container_of with an offset kept at run time (uthash keeps it in its
// table), here set by hand: a number of the wide layout; offsetof is
// given in each (run-time-offset.c has the offsets the plugin reads).
struct link { struct link *next; long off; };
struct CP_COMPACT item { int id; struct item *peer; struct link ln; }; // expected-warning {{field 'ln' of compact type 'struct item' embeds 'struct link'}}
void link_init(struct link *l) { l->off = 16; }
struct item *owner_of(struct link *l) {
  return (struct item *)((char *)l - l->off); // expected-error {{a compact pointer to 'struct item' is made from an address stepped from another object by an offset computed at run time, which the plugin cannot tell is the start of a 'struct item' (it would differ between the layouts); step back with offsetof(struct item, member), as container_of does}}
}
// The same step in a helper of the program (a generic list's obj_of):
// the same advice, and no CP_ALLOCATOR fix-it (it is no allocator).
static void *obj_of(struct link *l) { return (char *)l - l->off; }
struct item *owner_through_helper(struct link *l) {
  return obj_of(l); // expected-error {{a compact pointer to 'struct item' is made from memory from 'obj_of' (an address stepped from another object by an offset computed at run time), which the plugin cannot tell is the start of a 'struct item' (it would differ between the layouts); step back with offsetof(struct item, member), as container_of does}}
}
struct item *owner_by_offsetof(struct link *l) {
  return (struct item *)((char *)l - __builtin_offsetof(struct item, ln));
}

// Fine: an allocator declared CP_ALLOCATOR, malloc where the type is known,
// a byte pointer from malloc sized for the type (the rewrite allocates it
// through the runtime).
static CP_ALLOCATOR void *pool_alloc(size_t n) { return localmalloc((int)n); }
struct ent *annotated(void) { return pool_alloc(sizeof(struct ent)); }
struct ent *direct(void) { return (struct ent *)malloc(sizeof(struct ent)); }
struct ent *through_bytes(void) {
  char *raw = malloc(sizeof(struct ent));
  return (struct ent *)raw;
}

// Another call of the same pool: refused too, but the fix-it that declares
// 'localmalloc' an allocator is offered once (applied twice it would write
// the annotation twice).
struct ent *from_pool_again(void) {
  return (struct ent *)localmalloc(sizeof(struct ent)); // expected-error {{the 'char *' returned by 'localmalloc' becomes a compact pointer to 'struct ent'}}
}
// CHECK-NOT: fix-it:"{{.*}}unannotated-allocator.c":{19:1-19:1}

// A generic vector's accessor hands out memory it only looks up: no
// CP_ALLOCATOR advice (each lookup would become an allocation); the nodes
// it holds are byte copies.
struct gvec {
  char *data;
  unsigned long elem;
};
static void *gvec_at(struct gvec *v, unsigned long i) { return v->data + i * v->elem; }
struct ent *from_vector(struct gvec *v) {
  return gvec_at(v, 3); // expected-error {{the 'void *' returned by 'gvec_at' becomes a compact pointer to 'struct ent', but 'gvec_at' looks it up in memory it does not allocate: objects kept there as bytes are copies outside the compact heap, which compact pointers cannot name; keep pointers to the objects (an array of 'struct ent *') instead of their bytes}}
}
