/* graphcopy.c - deep copy of a cyclic object graph with an address map.
 *
 * In the style of the object-graph copiers, serializers and "clone graph"
 * routines of interpreters and document models: a copy walks the graph
 * with a work list and remembers which objects it has already copied in
 * an open-addressing hash map keyed by the object's *address*
 * (`(uintptr_t)obj`), so shared objects and cycles are copied once.  The
 * copy is then checked against the original by a lock-step walk that
 * marks objects with an epoch number, and the map is reused for a second
 * copy of a subgraph.  Shapes: node addresses as hash keys, a heap array
 * of key/value structs holding node pointers, an array of node pointers
 * inside each node, a growable work list of node pointers.
 *
 * Usage: graphcopy [objects]       (default 150000)
 */
#include <compactptr.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define NREF 3

struct CP_COMPACT obj {
  int tag;
  int mark;
  struct obj *ref[NREF];
};

struct slot {
  struct obj *key;
  struct obj *val;
};

struct map {
  struct slot *slots;
  size_t cap, used;
  long probes;
};

static size_t hash_ptr(const void *p, size_t cap)
{
  uintptr_t h = (uintptr_t)p;

  h ^= h >> 17;
  h *= 0x9E3779B97F4A7C15u;
  return (size_t)(h >> 20) & (cap - 1);
}

static void map_init(struct map *m, size_t cap)
{
  m->slots = calloc(cap, sizeof(struct slot));
  m->cap = cap;
  m->used = 0;
  m->probes = 0;
}

static struct obj *map_get(struct map *m, struct obj *key)
{
  size_t i = hash_ptr(key, m->cap);

  while (m->slots[i].key) {
    m->probes++;
    if (m->slots[i].key == key)
      return m->slots[i].val;
    i = (i + 1) & (m->cap - 1);
  }
  return NULL;
}

static void map_put(struct map *m, struct obj *key, struct obj *val)
{
  size_t i = hash_ptr(key, m->cap);

  while (m->slots[i].key)
    i = (i + 1) & (m->cap - 1);
  m->slots[i].key = key;
  m->slots[i].val = val;
  m->used++;
}

static void map_clear(struct map *m)
{
  size_t i;

  for (i = 0; i < m->cap; i++)
    m->slots[i].key = m->slots[i].val = NULL;
  m->used = 0;
}

static struct obj *new_obj(int tag)
{
  struct obj *o = malloc(sizeof(struct obj));
  int i;

  o->tag = tag;
  o->mark = 0;
  for (i = 0; i < NREF; i++)
    o->ref[i] = NULL;
  return o;
}

static struct obj *deep_copy(struct obj *root, struct map *m, long *copied)
{
  struct obj **work = malloc(1024 * sizeof(struct obj *));
  size_t nwork = 0, capwork = 1024;
  struct obj *croot = new_obj(root->tag);
  int i;

  map_put(m, root, croot);
  work[nwork++] = root;
  *copied = 1;
  while (nwork > 0) {
    struct obj *o = work[--nwork], *c = map_get(m, o);

    for (i = 0; i < NREF; i++) {
      struct obj *r = o->ref[i], *cr;

      if (!r)
        continue;
      cr = map_get(m, r);
      if (!cr) {
        cr = new_obj(r->tag);
        map_put(m, r, cr);
        ++*copied;
        if (nwork == capwork) {
          capwork *= 2;
          work = realloc(work, capwork * sizeof(struct obj *));
        }
        work[nwork++] = r;
      }
      c->ref[i] = cr;
    }
  }
  free(work);
  return croot;
}

/* walk original and copy together; returns mismatches, counts nodes */
static long compare(struct obj *a, struct obj *b, int epoch, long *count)
{
  long bad = 0;
  int i;

  while (a && b) {
    if (a->mark == epoch) {
      if (b->mark != epoch)
        bad++;
      return bad;
    }
    a->mark = b->mark = epoch;
    ++*count;
    if (a->tag != b->tag)
      bad++;
    for (i = 1; i < NREF; i++)
      if ((a->ref[i] == NULL) != (b->ref[i] == NULL))
        bad++;
      else if (a->ref[i])
        bad += compare(a->ref[i], b->ref[i], epoch, count);
    a = a->ref[0];               /* iterate down ref[0]: long chains */
    b = b->ref[0];
  }
  return bad + ((a == NULL) != (b == NULL));
}

static void collect(struct obj *o, int epoch, struct obj ***out, size_t *n)
{
  int i;

  while (o && o->mark != epoch) {
    o->mark = epoch;
    (*out)[(*n)++] = o;
    for (i = 1; i < NREF; i++)
      if (o->ref[i])
        collect(o->ref[i], epoch, out, n);
    o = o->ref[0];
  }
}

int main(int argc, char *argv[])
{
  long n = argc > 1 ? atol(argv[1]) : 150000, i, copied, copied2, count = 0, bad;
  struct obj **all, *copy, *copy2, **garbage;
  struct map m;
  unsigned long x = 12345;
  size_t cap = 1, ng = 0, k;

  if (n < 2)
    n = 2;
  all = malloc(n * sizeof(struct obj *));
  for (i = 0; i < n; i++)
    all[i] = new_obj((int)(i % 1000));
  for (i = 0; i < n; i++) {
    x = x * 6364136223846793005UL + 1;
    all[i]->ref[0] = i + 1 < n ? all[i + 1] : NULL;     /* a spine */
    if ((x >> 60) < 6)
      all[i]->ref[1] = all[(x >> 20) % (unsigned long)n];   /* shared, cycles */
    if ((x >> 56) % 16 < 3)
      all[i]->ref[2] = all[i / 2];                         /* back edges */
  }
  while (cap < (size_t)n * 2)
    cap <<= 1;
  map_init(&m, cap);
  copy = deep_copy(all[0], &m, &copied);
  bad = compare(all[0], copy, 1, &count);
  printf("copied %ld objects, %ld compared, %ld mismatches, %zu in map\n", copied, count, bad,
         m.used);
  map_clear(&m);
  copy2 = deep_copy(all[n / 3], &m, &copied2);
  count = 0;
  bad = compare(all[n / 3], copy2, 2, &count);
  printf("second copy: %ld objects, %ld compared, %ld mismatches\n", copied2, count, bad);
  garbage = malloc((copied + copied2) * sizeof(struct obj *));
  collect(copy, 3, &garbage, &ng);
  collect(copy2, 3, &garbage, &ng);
  for (k = 0; k < ng; k++)
    free(garbage[k]);
  free(garbage);
  for (i = 0; i < n; i++)
    free(all[i]);
  free(all);
  free(m.slots);
  printf("freed %zu copies\n", ng);
  return 0;
}
