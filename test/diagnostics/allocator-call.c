// A call of a CP_ALLOCATOR function that the runtime cannot take over
// whole is refused at the call, never allocated as one object: a function
// whose body is not in the file and that has no alloc_size attribute,
// handed an argument that may count the objects or a block of the
// allocated type that it may resize; one that takes its size elsewhere
// than its alloc_size says; one that hands two blocks to realloc; one
// handed a size of 0, with which its body frees (Lua's realloc-as-free,
// which had been called unreadable).  Of two sizeof arguments (Lua's old
// and new size), the one the body allocates by is the size.
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
#include <compactptr.h>
#include <stdarg.h>
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
// A header before the objects beside a count; a size rounded up to an
// alignment argument (a count as far as the body shows); a resize that
// steps back to a header; a variadic allocator; a count handed to a hook.
static CP_ALLOCATOR void *hdr_calloc(size_t n, size_t size) {
  return calloc(1, 16 + n * size);
}
static CP_ALLOCATOR void *aligned(size_t size, size_t align) {
  return malloc((size + align - 1) / align * align);
}
static CP_ALLOCATOR void *hdr_realloc(void *p, size_t size) {
  char *h = realloc(p ? (char *)p - 16 : NULL, size + 16);
  return h ? h + 16 : NULL;
}
static CP_ALLOCATOR void *vnew(int kind, ...) {
  va_list ap;
  va_start(ap, kind);
  size_t n = va_arg(ap, size_t), size = va_arg(ap, size_t);
  va_end(ap);
  return calloc(n, size);
}
static struct {
  void *(*xcalloc)(size_t, size_t);
} hooks = {calloc};
static CP_ALLOCATOR void *hooked(size_t size, size_t n) {
  return hooks.xcalloc(n, size);
}
static CP_ALLOCATOR void *mallocn(size_t n, size_t size) {
  size *= n; // the size parameter holds the product by the allocation
  return malloc(size);
}
static CP_ALLOCATOR void *lua_realloc(void *block, size_t osize, size_t nsize) {
  (void)osize;
  if (nsize == 0) {
    free(block);
    return NULL;
  }
  return realloc(block, nsize);
}
CP_ALLOCATOR void *ext_realloc(void *p, size_t size) __attribute__((alloc_size(2)));
CP_ALLOCATOR void *ext_lrealloc(void *b, size_t osize, size_t nsize)
    __attribute__((alloc_size(3)));
CP_ALLOCATOR void *ext_calloc(size_t n, size_t size);
CP_ALLOCATOR void *ext_resize(void *p, size_t size);
CP_ALLOCATOR void *ext_flags(size_t size, int flags);
CP_ALLOCATOR void *ext_sized(size_t n, size_t size)
    __attribute__((alloc_size(1)));

struct node *f(struct node *a, int n, int flags) {
  a = both(a, a, sizeof *a); // expected-error {{this call of a CP_ALLOCATOR function cannot go to the runtime: 'both' hands both 'a' and another argument to realloc}}
  a = grow_in_place((void **)&a, n, sizeof *a); // expected-error {{this call of a CP_ALLOCATOR function cannot go to the runtime: 'grow_in_place' is handed '(void **)&a', and resizes it other than by handing it to realloc as it is (through a header, a dereference or a helper): the runtime cannot take that over; call realloc, or malloc and copy, here}}
  a = regrow(a, n, sizeof *a); // expected-error {{'regrow' is handed 'a', the pointer its result replaces, and uses it other than by handing it to realloc (a copy by hand, a clone, a hook): the runtime cannot take that over; call realloc, or malloc and copy, here}}
  size_t cap = 0;
  a = grow_cap(a, &cap, sizeof *a); // expected-error {{the plugin cannot tell how many objects 'grow_cap' allocates: its allocation multiplies the size by something other than its arguments (a capacity it picks itself, a constant, a helper's result); call malloc, calloc or realloc here, or give 'grow_cap' __attribute__((alloc_size(...)))}}
  a = hdr_calloc(n, sizeof *a); // expected-error {{the plugin cannot tell how many objects 'hdr_calloc' allocates: its allocation's size mixes the sizeof argument with 'n' other than as a product; give 'hdr_calloc' __attribute__((alloc_size(...))), or call malloc, calloc or realloc here}}
  a = aligned(sizeof *a, 16); // expected-error {{its allocation's size mixes the sizeof argument with '16' other than as a product}}
  a = hdr_realloc(a, n * sizeof *a); // expected-error {{'hdr_realloc' is handed 'a', the pointer its result replaces, and resizes it other than by handing it to realloc as it is (through a header, a dereference or a helper)}}
  a = vnew(1, (size_t)n, sizeof *a); // expected-error {{the plugin cannot see whether '1' counts the objects 'vnew' allocates (its allocation is not one the plugin can read: a hook, a function of another file, or more than four calls deep)}}
  a = hooked(sizeof *a, 4000); // expected-error {{the plugin cannot see whether '4000' counts the objects 'hooked' allocates}}
  struct node *t = ext_realloc((void *)a, n * sizeof *a); // expected-error {{the plugin cannot see whether 'ext_realloc' resizes '(void *)a' (its body is not in this file)}}
  (void)t;
  a = mallocn(n, sizeof *a); // expected-error {{the plugin cannot tell how many objects 'mallocn' allocates}}
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
  a = lua_realloc(a, n * sizeof *a, 2 * n * sizeof *a);
  // Of two sizeof arguments, alloc_size names the size where no body
  // here does: the call is refused for its block only (it had said the
  // size was argument 2).
  a = ext_lrealloc(a, n * sizeof *a, 2 * n * sizeof *a); // expected-error {{the plugin cannot see whether 'ext_lrealloc' resizes 'a' (its body is not in this file)}}
  lua_realloc(a, 2 * n * sizeof *a, 0); // expected-error {{this call of a CP_ALLOCATOR function cannot go to the runtime: 'lua_realloc' is handed a size of 0 (argument 3), with which it frees its block: free a compact object with free(), or with a function declared CP_DEALLOCATOR}}
  return a;
}
