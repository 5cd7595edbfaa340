// A call of a CP_ALLOCATOR function that the runtime cannot take over
// whole is refused at the call, never allocated as one object: a wrapper
// that resizes the block it is handed (its body passes it to realloc), and,
// for a function whose body is not in the file and has no alloc_size
// attribute, an argument that may count the objects or a block of the
// allocated type that it may resize.
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
#include <compactptr.h>
#include <stdlib.h>

struct CP_COMPACT node { int v; struct node *next; };

static CP_ALLOCATOR void *xrealloc(void *p, size_t n) {
  void *q = realloc(p, n);
  if (!q)
    abort();
  return q;
}
static CP_ALLOCATOR void *grow(void *p, size_t n, size_t size) {
  return xrealloc(p, n * size);
}
CP_ALLOCATOR void *ext_calloc(size_t n, size_t size);
CP_ALLOCATOR void *ext_resize(void *p, size_t size);
CP_ALLOCATOR void *ext_flags(size_t size, int flags);
CP_ALLOCATOR void *ext_sized(size_t n, size_t size)
    __attribute__((alloc_size(1)));

struct node *f(struct node *a, int n, int flags) {
  a = grow(a, n, sizeof *a); // expected-error {{this call of a CP_ALLOCATOR function cannot go to the runtime: 'grow' resizes the block it is handed ('a' reaches realloc): the runtime cannot take a resize over through it; call realloc here, or make 'grow' allocate only}}
  a = xrealloc(a, n * sizeof *a); // expected-error {{'xrealloc' resizes the block it is handed ('a' reaches realloc)}}
  a = ext_calloc(n, sizeof *a); // expected-error {{the plugin cannot see whether 'n' counts the objects 'ext_calloc' allocates (its body is not in this file): give 'ext_calloc' __attribute__((alloc_size(...))), or pass the whole size (n * sizeof(T))}}
  a = ext_calloc(4, sizeof *a); // expected-error {{whether '4' counts the objects 'ext_calloc' allocates}}
  a = ext_resize(a, sizeof *a); // expected-error {{the plugin cannot see whether 'ext_resize' resizes 'a' (its body is not in this file); call realloc here, or give 'ext_resize' a body in this file}}
  a = ext_flags(sizeof *a, flags); // expected-error {{whether 'flags' counts the objects 'ext_flags' allocates}}
  a = ext_sized(n, sizeof *a); // expected-error {{'ext_sized' takes its size as argument 1 (alloc_size), but sizeof is argument 2}}
  // Fine: the whole size in one argument, a constant after it (an
  // alignment, a line number), the count in the size.
  a = ext_flags(n * sizeof *a, flags);
  a = ext_flags(sizeof *a, 64);
  return a;
}
