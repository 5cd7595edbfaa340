/*
 * roots.c - native memory that holds compact pointers.
 *
 * A root is a slot outside the compact heap that holds a native address of
 * a compact object.  Four kinds exist, all visited by cp__roots_each:
 *   - static root tables: globals and statics, described by the plugin in
 *     the section `compactptr_roots` of each registered module;
 *   - registered slots (cp_root_register), for hand-written code;
 *   - root arrays: heap arrays of compact pointers, which the plugin routes
 *     here from malloc(n * sizeof(struct T *)); each carries a header that
 *     links it into a list and ends in a key made from its address, so
 *     cp_free_any and cp_realloc_any (what free and realloc link to in
 *     code built against compactptr.h) tell a root array from libc memory
 *     whatever the type of the pointer it was freed through;
 *   - shadow-stack frames of checked functions: every known thread's
 *     chain (thread.c), read while the thread is stopped, and the start
 *     argument of a thread created by cp_thread_create that has not yet
 *     run (it may be a compact pointer).
 * The switch rewrites each slot in place; the verifier reads them.  A slot
 * registered inside a thread's stack or thread-local storage is dropped
 * when that thread exits.
 */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The last word of a root array's header: this key xor the address of its
 * first slot.  Where a pointer came from libc's malloc, the word before it
 * is the chunk's size field, which never has the top bit set; the address
 * in the key keeps a header copied elsewhere (by memcpy, by a realloc of
 * the wrong kind) from passing. */
#define ROOT_ARRAY_KEY 0xC0A5C0A5435052A1ull /* "CPRA" in the low half */

typedef struct cp_root_array {
  struct cp_root_array *next, *prev;
  size_t n;
  uint64_t key; /* ROOT_ARRAY_KEY ^ (uintptr_t)(this + 1) while live */
} cp_root_array_t;
_Static_assert(sizeof(cp_root_array_t) % 16 == 0, "keep slots 16-aligned");

static cp_root_array_t *arrays;
uint64_t cp__root_arrays, cp__root_array_bytes;

static uint64_t key_of(const void *slots) {
  return ROOT_ARRAY_KEY ^ (uint64_t)(uintptr_t)slots;
}

static cp_root_desc_t *registered;
static size_t nregistered, registered_cap;

static void **root_array_new(size_t n, bool try_only) {
  if (n > (SIZE_MAX - sizeof(cp_root_array_t)) / sizeof(void *)) {
    if (try_only)
      return NULL;
    cp__fatal("root array of %zu pointers: size overflows", n);
  }
  cp_root_array_t *h = calloc(1, sizeof *h + n * sizeof(void *));
  if (!h) {
    if (try_only)
      return NULL;
    cp__fatal("out of memory for a root array of %zu pointers", n);
  }
  h->n = n;
  h->key = key_of(h + 1);
  cp__lock();
  h->next = arrays;
  if (arrays)
    arrays->prev = h;
  arrays = h;
  cp__root_arrays++;
  cp__root_array_bytes += n * sizeof(void *);
  cp__unlock();
  return (void **)(h + 1);
}

void **cp_root_array_alloc(size_t n) { return root_array_new(n, false); }
void **cp_try_root_array_alloc(size_t n) { return root_array_new(n, true); }

static cp_root_array_t *header_of(void **p) {
  cp_root_array_t *h = (cp_root_array_t *)p - 1;
  if (h->key != key_of(p))
    cp__fatal("%p is not a root array from cp_root_array_alloc", (void *)p);
  return h;
}

static void unlink_array(cp_root_array_t *h) {
  if (h->prev)
    h->prev->next = h->next;
  else
    arrays = h->next;
  if (h->next)
    h->next->prev = h->prev;
  cp__root_arrays--;
  cp__root_array_bytes -= h->n * sizeof(void *);
}

void cp_root_array_free(void **p) {
  if (!p)
    return;
  cp__lock();
  cp_root_array_t *h = header_of(p);
  unlink_array(h);
  h->key = 0;
  cp__unlock();
  free(h);
}

void **cp_root_array_realloc(void **p, size_t n) {
  if (!p)
    return cp_root_array_alloc(n);
  if (n == 0) {
    cp_root_array_free(p);
    return NULL;
  }
  void **q = cp_root_array_alloc(n);
  cp__lock();
  cp_root_array_t *h = header_of(p);
  memcpy(q, p, (h->n < n ? h->n : n) * sizeof(void *));
  cp__unlock();
  cp_root_array_free(p);
  return q;
}

/* Is p the first slot of a live root array?  Read only while some root
 * array exists: then the word before p is either a root array's key or
 * the size field of a libc chunk (both readable). */
static bool is_root_array(void *p) {
  if (__atomic_load_n(&cp__root_arrays, __ATOMIC_RELAXED) == 0)
    return false;
  return ((const uint64_t *)p)[-1] == key_of(p);
}

void cp_free_any(void *p) {
  if (!p)
    return;
  if (CP_UNLIKELY(cp__arena_contains(cp__current_arena(), p)))
    return cp_free(p);
  if (CP_UNLIKELY(is_root_array(p)))
    return cp_root_array_free(p);
  free(p);
}

void *cp_realloc_any(void *p, size_t bytes) {
  if (p && CP_UNLIKELY(cp__arena_contains(cp__current_arena(), p))) {
    cp_slab_t *s = cp__slab_of(cp__current_arena(), p);
    cp__fatal("realloc of %p, a '%s' object, through a pointer the plugin "
              "cannot see is one (void *, char *, ...): its size is not in "
              "elements of a known type; call realloc on a 'struct %s *'",
              p, s ? s->type->desc->name : "compact",
              s ? s->type->desc->name : "T");
  }
  if (p && CP_UNLIKELY(is_root_array(p))) {
    if (bytes == 0) {
      cp_root_array_free(p);
      return NULL;
    }
    /* Slots are pointers; a size that is not a multiple of one rounds up,
     * and the slots past the old end read as NULL. */
    return cp_root_array_realloc(p, bytes / sizeof(void *) +
                                        (bytes % sizeof(void *) != 0));
  }
  return realloc(p, bytes);
}

static int add_registered(void *addr, uint32_t kind, size_t count,
                          cp_type_desc_t *type) {
  /* A root is native memory: a slot inside the compact heap would be
   * released (or moved) by the switch while still registered. */
  if (count > UINT32_MAX || !addr || cp__find_slab(addr)) {
    errno = EINVAL;
    return -1;
  }
  cp__lock();
  if (nregistered == registered_cap) {
    size_t cap = registered_cap ? registered_cap * 2 : 16;
    cp_root_desc_t *r = realloc(registered, cap * sizeof *r);
    if (!r) {
      cp__unlock();
      errno = ENOMEM;
      return -1;
    }
    registered = r;
    registered_cap = cap;
  }
  registered[nregistered++] =
      (cp_root_desc_t){addr, kind, (uint32_t)count, type, NULL};
  cp__unlock();
  return 0;
}

int cp_root_register(void **slot, size_t count) {
  return add_registered(slot, CP_ROOT_POINTER, count, NULL);
}

int cp_root_register_value(void *value, cp_type_desc_t *type, size_t count) {
  if (!type) {
    errno = EINVAL;
    return -1;
  }
  cp__type_resolve(type);
  return add_registered(value, CP_ROOT_VALUE, count, type);
}

int cp_root_unregister(void *slot) {
  cp__lock();
  for (size_t i = nregistered; i-- > 0;) {
    if (registered[i].addr == slot) {
      registered[i] = registered[--nregistered];
      cp__unlock();
      return 0;
    }
  }
  cp__unlock();
  return -1;
}

static void visit_value(char *v, cp_type_t *t, cp_root_visit_fn fn,
                        void *ctx) {
  for (uint32_t i = 0; i < t->nops; i++) {
    const cp_copy_op_t *op = &t->ops[i];
    if (op->kind != CP_FIELD_HANDLE)
      continue;
    for (uint32_t j = 0; j < op->len; j++)
      fn((void **)(v + op->to + j * sizeof(void *)), op->target, ctx);
  }
}

static void visit_desc(const cp_root_desc_t *r, cp_root_visit_fn fn,
                       void *ctx) {
  if (!r->addr)
    return;
  if (r->kind == CP_ROOT_VALUE) {
    cp_type_t *t = cp__type_resolve(r->type);
    for (uint32_t i = 0; i < r->count; i++)
      visit_value((char *)r->addr + (size_t)i * t->desc->wide_size, t, fn, ctx);
    return;
  }
  cp_type_t *target = r->type ? cp__type_resolve(r->type) : NULL;
  for (uint32_t i = 0; i < r->count; i++)
    fn((void **)r->addr + i, target, ctx);
}

void cp__roots_each(cp_root_visit_fn fn, void *ctx) {
  for (cp_module_t *m = cp__modules; m; m = m->next)
    if (m->roots_begin)
      for (const cp_root_desc_t *const *r = m->roots_begin; r < m->roots_end;
           r++)
        if (*r)
          visit_desc(*r, fn, ctx);
  for (size_t i = 0; i < nregistered; i++)
    visit_desc(&registered[i], fn, ctx);
  for (cp_root_array_t *h = arrays; h; h = h->next) {
    void **slots = (void **)(h + 1);
    for (size_t i = 0; i < h->n; i++)
      fn(&slots[i], NULL, ctx);
  }
  for (cp_thread_t *t = cp__threads_list; t; t = t->next) {
    if (__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) == CP_TS_STARTING) {
      fn(&t->start_arg, NULL, ctx);
      continue;
    }
    if (!t->frames)
      continue;
    for (cp_frame_t *f = *t->frames; f; f = f->prev)
      for (uint32_t i = 0; i < f->count; i++)
        visit_desc(&f->roots[i], fn, ctx);
  }
}

void cp__roots_forget_range(const char *lo, const char *hi) {
  for (size_t i = nregistered; i-- > 0;) {
    const char *a = registered[i].addr;
    if (a >= lo && a < hi)
      registered[i] = registered[--nregistered];
  }
}
