// Addresses inside compact objects handed between functions: a lookup
// that returns `&e->count` (and one that forwards it), an interning
// table that returns its array member `w->text`, an out-parameter into a
// node passed to a function that allocates (and passes it on), pointer
// arithmetic on such an address (also one past the end of an array member
// that padding follows), and a conditional that may hold one or a stack
// address.  The caller's local, or the callee's parameter, holds
// the address across allocations; each is a root of its frame, so the
// switch, which moves the object, moves the address with it.  Before,
// the first use after the switch stopped the program (the runtime's
// stale-pointer line).
// REQUIRES: plugin
// RUN: %clang %cflags -O1 %s -o %t.native && %t.native > %t.native.out
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %t > %t.out && diff %t.native.out %t.out
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_HIGH_WATER=15 COMPACTPTR_STATS=1 COMPACTPTR_VERIFY=1 %t > %t.out 2> %t.err
// RUN: diff %t.native.out %t.out && FileCheck %s < %t.err
// CHECK: compactptr: switch to wide mode
#include <compactptr.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>

struct CP_COMPACT entry { struct entry *next; int key; long count; };
struct CP_COMPACT word { struct word *next; unsigned hits; char text[12]; };

static struct entry *entries;
static struct word *words;

static struct entry *insert(int key) {
  struct entry *e = malloc(sizeof *e);
  e->key = key;
  e->count = 0;
  e->next = entries;
  entries = e;
  return e;
}

/* A label whose end pointer, one past its array member, is kept across
 * allocations; padding follows the member in both layouts. */
struct CP_COMPACT label { char text[10]; struct label *next; long uses; };
static const char *intern(const char *s);
static long measure(struct label *l, int grow) {
  const char *b = l->text, *e = l->text + sizeof l->text;
  char key[12];
  for (int i = 0; i < grow; i++) {
    snprintf(key, sizeof key, "m%d", i);
    intern(key);
  }
  long sum = 0;
  for (const char *p = b; p < e; p++)
    sum += *p;
  return (long)(e - b) * 1000 + sum;
}

/* The address of the counter of key, or NULL. */
static long *counter(int key) {
  for (struct entry *e = entries; e; e = e->next)
    if (e->key == key)
      return &e->count;
  return NULL;
}

/* The same, through one more function: still a pointer into an entry. */
static long *counter_or_new(int key) {
  long *c = counter(key);
  return c ? c : &insert(key)->count;
}

/* The interned copy of s: its text lives inside a word. */
static const char *intern(const char *s) {
  for (struct word *w = words; w; w = w->next)
    if (strcmp(w->text, s) == 0) {
      w->hits++;
      return w->text;
    }
  struct word *w = malloc(sizeof *w);
  snprintf(w->text, sizeof w->text, "%s", s);
  w->hits = 1;
  w->next = words;
  words = w;
  return w->text;
}

/* Adds n fresh entries and their keys to *sum: sum points into an entry
 * that does not move by itself, but the switch moves it. */
static void add_keys(long *sum, int from, int n) {
  for (int i = 0; i < n; i++)
    *sum += insert(from + i)->key;
}
static void add_twice(long *sum, int from, int n) {
  add_keys(sum, from, n);
  add_keys(sum, from + n, n);
}

int main(int argc, char **argv) {
  (void)argv;
  long spare = 0;
  struct label *l = malloc(sizeof *l);
  snprintf(l->text, sizeof l->text, "%s", "edge");
  long span = measure(l, 4000); /* the switch happens in here */
  long *hits = counter_or_new(-1);          /* returned, through two functions */
  long *total = &insert(-2)->count;         /* a member of a returned object */
  const char *first = intern("alpha");      /* an array member, returned */
  const char *tail = intern("omega") + 2;   /* and moved by arithmetic */
  long *either = argc > 5 ? &spare : counter(-1);
  char key[12];
  for (int i = 0; i < 10000; i++) {
    snprintf(key, sizeof key, "k%d", i % 5000);
    intern(key);
    *hits += 1;
    if (i % 1000 == 0)
      add_twice(total, 100000 + i * 10, 3); /* an out-parameter, passed on */
    *either += 2;
  }
  long checksum = 0;
  for (struct entry *e = entries; e; e = e->next)
    checksum += e->count;
  printf("hits %ld total %ld checksum %ld first %s tail %s spare %ld\n", *hits, *total,
         checksum, first, tail, spare);
  printf("alpha hits %u, span %ld\n", words ? (unsigned)strlen(first) : 0u, span);
  return 0;
}
