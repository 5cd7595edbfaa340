/* threads_test.c - two threads allocate and free concurrently; then every
 * object's cookie, every slab and the buddy allocator are checked. */
#define CP_TEST_DEFINE_TYPES
#include "internal.h"
#include "testtypes.h"
#include "testutil.h"

#include <pthread.h>

enum { KEEP = 5000, OPS = 400000 };

typedef struct worker {
  uint64_t seed;
  void *objs[KEEP];
  int types[KEEP];
  long frees;
} worker_t;

static cp_type_desc_t *descs_for(int t) { return t ? &graph_desc : &node_desc; }
static uint32_t cookie(void *p) { return (uint32_t)((uintptr_t)p * 2654435761u); }

static void *run(void *arg) {
  worker_t *w = arg;
  cp_thread_register();
  for (long i = 0; i < OPS; i++) {
    int k = (int)rng_below(&w->seed, KEEP);
    if (w->objs[k]) {
      uint32_t *c = field_addr(w->objs[k], descs_for(w->types[k]), 0);
      assert_int_equal(*c, cookie(w->objs[k]));
      cp_free(w->objs[k]);
      w->objs[k] = NULL;
      w->frees++;
    } else {
      int t = (int)rng_below(&w->seed, 2);
      void *p = t ? cp_alloc(&graph_desc) : cp_alloc(&node_desc);
      *(uint32_t *)field_addr(p, t ? &graph_desc : &node_desc, 0) = cookie(p);
      w->objs[k] = p;
      w->types[k] = t;
    }
  }
  cp_thread_unregister();
  return NULL;
}

static void test_two_threads(void **state) {
  (void)state;
  static worker_t w[2] = {{.seed = 11}, {.seed = 22}};
  print_message("seeds 11 and 22\n");
  pthread_t th[2];
  for (int i = 0; i < 2; i++)
    assert_int_equal(pthread_create(&th[i], NULL, run, &w[i]), 0);
  for (int i = 0; i < 2; i++)
    assert_int_equal(pthread_join(th[i], NULL), 0);
  uint64_t live = 0;
  for (int i = 0; i < 2; i++)
    for (int k = 0; k < KEEP; k++)
      if (w[i].objs[k]) {
        live++;
        assert_int_equal(*(uint32_t *)field_addr(w[i].objs[k], descs_for(w[i].types[k]), 0),
                         cookie(w[i].objs[k]));
      }
  uint64_t used = 0;
  for (uint32_t k = 0; k < cp__ntypes; k++) {
    used += cp__types[k]->live;
    for (cp_slab_t *s = cp__types[k]->all; s; s = s->next_all)
      assert_true(cp__slab_is_valid(s));
  }
  assert_int_equal(used, live);
  assert_true(cp__buddy_is_valid(&cp__compact_arena));
  assert_int_equal(cp__threads, 1);
}

int main(void) {
  const struct CMUnitTest tests[] = {cmocka_unit_test(test_two_threads)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
