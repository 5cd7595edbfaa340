/*
 * random_test.c - random allocate/free/link/unlink/check operations on
 * lists, trees and graphs of hand-written compact types, checked against a
 * plain model after every operation that reads the heap, and in full every
 * 100000 operations.  With --switch-at=random the switch happens at a random
 * step and the operations go on in wide mode.
 *
 *   usage: random_test [--seed=N] [--ops=N] [--switch] [--malloc]
 *   --malloc runs the same operations on libc malloc with the wide layout
 *   (the control: a model failure there is a bug in this test).
 */
#define CP_TEST_DEFINE_TYPES
#include "internal.h"
#include "testtypes.h"
#include "testutil.h"

/* This program runs outside cmocka's runner: failures print and exit 1. */
#undef fail_msg
#undef assert_true
#define fail_msg(...) (fprintf(stderr, __VA_ARGS__), fputc('\n', stderr), exit(1))
#define assert_true(c) ((c) ? (void)0 : fail_msg("check failed: %s", #c))

enum { MAXOBJ = 4096, NTYPES = 3, MAXLINKS = 4 };

typedef struct model_obj {
  int type;      /* -1 when free */
  long key;
  int links[MAXLINKS]; /* model ids or -1 */
  int indeg;
  uint32_t cookie;
} model_obj_t;

static cp_type_desc_t *const descs[NTYPES] = {&node_desc, &tree_desc, &graph_desc};
static const unsigned nlinks[NTYPES] = {2, 3, 4};
/* (field, element) of each link slot */
static const unsigned link_f[NTYPES][MAXLINKS] = {{1, 2}, {1, 2, 3}, {1, 1, 1, 1}};
static const unsigned link_j[NTYPES][MAXLINKS] = {{0, 0}, {0, 0, 0}, {0, 1, 2, 3}};

static model_obj_t model[MAXOBJ];
static void **objs; /* root array: objs[i] is model object i */
static int use_malloc, checked;
static uint64_t seed = 1;

static long key_get(int i) {
  void *p = objs[i];
  int t = model[i].type;
  if (use_malloc)
    return t == 1 ? ((struct w_tree *)p)->val : *(int *)p;
  void *f = field_addr(p, descs[t], 0);
  return t == 1 ? *(long *)f : *(int *)f;
}
static void key_set(int i, long v) {
  void *p = objs[i];
  int t = model[i].type;
  if (use_malloc) {
    if (t == 1) ((struct w_tree *)p)->val = v; else *(int *)p = (int)v;
    return;
  }
  void *f = field_addr(p, descs[t], 0);
  if (t == 1) *(long *)f = v; else *(int *)f = (int)v;
}
static void *link_read(int i, unsigned s) {
  int t = model[i].type;
  const cp_field_desc_t *fd = &descs[t]->fields[link_f[t][s]];
  if (use_malloc || !cp_is_compact())
    return ((void **)((char *)objs[i] + fd->wide_offset))[link_j[t][s]];
  cp_handle_t h = ((cp_handle_t *)((char *)objs[i] + fd->compact_offset))[link_j[t][s]];
  return checked ? cp_decode_checked(h) : cp_decode(h);
}
static void link_write(int i, unsigned s, void *q) {
  int t = model[i].type;
  const cp_field_desc_t *fd = &descs[t]->fields[link_f[t][s]];
  if (use_malloc || !cp_is_compact())
    ((void **)((char *)objs[i] + fd->wide_offset))[link_j[t][s]] = q;
  else
    ((cp_handle_t *)((char *)objs[i] + fd->compact_offset))[link_j[t][s]] = cp_encode(q);
}

static void check_obj(int i) {
  model_obj_t *m = &model[i];
  if (key_get(i) != m->key)
    fail_msg("seed %llu: object %d key %ld, model %ld",
             (unsigned long long)seed, i, key_get(i), m->key);
  for (unsigned s = 0; s < nlinks[m->type]; s++) {
    void *want = m->links[s] < 0 ? NULL : objs[m->links[s]];
    if (link_read(i, s) != want)
      fail_msg("seed %llu: object %d link %u is %p, model says %p",
               (unsigned long long)seed, i, s, link_read(i, s), want);
  }
}

static void check_all(void) {
  for (int i = 0; i < MAXOBJ; i++)
    if (model[i].type >= 0)
      check_obj(i);
}

static int random_live(int type) {
  for (int tries = 0; tries < 8; tries++) {
    int i = (int)rng_below(&seed, MAXOBJ);
    if (model[i].type >= 0 && (type < 0 || model[i].type == type))
      return i;
  }
  return -1;
}

static void op_alloc(void) {
  int i = (int)rng_below(&seed, MAXOBJ);
  if (model[i].type >= 0)
    return;
  int t = (int)rng_below(&seed, NTYPES);
  static const size_t wsize[NTYPES] = {sizeof(struct w_node), sizeof(struct w_tree),
                                       sizeof(struct w_graph)};
  objs[i] = use_malloc ? calloc(1, wsize[t]) : cp_alloc(descs[t]);
  model[i] = (model_obj_t){t, 0, {-1, -1, -1, -1}, 0, 0};
  model[i].key = (long)(rng_next(&seed) >> 40);
  key_set(i, model[i].key);
}

static void op_free(void) {
  int i = random_live(-1);
  if (i < 0 || model[i].indeg)
    return;
  check_obj(i);
  for (unsigned s = 0; s < nlinks[model[i].type]; s++)
    if (model[i].links[s] >= 0)
      model[model[i].links[s]].indeg--;
  if (use_malloc) free(objs[i]); else cp_free(objs[i]);
  objs[i] = NULL;
  model[i].type = -1;
}

static void op_link(bool to_null) {
  int i = random_live(-1);
  if (i < 0)
    return;
  unsigned s = rng_below(&seed, nlinks[model[i].type]);
  int j = to_null ? -1 : random_live(model[i].type);
  if (model[i].links[s] >= 0)
    model[model[i].links[s]].indeg--;
  model[i].links[s] = j;
  if (j >= 0)
    model[j].indeg++;
  link_write(i, s, j >= 0 ? objs[j] : NULL);
}

int main(int argc, char **argv) {
  long ops = 1000000;
  int do_switch = 0;
  for (int a = 1; a < argc; a++) {
    if (!strncmp(argv[a], "--seed=", 7)) seed = strtoull(argv[a] + 7, NULL, 0);
    else if (!strncmp(argv[a], "--ops=", 6)) ops = atol(argv[a] + 6);
    else if (!strcmp(argv[a], "--switch")) do_switch = 1;
    else if (!strcmp(argv[a], "--malloc")) use_malloc = 1;
    else { fprintf(stderr, "random_test: unknown argument '%s'\n", argv[a]); return 2; }
  }
  if (!seed) seed = 1;
  const char *dbg = getenv("COMPACTPTR_DEBUG");
  checked = dbg && !strcmp(dbg, "1");
  long switch_at = do_switch ? (long)(rng_next(&seed) % (uint64_t)ops) : -1;
  printf("random_test: seed=%llu ops=%ld switch_at=%ld%s%s\n",
         (unsigned long long)seed, ops, switch_at, use_malloc ? " malloc" : "",
         checked ? " checked-decode" : "");
  objs = use_malloc ? calloc(MAXOBJ, sizeof(void *)) : cp_root_array_alloc(MAXOBJ);
  for (int i = 0; i < MAXOBJ; i++)
    model[i].type = -1;
  for (long step = 0; step < ops; step++) {
    if (step == switch_at) {
      check_all();
      cp_switch_to_wide();
      check_all();
    }
    uint32_t r = rng_below(&seed, 100);
    if (r < 30) op_alloc();
    else if (r < 45) op_free();
    else if (r < 70) op_link(false);
    else if (r < 80) op_link(true);
    else if (r < 90) {
      int i = random_live(-1);
      if (i >= 0) {
        model[i].key = (long)(rng_next(&seed) >> 40);
        key_set(i, model[i].key);
      }
    } else {
      int i = random_live(-1);
      if (i >= 0) check_obj(i);
    }
    if (step % 100000 == 99999)
      check_all();
  }
  check_all();
  if (!use_malloc) {
    for (uint32_t k = 0; k < cp__ntypes; k++)
      for (cp_slab_t *s = cp__types[k]->all; s; s = s->next_all)
        if (!cp__slab_is_valid(s))
          fail_msg("seed %llu: a slab of %s is inconsistent",
                   (unsigned long long)seed, cp__types[k]->desc->name);
    assert_true(cp__buddy_is_valid(cp__current_arena()));
  }
  long live = 0;
  for (int i = 0; i < MAXOBJ; i++)
    live += model[i].type >= 0;
  printf("random_test: ok, %ld live objects, mode %s\n", live,
         use_malloc ? "malloc" : cp_is_compact() ? "compact" : "wide");
  return 0;
}
