// A call of a CP_ALLOCATOR function that the runtime cannot take over
// whole is refused at the call, never allocated as one object: a function
// whose body is not in the file and that has no alloc_size attribute,
// handed an argument that may count the objects or a block of the
// allocated type that it may resize; one that takes its size elsewhere
// than its alloc_size says; one that hands two blocks to realloc.
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
#include <compactptr.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT node { int v; struct node *next; };

static CP_ALLOCATOR void *both(void *p, void *q, size_t size) {
  void *r = realloc(p, size);
  return r ? realloc(q, size) : r;
}
static CP_ALLOCATOR void *grow_in_place(void **pp, size_t n, size_t size) {
  void *q = realloc(*pp, n * size);
  if (q)
    *pp = q;
  return q;
}
static CP_ALLOCATOR void *regrow(void *p, size_t n, size_t size) {
  void *q = malloc(n * size);
  if (q && p)
    memcpy(q, p, (n / 2) * size);
  free(p);
  return q;
}
static CP_ALLOCATOR void *near(struct node *hint, size_t size) {
  (void)hint; // a placement hint: neither freed nor copied
  return malloc(size);
}
static CP_ALLOCATOR void *grow_cap(void *p, size_t *cap, size_t size) {
  *cap = *cap ? 2 * *cap : 8;
  return realloc(p, *cap * size);
}
CP_ALLOCATOR void *ext_calloc(size_t n, size_t size);
CP_ALLOCATOR void *ext_resize(void *p, size_t size);
CP_ALLOCATOR void *ext_flags(size_t size, int flags);
CP_ALLOCATOR void *ext_sized(size_t n, size_t size)
    __attribute__((alloc_size(1)));

struct node *f(struct node *a, int n, int flags) {
  a = both(a, a, sizeof *a); // expected-error {{this call of a CP_ALLOCATOR function cannot go to the runtime: 'both' hands both 'a' and another argument to realloc}}
  a = grow_in_place((void **)&a, n, sizeof *a); // expected-error {{this call of a CP_ALLOCATOR function cannot go to the runtime: 'grow_in_place' resizes the block '(void **)&a' points to (it reaches realloc through a dereference): the runtime cannot take that resize over; call realloc here}}
  a = regrow(a, n, sizeof *a); // expected-error {{'regrow' is handed 'a', the pointer its result replaces, and does not resize it with realloc (a copy by hand, a clone, or a call the plugin cannot see into): call realloc, or malloc and copy, here}}
  size_t cap = 0;
  a = grow_cap(a, &cap, sizeof *a); // expected-error {{the plugin cannot tell how many objects 'grow_cap' allocates: its allocation multiplies the size by something other than its arguments (a capacity it picks itself, a constant); call malloc, calloc or realloc here}}
  a = ext_calloc(n, sizeof *a); // expected-error {{the plugin cannot see whether 'n' counts the objects 'ext_calloc' allocates (its body is not in this file): give 'ext_calloc' __attribute__((alloc_size(...))), or pass the whole size (n * sizeof(T))}}
  a = ext_calloc(4, sizeof *a); // expected-error {{whether '4' counts the objects 'ext_calloc' allocates}}
  a = ext_resize(a, sizeof *a); // expected-error {{the plugin cannot see whether 'ext_resize' resizes 'a' (its body is not in this file); call realloc here, or give 'ext_resize' a body in this file that allocates with malloc, calloc or realloc}}
  a = ext_flags(sizeof *a, flags); // expected-error {{whether 'flags' counts the objects 'ext_flags' allocates}}
  a = ext_sized(n, sizeof *a); // expected-error {{'ext_sized' takes its size as argument 1 (alloc_size), but sizeof is argument 2}}
  // Fine: the whole size in one argument, a constant after it (an
  // alignment, a line number), the count in the size.
  a = ext_flags(n * sizeof *a, flags);
  a = ext_flags(sizeof *a, 64);
  struct node *h = near(a, sizeof *h);
  (void)h;
  return a;
}
