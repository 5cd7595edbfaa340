// Memory that the program allocates itself and uses as an array of compact
// pointers (`struct rec **`) is not a root array, so the switch would not
// translate the pointers stored there (a stretchy buffer of visited nodes
// answered 236 where native answered 400, exit 0; an xrealloc'd array and
// the buckets after a table's header stopped at exit 70).  In switchable
// mode: an error where the plugin sees the allocation (a wrapper, with a
// fix-it to declare it CP_ALLOCATOR; a pointer into a block; another
// object's memory), a warning for a `void *` of another file's function.
// Reading through `T **` casts of other memory (a comparator's argument,
// bsearch's result) is not a conversion of an allocation.  Without a
// switch every such array holds native addresses that stay valid.
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// RUN: not %clang %cflags -fplugin=%plugin -fsyntax-only -fdiagnostics-parseable-fixits %s 2>&1 | FileCheck %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Xclang -verify=ok %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=wide -fsyntax-only -Xclang -verify=ok %s
// ok-no-diagnostics
#include <compactptr.h>
#include <stdlib.h>

struct CP_COMPACT rec {
  int key;
  struct rec *next;
};

// CHECK: fix-it:"{{.*}}":{[[@LINE+1]]:1-[[@LINE+1]]:1}:"CP_ALLOCATOR "
static void *xrealloc(void *p, size_t n) { // expected-note {{declare 'xrealloc' CP_ALLOCATOR here}}
  p = realloc(p, n);
  if (!p)
    abort();
  return p;
}

static CP_ALLOCATOR void *grow(void *p, size_t n) {
  p = realloc(p, n);
  if (!p)
    abort();
  return p;
}

struct rec **wrapper(struct rec **v, size_t n) {
  return xrealloc(v, n * sizeof *v); // expected-error {{the 'void *' returned by 'xrealloc' becomes 'struct rec **', but it is not a root array: memory from 'xrealloc' (a block from 'realloc'); the switch would not translate the compact pointers stored there; declare 'xrealloc' CP_ALLOCATOR}}
}

struct rec **annotated(struct rec **v, size_t n) {
  return grow(v, n * sizeof *v);
}

// A stretchy buffer: a header of two counts, then the elements.
static void *sb_growf(void *arr, size_t n, size_t item) {
  size_t *p = realloc(arr ? (size_t *)arr - 2 : 0, item * n + 2 * sizeof(size_t));
  if (!p)
    abort();
  p[0] = n;
  return p + 2;
}

static struct rec **visited;

void remember(struct rec *r, size_t n) {
  *((void **)&visited) = sb_growf(visited, n, sizeof *visited); // expected-error {{this memory becomes 'struct rec **', but it is not a root array ('sb_growf' allocates it with 'realloc' and hands out a pointer into the block): the switch would not translate the compact pointers stored there; keep them in a root array: malloc, calloc or realloc of n * sizeof(struct rec *) into 'struct rec **'}}
  visited[n - 1] = r;
}

// A table's header and its buckets in one block.
struct table {
  size_t n;
  struct rec **buckets;
};

struct table *table_new(size_t n) {
  struct table *t = calloc(1, sizeof *t + n * sizeof(struct rec *));
  t->n = n;
  t->buckets = (struct rec **)(t + 1); // expected-error {{this conversion makes a 'struct table *' a 'struct rec **': compact pointers stored in that memory are not in a root array, so the switch would not translate them}}
  return t;
}

void *other_file_alloc(size_t n);
void *other_file_lookup(int k);

struct rec **from_elsewhere(size_t n) {
  struct rec **v = other_file_alloc(n * sizeof *v); // expected-warning {{the 'void *' returned by 'other_file_alloc' becomes 'struct rec **'; if 'other_file_alloc' allocates that memory, it is not a root array and the switch would not translate the compact pointers stored there (declare 'other_file_alloc' CP_ALLOCATOR, or cast the result if it points into a root array)}}
  return v;
}

// A cast says the memory is a root array already.
struct rec **looked_up(int k) { return (struct rec **)other_file_lookup(k); }

// Reads through other memory: a comparator's arguments, bsearch's result.
static int by_key(const void *a, const void *b) {
  const struct rec *x = *(struct rec *const *)a, *y = *(struct rec *const *)b;
  return (x->key > y->key) - (x->key < y->key);
}

struct rec *find(struct rec **v, size_t n, struct rec *key) {
  qsort(v, n, sizeof *v, by_key);
  struct rec **hit = bsearch(&key, v, n, sizeof *v, by_key);
  return hit ? *hit : NULL;
}

// A root array the plugin routes: no diagnostic.
struct rec **plain(struct rec **v, size_t n) {
  void *tmp = realloc(v, n * sizeof *v);
  if (!tmp)
    abort();
  return tmp;
}
