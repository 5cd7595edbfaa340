/*
 * array_random_test.c - random operations on heap arrays of compact objects
 * of every size (single objects, every size class and its boundaries,
 * CP_SMALL_ARRAY, blocks): allocate, free, realloc (grow and shrink, across
 * classes and blocks), link an element to an element of another array (or
 * one past its end), move interior and one-past-the-end roots, and the
 * switch at a random step, after which the operations go on in wide mode.
 * Everything is checked against a model.  Run under COMPACTPTR_VERIFY=1,
 * which walks and digests the heap around the switch.
 *
 *   usage: array_random_test [--seed=N] [--ops=N] [--switch]
 */
#define CP_TEST_DEFINE_TYPES
#include "internal.h"
#include "testtypes.h"
#include "testutil.h"

#undef fail_msg
#undef assert_true
#define fail_msg(...)                                                          \
  (fprintf(stderr, "seed %llu step %ld: ", (unsigned long long)seed0, step),  \
   fprintf(stderr, __VA_ARGS__), fputc('\n', stderr), exit(1))
#define assert_true(c) ((c) ? (void)0 : fail_msg("check failed: %s", #c))

/* quad { int key; quad *next; int a, b; }: compact 16, so arrays of 2^k
 * fill runs and 512 of them are exactly CP_SMALL_ARRAY. */
struct w_quad { int key; struct w_quad *next; int a, b; };
struct c_quad { int key; cp_handle_t next; int a, b; };
extern cp_type_desc_t aquad_desc;
static const cp_field_desc_t quad_fields[] = {
    FIELD("key", struct c_quad, struct w_quad, key, CP_FIELD_BYTES, 1, 4, NULL),
    FIELD("next", struct c_quad, struct w_quad, next, CP_FIELD_HANDLE, 1, 0, &aquad_desc),
    FIELD("a", struct c_quad, struct w_quad, a, CP_FIELD_BYTES, 1, 4, NULL),
    FIELD("b", struct c_quad, struct w_quad, b, CP_FIELD_BYTES, 1, 4, NULL),
};
DESC(aquad_desc, "aquad", struct c_quad, struct w_quad, quad_fields);
CP_REGISTER_TYPE(aquad_desc);

enum { MAXOBJ = 384, NT = 2, MAXELEMS = 1000000 };
static cp_type_desc_t *const descs[NT] = {&node_desc, &aquad_desc};
/* field index of key and next in each descriptor */
static const unsigned next_f[NT] = {1, 1};

typedef struct link { int obj, idx; } link_t; /* obj -1: NULL */
typedef struct mobj {
  int type; /* -1: free */
  size_t n;
  int *keys;
  link_t *links;
  int indeg; /* links and roots from elsewhere that must stay valid */
  size_t mid; /* element the interior root points at */
  int has_end; /* the end root is set */
} mobj_t;

static mobj_t model[MAXOBJ];
static void **objs, **mids, **ends; /* root arrays */
static uint64_t seed, seed0;
static long step;
static size_t total;

static size_t stride(int t) { return obj_stride(descs[t]); }
static char *elem(int o, size_t j) {
  return (char *)objs[o] + j * stride(model[o].type);
}
static int *key_at(int o, size_t j) {
  return (int *)field_addr(elem(o, j), descs[model[o].type], 0);
}
static void *next_get(int o, size_t j) {
  return link_get(elem(o, j), descs[model[o].type], next_f[model[o].type], 0);
}
static void next_set(int o, size_t j, void *q) {
  link_set(elem(o, j), descs[model[o].type], next_f[model[o].type], 0, q);
}
static void *addr_of(link_t l) {
  return l.obj < 0 ? NULL : elem(l.obj, (size_t)l.idx);
}
/* Every array may have an end pointer (blocks and slabs keep room after
 * their end, so it never names another run's object). */
static bool end_ok(int o) {
  (void)o;
  return true;
}

static size_t random_size(void) {
  static const size_t edges[] = {1,    2,    3,    4,    5,    7,    8,   9,
                                 15,   16,   17,   31,   32,   33,   63,  64,
                                 65,   127,  128,  129,  255,  256,  257, 341,
                                 342,  511,  512,  513,  682,  683,  1023,
                                 1024, 1025, 2047, 2048, 2049, 4095, 4096,
                                 4097, 5461, 8192};
  uint32_t r = rng_below(&seed, 40);
  if (r < 16)
    return edges[rng_below(&seed, sizeof edges / sizeof edges[0])];
  if (r < 36)
    return 1 + rng_below(&seed, 40);
  if (r < 39)
    return 1 + rng_below(&seed, 3000);
  /* Blocks of 2 MiB and more, whose whole chunks realloc moves as pages
   * (2-5 MiB compact, up to 10 MiB wide). */
  return 131072 + rng_below(&seed, 200000);
}

static void check_obj(int o) {
  mobj_t *m = &model[o];
  if (cp_object_count(objs[o]) < m->n)
    fail_msg("object %d: capacity %zu < %zu", o, cp_object_count(objs[o]), m->n);
  for (size_t j = 0; j < m->n; j++) {
    if (*key_at(o, j) != m->keys[j])
      fail_msg("object %d elem %zu: key %d, model %d", o, j, *key_at(o, j),
               m->keys[j]);
    if (next_get(o, j) != addr_of(m->links[j]))
      fail_msg("object %d elem %zu: next %p, model %p (obj %d idx %d)", o, j,
               next_get(o, j), addr_of(m->links[j]), m->links[j].obj,
               m->links[j].idx);
  }
  if (mids[o] != elem(o, m->mid))
    fail_msg("object %d: interior root %p, expected %p", o, mids[o],
             (void *)elem(o, m->mid));
  if (m->has_end && ends[o] != elem(o, m->n))
    fail_msg("object %d: end root %p, expected %p", o, ends[o],
             (void *)elem(o, m->n));
}

static void check_all(void) {
  for (int o = 0; o < MAXOBJ; o++)
    if (model[o].type >= 0)
      check_obj(o);
}

static int random_live(int type) {
  for (int tries = 0; tries < 8; tries++) {
    int o = (int)rng_below(&seed, MAXOBJ);
    if (model[o].type >= 0 && (type < 0 || model[o].type == type))
      return o;
  }
  return -1;
}

/* Drops the outgoing links of elements [from, n) of o. */
static void drop_links(int o, size_t from) {
  for (size_t j = from; j < model[o].n; j++)
    if (model[o].links[j].obj >= 0)
      model[model[o].links[j].obj].indeg--;
}

static void op_alloc(void) {
  int o = (int)rng_below(&seed, MAXOBJ);
  if (model[o].type >= 0)
    return;
  size_t n = random_size();
  if (total + n > MAXELEMS)
    return;
  int t = (int)rng_below(&seed, NT);
  bool single = n == 1 && rng_below(&seed, 2);
  objs[o] = single ? cp_alloc(descs[t]) : cp_alloc_array(descs[t], n);
  mobj_t *m = &model[o];
  *m = (mobj_t){t, n, malloc(n * sizeof(int)), malloc(n * sizeof(link_t)), 0,
                0, 0};
  for (size_t j = 0; j < n; j++) {
    if (*key_at(o, j) != 0 || next_get(o, j) != NULL)
      fail_msg("fresh object %d elem %zu is not zeroed", o, j);
    m->keys[j] = (int)(rng_next(&seed) >> 40);
    *key_at(o, j) = m->keys[j];
    m->links[j] = (link_t){-1, 0};
  }
  m->mid = rng_below(&seed, (uint32_t)n);
  mids[o] = elem(o, m->mid);
  m->has_end = end_ok(o) && rng_below(&seed, 2);
  ends[o] = m->has_end ? elem(o, n) : NULL;
  total += n;
}

static void op_free(void) {
  int o = random_live(-1);
  if (o < 0 || model[o].indeg)
    return;
  check_obj(o);
  drop_links(o, 0);
  cp_free(objs[o]);
  free(model[o].keys);
  free(model[o].links);
  total -= model[o].n;
  model[o].type = -1;
  objs[o] = NULL;
  /* the interior and end roots now dangle, as locals often do */
}

static void op_realloc(void) {
  int o = random_live(-1);
  if (o < 0 || model[o].indeg)
    return;
  mobj_t *m = &model[o];
  size_t n = rng_below(&seed, 3) ? random_size()
                                 : m->n + rng_below(&seed, 3) - 1;
  if (n == 0 || total - m->n + n > MAXELEMS)
    return;
  check_obj(o);
  drop_links(o, n < m->n ? n : m->n);
  objs[o] = cp_realloc_array(descs[m->type], objs[o], n);
  m->keys = realloc(m->keys, n * sizeof(int));
  m->links = realloc(m->links, n * sizeof(link_t));
  for (size_t j = m->n; j < n; j++) {
    if (*key_at(o, j) != 0 || next_get(o, j) != NULL)
      fail_msg("object %d grown to %zu: elem %zu is not zeroed", o, n, j);
    m->keys[j] = (int)j;
    *key_at(o, j) = (int)j;
    m->links[j] = (link_t){-1, 0};
  }
  total = total - m->n + n;
  m->n = n;
  m->mid = rng_below(&seed, (uint32_t)n);
  mids[o] = elem(o, m->mid);
  m->has_end = end_ok(o) && rng_below(&seed, 2);
  ends[o] = m->has_end ? elem(o, n) : NULL;
}

static void op_link(void) {
  int o = random_live(-1);
  if (o < 0)
    return;
  mobj_t *m = &model[o];
  size_t j = rng_below(&seed, (uint32_t)m->n);
  int p = rng_below(&seed, 5) ? random_live(m->type) : -1;
  link_t l = {-1, 0};
  if (p >= 0) {
    /* an element, or one past the end */
    l = (link_t){p, (int)rng_below(&seed, (uint32_t)model[p].n + 1)};
    if ((size_t)l.idx == model[p].n && !end_ok(p))
      l.idx = 0;
    model[p].indeg++;
  }
  if (m->links[j].obj >= 0)
    model[m->links[j].obj].indeg--;
  m->links[j] = l;
  next_set(o, j, addr_of(l));
}

int main(int argc, char **argv) {
  long ops = 200000;
  int do_switch = 0;
  seed = 1;
  for (int a = 1; a < argc; a++) {
    if (!strncmp(argv[a], "--seed=", 7)) seed = strtoull(argv[a] + 7, NULL, 0);
    else if (!strncmp(argv[a], "--ops=", 6)) ops = atol(argv[a] + 6);
    else if (!strcmp(argv[a], "--switch")) do_switch = 1;
    else { fprintf(stderr, "array_random_test: unknown argument '%s'\n", argv[a]); return 2; }
  }
  if (!seed)
    seed = 1;
  seed0 = seed;
  long switch_at = do_switch ? (long)(rng_next(&seed) % (uint64_t)ops) : -1;
  printf("array_random_test: seed=%llu ops=%ld switch_at=%ld\n",
         (unsigned long long)seed0, ops, switch_at);
  objs = cp_root_array_alloc(MAXOBJ);
  mids = cp_root_array_alloc(MAXOBJ);
  ends = cp_root_array_alloc(MAXOBJ);
  for (int o = 0; o < MAXOBJ; o++)
    model[o].type = -1;
  for (step = 0; step < ops; step++) {
    if (step == switch_at) {
      check_all();
      cp_switch_to_wide();
      check_all();
    }
    uint32_t r = rng_below(&seed, 100);
    if (r < 25) op_alloc();
    else if (r < 40) op_free();
    else if (r < 55) op_realloc();
    else if (r < 90) op_link();
    else {
      int o = random_live(-1);
      if (o >= 0) check_obj(o);
    }
    if (step % 20000 == 19999)
      check_all();
  }
  check_all();
  for (uint32_t k = 0; k < cp__ntypes; k++)
    for (cp_slab_t *s = cp__types[k]->all; s; s = s->next_all)
      if (!cp__slab_is_valid(s))
        fail_msg("a slab of %s is inconsistent", cp__types[k]->desc->name);
  assert_true(cp__buddy_is_valid(cp__current_arena()));
  printf("array_random_test: ok, %zu live elements, mode %s\n", total,
         cp_is_compact() ? "compact" : "wide");
  return 0;
}
