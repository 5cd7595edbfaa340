/* A program's own allocators, declared to the plugin:
 *   - localmalloc carves hash entries out of 32 KiB chunks with a bump
 *     pointer (the style of the Olden mst benchmark) and never frees them
 *     one by one;
 *   - xmalloc/xfree wrap calloc/free for every other allocation (the
 *     style of a project-wide allocator), including the bucket array;
 * both declared CP_ALLOCATOR / CP_DEALLOCATOR, so the plugin allocates the
 * compact objects through the runtime and the chunks only hold what is not
 * compact (the names).  Without the plugin the annotations are empty and
 * the pools do all the work.
 * Usage: pool [entries]                 (default 60000) */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT entry {
  unsigned key;
  const char *name;
  struct entry *next;
};

static char *temp;
static int remaining;
static long chunks;

static CP_ALLOCATOR char *localmalloc(int size) {
  char *blah;
  if (size > remaining) {
    temp = (char *)malloc(32768);
    if (!temp)
      exit(2);
    chunks++;
    remaining = 32768;
  }
  blah = temp;
  temp += size;
  remaining -= size;
  return blah;
}

static CP_ALLOCATOR void *xmalloc(size_t n) {
  void *p = calloc(1, n);
  if (!p)
    exit(2);
  return p;
}

static CP_DEALLOCATOR void xfree(void *p) { free(p); }

struct table {
  struct entry **buckets;
  unsigned nbuckets;
};

static struct entry *lookup(struct table *t, unsigned key) {
  struct entry *e;
  for (e = t->buckets[key % t->nbuckets]; e; e = e->next)
    if (e->key == key)
      return e;
  return NULL;
}

static void insert(struct table *t, unsigned key) {
  struct entry *e = (struct entry *)localmalloc(sizeof(*e));
  char *name = localmalloc(12); /* not compact: from the pool */
  snprintf(name, 12, "k%u", key % 1000);
  e->key = key;
  e->name = name;
  e->next = t->buckets[key % t->nbuckets];
  t->buckets[key % t->nbuckets] = e;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 60000;
  struct table *t = xmalloc(sizeof *t);
  unsigned x = 1;
  long found = 0, namesum = 0;
  t->nbuckets = 4096;
  t->buckets = xmalloc(t->nbuckets * sizeof(struct entry *));
  for (int i = 0; i < n; i++) {
    x = x * 1664525u + 1013904223u;
    if (!lookup(t, x >> 12))
      insert(t, x >> 12);
  }
  x = 1;
  for (int i = 0; i < n; i++) {
    x = x * 1664525u + 1013904223u;
    struct entry *e = lookup(t, x >> 12);
    if (e) {
      found++;
      namesum += (long)strlen(e->name);
    }
  }
  printf("%ld found, name length %ld, %s chunks\n", found, namesum,
         chunks > 0 ? "some" : "no");
  /* Entries are never freed one by one (the pool's way); the table is. */
  xfree(t->buckets);
  xfree(t);
  return 0;
}
