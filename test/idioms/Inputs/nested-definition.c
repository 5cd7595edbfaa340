/* A symbol table in the style of lcc: `struct entry` is defined inside
 * `struct table` (C gives it file scope), holds a compact `struct sym` by
 * value and chains entries through handles; tables of nested scopes link
 * to the enclosing one.  Lookups walk the scopes outward; half the names
 * are installed in the outermost table, which grows all run. */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

#define HASHSIZE 64

struct CP_COMPACT sym {
  const char *name;
  unsigned key;
  int scope;
  long uses;
};

struct table {
  int level;
  struct table *previous;
  struct entry {
    struct sym sym;
    struct entry *link;
  } *buckets[HASHSIZE];
  struct entry *newest; /* the last entry installed in this scope */
  int count;
};

static const char *names[] = {"a", "b", "c", "d", "e", "f", "g", "h"};

static struct table *push_scope(struct table *up) {
  struct table *t = calloc(1, sizeof *t);
  t->previous = up;
  t->level = up ? up->level + 1 : 0;
  return t;
}

static struct sym *install(struct table *t, unsigned h, const char *name) {
  struct entry *e = malloc(sizeof *e);
  e->sym.name = name;
  e->sym.key = h;
  e->sym.scope = t->level;
  e->sym.uses = 0;
  e->link = t->buckets[h % HASHSIZE];
  t->buckets[h % HASHSIZE] = e;
  t->newest = e;
  t->count++;
  return &e->sym;
}

static struct sym *lookup(struct table *t, unsigned h, const char *name) {
  for (; t; t = t->previous)
    for (struct entry *e = t->buckets[h % HASHSIZE]; e; e = e->link)
      if (e->sym.key == h && e->sym.name == name) {
        e->sym.uses++;
        return &e->sym;
      }
  return NULL;
}

static struct table *pop_scope(struct table *t, long *uses) {
  struct table *up = t->previous;
  for (int b = 0; b < HASHSIZE; b++)
    while (t->buckets[b]) {
      struct entry *e = t->buckets[b];
      t->buckets[b] = e->link;
      *uses += e->sym.uses;
      free(e);
    }
  free(t);
  return up;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 40000;
  struct table *global = push_scope(NULL), *t = global;
  long found = 0, missed = 0, uses = 0, depth = 0;
  unsigned x = 12345;
  for (int i = 0; i < n; i++) {
    x = x * 1103515245u + 12345u;
    unsigned h = (x >> 8) % 16384;
    const char *name = names[(x >> 20) % 8];
    if ((x >> 28) == 0 && t->level < 12)
      t = push_scope(t);
    else if ((x >> 28) == 1 && t->previous)
      t = pop_scope(t, &uses);
    if (lookup(t, h, name))
      found++;
    else {
      /* Half the names are global: the outermost table grows all run. */
      missed++;
      install((x >> 20) % 2 ? t : global, h, name);
    }
    depth += t->level;
  }
  printf("found %ld, missed %ld, depth %ld, global %d entries, newest %s\n",
         found, missed, depth, global->count, global->newest ? global->newest->sym.name : "-");
  while (t)
    t = pop_scope(t, &uses);
  printf("uses %ld\n", uses);
  return 0;
}
