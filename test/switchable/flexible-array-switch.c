// Compact types with a flexible array member of plain elements: a hash
// entry whose key lives in the object (`malloc(sizeof *e + n + 1)`), a
// node with a byte before the member, so that its offset differs between
// the layouts (`calloc(1, offsetof(struct tagged, name) + n + 1)`), a
// vector of ints grown with realloc, one whose room takes pages of its
// own.  The runtime gives each object room for its elements in both
// layouts (cp_flex_count), and the switch copies them as bytes: the
// native output in compact-only mode and across a switch at several
// arena limits, with the heap verified.  Before, every such type was
// refused.  A scanner keeps `end = b->text + b->len` while it allocates:
// where the text filled its slot exactly, that end was the next slot's
// start and the switch moved it there (60 tokens too many, exit 0); each
// object now has a byte more than asked.
// REQUIRES: plugin
// RUN: %clang %cflags -O2 %s -o %t.native
// RUN: %clang %cflags -O2 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %clang %cflags -O2 -Werror -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co
// RUN: %t.native > %t.expect
// RUN: %t.co | diff %t.expect -
// RUN: %t | diff %t.expect -
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: FileCheck %s < %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=512K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: FileCheck %s < %t.err
// CHECK: switch to wide mode (high-water mark) {{.*}}, verified
#include <compactptr.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A string-keyed hash entry: the key lives in the object. */
struct CP_COMPACT entry {
  struct entry *next;
  size_t len;
  char key[];
};
/* A handle, a byte, then the member: its offset differs between the
 * layouts by less than the struct's size. */
struct CP_COMPACT tagged {
  struct tagged *next;
  char tag;
  char name[];
};
/* Elements of 4 bytes, grown with realloc. */
struct CP_COMPACT vec {
  struct vec *next;
  int n;
  int data[];
};

static struct entry *table[509];
static struct tagged *tags;
static struct vec *vecs;

static unsigned hash(const char *s) {
  unsigned h = 2166136261u;
  while (*s)
    h = (h ^ (unsigned char)*s++) * 16777619u;
  return h;
}

static void put(const char *k) {
  size_t n = strlen(k);
  struct entry *e = malloc(sizeof *e + n + 1);
  e->len = n;
  memcpy(e->key, k, n + 1);
  unsigned h = hash(k) % 509;
  e->next = table[h];
  table[h] = e;
}

static void tag(const char *name, char t) {
  size_t n = strlen(name);
  struct tagged *x = calloc(1, offsetof(struct tagged, name) + n + 1);
  x->tag = t;
  memcpy(x->name, name, n);
  x->next = tags;
  tags = x;
}

static struct vec *push(struct vec *v, int x) {
  v = realloc(v, sizeof *v + (size_t)(v->n + 1) * sizeof v->data[0]);
  v->data[v->n++] = x;
  return v;
}

struct CP_COMPACT buf {
  struct buf *next;
  unsigned len;
  char text[];
};
struct CP_COMPACT tok {
  struct tok *next;
  char c;
};
static struct tok *toks;

static long scan(const struct buf *b) {
  const char *p = b->text, *end = b->text + b->len;
  long n = 0;
  while (p < end) {
    struct tok *t = malloc(sizeof *t);
    t->c = *p++;
    t->next = toks;
    toks = t;
    n++;
  }
  return n;
}

static long scan_all(void) {
  static const unsigned lens[] = {56, 120, 57, 8, 0};
  long n = 0;
  for (int i = 0; i < 4000; i++) {
    unsigned len = lens[i % 5];
    struct buf *b = malloc(offsetof(struct buf, text) + len);
    memset(b->text, 'a' + i % 26, len);
    b->len = len;
    b->next = NULL;
    n += scan(b);
    free(b);
  }
  return n;
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 20000;
  long ntoks = scan_all(); /* first: the switch comes while it scans */
  char buf[64];
  for (int i = 0; i < rounds; i++) {
    snprintf(buf, sizeof buf, "key-%d-%s", i * 7, i % 3 ? "x" : "a-longer-suffix");
    put(buf);
    if (i % 4 == 0)
      tag(buf + 4, (char)('a' + i % 26));
    if (i % 50 == 0) {
      struct vec *v = malloc(sizeof *v);
      v->n = 0;
      v->next = vecs;
      vecs = v;
    }
    vecs = push(vecs, i);
  }
  /* A big one: its own pages. */
  struct entry *big = malloc(sizeof(struct entry) + 100000);
  memset(big->key, 'z', 99999);
  big->key[99999] = 0;
  big->len = 99999;
  big->next = table[0];
  table[0] = big;
  unsigned long sum = 0, cnt = 0;
  for (int i = 0; i < 509; i++)
    for (struct entry *e = table[i]; e; e = e->next)
      sum += e->len * 31 + hash(e->key), cnt++;
  for (struct tagged *x = tags; x; x = x->next)
    sum += (unsigned char)x->tag + hash(x->name), cnt++;
  for (struct vec *v = vecs; v; v = v->next)
    for (int j = 0; j < v->n; j++)
      sum += (unsigned long)v->data[j] * 3, cnt++;
  printf("%lu objects, sum %lu\n", cnt, sum);
  printf("%ld tokens\n", ntoks);
  for (int i = 0; i < 509; i++)
    while (table[i]) {
      struct entry *e = table[i];
      table[i] = e->next;
      free(e);
    }
  return 0;
}
