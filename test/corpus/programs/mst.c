/* mst.c - minimum spanning tree of a dense random graph (Prim's algorithm).
 *
 * In the style of the Olden mst benchmark: every vertex keeps a hash table
 * of its edges keyed by the *address* of the other vertex
 * (`(unsigned int) vertex`), entries are carved out of 32 KiB chunks by a
 * home-made bump allocator (`localmalloc`), the hash function is reached
 * through a function pointer stored in the table, and the edge weight is
 * smuggled through the table's `void *` slot.  Prim's "blue rule" walks
 * the list of vertices not yet in the tree, looks up the distance to the
 * vertex just inserted, and unlinks the nearest.  Shapes: pool allocator,
 * node addresses as hash keys, typedef'd pointer types (`Vertex`, `Hash`,
 * `HashEntry`), an array of vertices linked into a list, an assert-like
 * macro with a statement body.
 *
 * Usage: mst [vertices]       (default 700)
 */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>

#define assert(num, a) if (!(a)) { printf("Assertion failure:%d in mst\n", num); exit(-1); }

typedef struct CP_COMPACT hash_entry {
  unsigned int key;
  void *entry;
  struct hash_entry *next;
} *HashEntry;

typedef struct hash {
  HashEntry *array;
  int (*mapfunc)(unsigned int);
  int size;
} *Hash;

typedef struct CP_COMPACT vert_st {
  int mindist;
  struct vert_st *next;
  Hash edgehash;
} *Vertex;

typedef struct graph_st {
  int numvert;
  Vertex vlist;
} *Graph;

/* --- hash.c ------------------------------------------------------------ */

static int remaining = 0;
static char *temp;
static char *chunks[4096];
static int nchunks;

static char *localmalloc(int size)
{
  char *blah;

  if (size > remaining) {
    temp = (char *)malloc(32768);
    if (!temp || nchunks == 4096) {
      printf("Error! malloc returns null\n");
      exit(2);
    }
    chunks[nchunks++] = temp;
    remaining = 32768;
  }
  blah = temp;
  temp += size;
  remaining -= size;
  return blah;
}

#define localfree(sz)

static Hash MakeHash(int size, int (*map)(unsigned int))
{
  Hash retval;
  int i;

  retval = (Hash)malloc(sizeof(*retval));
  retval->array = (HashEntry *)malloc(size * sizeof(HashEntry));
  for (i = 0; i < size; i++)
    retval->array[i] = NULL;
  retval->mapfunc = map;
  retval->size = size;
  return retval;
}

static void *HashLookup(unsigned int key, Hash hash)
{
  int j;
  HashEntry ent;

  j = (hash->mapfunc)(key);
  assert(1, j >= 0);
  assert(2, j < hash->size);
  for (ent = hash->array[j]; ent && ent->key != key; ent = ent->next)
    ;
  if (ent)
    return ent->entry;
  return NULL;
}

static void HashInsert(void *entry, unsigned int key, Hash hash)
{
  HashEntry ent;
  int j;

  assert(3, !HashLookup(key, hash));
  j = (hash->mapfunc)(key);
  ent = (HashEntry)localmalloc(sizeof(*ent));
  ent->next = hash->array[j];
  hash->array[j] = ent;
  ent->key = key;
  ent->entry = entry;
}

/* --- makegraph.c -------------------------------------------------------- */

#define RANGE 2048
static int HashRange;

static int hashfunc(unsigned int key)
{
  return ((key >> 4) % HashRange);
}

static int mult(int p, int q)
{
  int p1, p0, q1, q0;

  p1 = p / 10000; p0 = p % 10000;
  q1 = q / 10000; q0 = q % 10000;
  return (((p0 * q1 + p1 * q0) % 10000) * 10000 + p0 * q0) % 100000000;
}

static int compute_dist(int i, int j, int numvert)
{
  int less, gt;

  if (i < j) { less = i; gt = j; } else { less = j; gt = i; }
  return (mult(less * numvert + gt, 31415821) + 1) % RANGE + 1;
}

#define KEY(v) ((unsigned int)(uintptr_t)(v))

static void AddEdges(Graph retval, int numvert)
{
  Vertex tmp, vertex = retval->vlist;
  int i, j, dist;

  for (i = 0; i < numvert; i++) {
    tmp = &vertex[i];
    for (j = 0; j < numvert; j++) {
      if (i != j) {
        dist = compute_dist(i, j, numvert);
        HashInsert((void *)(intptr_t)dist, KEY(&vertex[j]), tmp->edgehash);
      }
    }
  }
}

static Graph MakeGraph(int numvert)
{
  int i;
  Vertex vf, vt;
  Graph retval;

  retval = (Graph)malloc(sizeof(*retval));
  vf = (Vertex)malloc(numvert * sizeof(struct vert_st));
  vt = NULL;
  for (i = numvert - 1; i >= 0; i--) {
    vf[i].mindist = 9999999;
    vf[i].edgehash = MakeHash(numvert / 4 + 1, hashfunc);
    vf[i].next = vt;
    vt = &vf[i];
  }
  retval->vlist = vf;
  retval->numvert = numvert;
  AddEdges(retval, numvert);
  return retval;
}

/* --- main.c -------------------------------------------------------------- */

typedef struct blue_return {
  Vertex vert;
  int dist;
} BlueReturn;

static BlueReturn BlueRule(Vertex inserted, Vertex vlist)
{
  BlueReturn retval;
  Vertex tmp, prev;
  Hash hash;
  int dist, dist2;

  if (!vlist) {
    retval.dist = 999999;
    retval.vert = NULL;
    return retval;
  }
  prev = vlist;
  retval.vert = vlist;
  retval.dist = vlist->mindist;
  hash = vlist->edgehash;
  dist = (int)(intptr_t)HashLookup(KEY(inserted), hash);
  if (dist) {
    if (dist < retval.dist) {
      vlist->mindist = dist;
      retval.dist = dist;
    }
  } else
    printf("Not found\n");

  for (tmp = vlist->next; tmp; prev = tmp, tmp = tmp->next) {
    if (tmp == inserted) {
      Vertex next = tmp->next;
      prev->next = next;
    } else {
      hash = tmp->edgehash;
      dist2 = tmp->mindist;
      dist = (int)(intptr_t)HashLookup(KEY(inserted), hash);
      if (dist) {
        if (dist < dist2) {
          tmp->mindist = dist;
          dist2 = dist;
        }
      } else
        printf("Not found\n");
      if (dist2 < retval.dist) {
        retval.vert = tmp;
        retval.dist = dist2;
      }
    }
  }
  return retval;
}

static Vertex MyVertexList = NULL;

static int ComputeMst(Graph graph, int numvert)
{
  Vertex inserted, tmp;
  int cost = 0, dist;

  MyVertexList = graph->vlist;
  inserted = MyVertexList;
  tmp = inserted->next;
  MyVertexList = tmp;
  numvert--;
  while (numvert) {
    BlueReturn br;

    if (inserted == MyVertexList)
      MyVertexList = MyVertexList->next;
    br = BlueRule(inserted, MyVertexList);
    inserted = br.vert;
    dist = br.dist;
    numvert--;
    cost += dist;
  }
  return cost;
}

int main(int argc, char *argv[])
{
  Graph graph;
  int dist, i, numvert = 700;

  if (argc > 1)
    numvert = atoi(argv[1]);
  if (numvert < 2)
    numvert = 2;
  HashRange = numvert / 4 + 1;
  printf("Making graph of size %d\n", numvert);
  graph = MakeGraph(numvert);
  printf("Graph completed\n");
  dist = ComputeMst(graph, numvert);
  printf("MST has cost %d\n", dist);
  for (i = 0; i < numvert; i++) {
    free(graph->vlist[i].edgehash->array);
    free(graph->vlist[i].edgehash);
  }
  free(graph->vlist);
  free(graph);
  for (i = 0; i < nchunks; i++)
    free(chunks[i]);
  return 0;
}
