// The size of an object with a flexible array member held in a local
// first, as most C writes it (`size_t sz = sizeof(struct entry) + len + 1;
// e = malloc(sz);`, and with offsetof and calloc): a local that only its
// initializer writes and only allocations read keeps the size of the
// moment, and the allocation takes its room from it (cp_flex_count, enough
// in either layout, also where the switch comes at that very allocation).
// Before, the allocation was refused ("must have its size expressed as
// sizeof(...)"), and the local's initializer warned (layout-stored).  The
// local may be read after a switch (a size taken once for a loop), so
// its room is counted for either layout.  A
// local also read elsewhere (a memset of the object after the allocation,
// a copy sized by it) stays warned: diagnostics/flexible-array-alloc.c.
// REQUIRES: plugin
// RUN: %clang %cflags -O1 %s -o %t.native
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co
// RUN: %t.native > %t.expect
// RUN: %t.co | diff %t.expect -
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: FileCheck %s < %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: FileCheck %s < %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=4M COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: FileCheck %s < %t.err
// CHECK: switch to wide mode (high-water mark) {{.*}}, verified
#include <compactptr.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT entry {
  struct entry *next;
  size_t len;
  char key[];
};

static struct entry *table[256];

static unsigned hash(const char *k) {
  unsigned h = 5381;
  while (*k)
    h = h * 33 + (unsigned char)*k++;
  return h & 255;
}

static struct entry *entry_new(const char *k) {
  size_t len = strlen(k);
  size_t sz = sizeof(struct entry) + len + 1;
  struct entry *e = malloc(sz);
  e->next = NULL;
  e->len = len;
  memcpy(e->key, k, len + 1);
  return e;
}

static struct entry *entry_new0(const char *k) {
  size_t len = strlen(k);
  const size_t sz = offsetof(struct entry, key) + len + 1;
  struct entry *e = calloc(1, sz);
  e->len = len;
  memcpy(e->key, k, len);
  return e;
}

/* The size taken once, before a loop whose allocations cross the switch:
 * taken in the compact layout, read in the wide one (where the member's
 * offset is larger).  The room is counted for either layout
 * (cp_flex_count_any); with the current layout's offset only, each object
 * had one 24-byte unit for the 27 bytes it needs.  A review's program of this shape was wrong with
 * exit 0 at every limit it tried. */
struct CP_COMPACT tag {
  struct tag *next, *prev;
  char kind;
  char key[]; /* at 9 bytes compact (12 a unit), 17 wide (24) */
};

static struct tag *batch(long count, struct tag *list) {
  const size_t sz = offsetof(struct tag, key) + 9 + 1;
  long i;
  for (i = 0; i < count; i++) {
    struct tag *e;
    if (i % 3)
      e = malloc(sz);
    else if (i % 2)
      e = calloc(sz, 1);
    else
      e = malloc(sz + 1);
    e->kind = (char)(i % 7);
    e->prev = NULL;
    snprintf(e->key, 10, "b%08ld", i);
    e->next = list;
    list = e;
  }
  return list;
}

int main(void) {
  char buf[64];
  long i, n = 0, total = 0;
  struct tag *b = batch(60000, NULL);
  for (; b; b = b->next, n++)
    total += (long)strlen(b->key) + b->key[1] + b->key[8] + b->kind;
  printf("%ld in a batch, %ld\n", n, total);
  n = total = 0;
  for (i = 0; i < 200000; i++) {
    snprintf(buf, sizeof buf, "key-%ld-%s", i * 7919 % 100003, i % 3 ? "x" : "long-suffix");
    struct entry *e = i & 1 ? entry_new(buf) : entry_new0(buf);
    unsigned h = hash(e->key);
    e->next = table[h];
    table[h] = e;
  }
  for (i = 0; i < 256; i++)
    for (struct entry *e = table[i]; e; e = e->next) {
      n++;
      total += (long)e->len + e->key[e->len - 1];
    }
  printf("%ld entries, %ld\n", n, total);

  return 0;
}
