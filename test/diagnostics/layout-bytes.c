// The bytes of a struct of compact type read from a value (a local or a
// parameter: the wide layout) in a file that also reads those of one in
// the compact heap (the compact layout): a hash table keyed by a struct
// that holds compact pointers (uthash's HASH_FIND with `&k`, HASH_ADD
// with `&e->key`) hashes and compares the two, which never match -- in
// every mode, without a switch (a trial's edge table found no duplicate).
// Warned at each value's read; the heap's bytes alone, or a value's alone,
// are consistent and not warned.  In switchable mode `find` has two
// bodies; the warning comes once.
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-Wno-compactptr-layout-stored -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Xclang -verify %s
#include <compactptr.h>
#include <string.h>

struct CP_COMPACT node { int id; struct node *next; };
struct pair { struct node *from, *to; }; /* compact by inference */
struct CP_COMPACT edge { struct pair key; unsigned hash; struct edge *chain; };

static unsigned hash_bytes(const unsigned char *p, size_t n) {
  unsigned h = 2166136261u;
  while (n--)
    h = (h ^ *p++) * 16777619u;
  return h;
}

void add(struct edge *e) {
  e->hash = hash_bytes((const unsigned char *)&e->key, sizeof e->key);
}
struct edge *find(struct edge *chain, struct node *a, struct node *b) {
  struct pair k = {a, b};
  unsigned h = hash_bytes((const unsigned char *)&k, sizeof k); // expected-warning-re {{{{^}}the bytes of a 'struct pair' value (its wide layout) are read here, and elsewhere in this file those of one in the compact heap (its compact layout): hashed or compared against each other (a hash table's struct key) they never match; key by members that hold no compact pointer (ids), or compare field by field [-Wcompactptr-layout-bytes]{{$}}}}
  for (; chain; chain = chain->chain)
    if (chain->hash == h)
      return chain;
  return 0;
}

// Values only: consistent with each other.
struct CP_COMPACT other { struct other *up; };
struct opair { struct other *a, *b; };
unsigned opair_hash(struct opair *p, struct opair q) {
  return hash_bytes((const unsigned char *)p, sizeof *p) ^
         hash_bytes((const unsigned char *)&q, sizeof q);
}
