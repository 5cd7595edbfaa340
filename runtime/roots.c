/*
 * roots.c - native memory that holds compact pointers.
 *
 * A root is a slot outside the compact heap that holds a native address of
 * a compact object.  Five kinds exist, all visited by cp__roots_each:
 *   - static root tables: globals and statics, described by the plugin in
 *     the section `compactptr_roots` of each registered module;
 *   - registered slots (cp_root_register), for hand-written code;
 *   - root arrays: heap arrays of compact pointers (rootarray.c);
 *   - shadow-stack frames of checked functions: every known thread's
 *     chain (thread.c), read while the thread is stopped, and the start
 *     argument of a thread created by cp_thread_create that has not yet
 *     run (it may be a compact pointer);
 *   - a thread's result that is a compact address, from the thread's end
 *     until pthread_join takes it, and a compact pointer a thread set as
 *     a pthread key's value (thread.c).
 * The switch rewrites each slot in place; the verifier reads them.  A slot
 * registered inside a thread's stack or thread-local storage is dropped
 * when that thread exits.  Thread-local variables the plugin describes
 * (cp_tls_roots_register) are registered slots too: each thread registers
 * its own copies when it becomes known (only it can take their address).
 */
#include "internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static cp_root_desc_t *registered;
static size_t nregistered, registered_cap;

/* Appends a registered slot; heap lock held.  -1 with errno ENOMEM. */
static int add_locked(void *addr, uint32_t kind, uint32_t count,
                      cp_type_desc_t *type, const char *name) {
  if (nregistered == registered_cap) {
    size_t cap = registered_cap ? registered_cap * 2 : 16;
    cp_root_desc_t *r = realloc(registered, cap * sizeof *r);
    if (!r) {
      errno = ENOMEM;
      return -1;
    }
    registered = r;
    registered_cap = cap;
  }
  registered[nregistered++] = (cp_root_desc_t){addr, kind, count, type, name};
  return 0;
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
  int rc = add_locked(addr, kind, (uint32_t)count, type, NULL);
  cp__unlock();
  return rc;
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

void cp__root_visit_value(char *v, cp_type_t *t, const char *name,
                          cp_root_visit_fn fn, void *ctx) {
  for (uint32_t i = 0; i < t->nops; i++) {
    const cp_copy_op_t *op = &t->ops[i];
    /* A slot-pointer field is a root of no type: a pointer that may point
     * into a compact object (at a handle field). */
    if (op->kind != CP_FIELD_HANDLE && op->kind != CP_FIELD_SLOT)
      continue;
    for (uint32_t j = 0; j < op->len; j++)
      fn((void **)(v + op->to + j * sizeof(void *)), op->target, name, ctx);
  }
}

static void visit_desc(const cp_root_desc_t *r, cp_root_visit_fn fn,
                       void *ctx) {
  if (!r->addr)
    return;
  if (r->kind == CP_ROOT_VALUE) {
    cp_type_t *t = cp__type_resolve(r->type);
    for (uint32_t i = 0; i < r->count; i++)
      cp__root_visit_value((char *)r->addr + (size_t)i * t->desc->wide_size, t,
                           r->name, fn, ctx);
    return;
  }
  cp_type_t *target = r->type ? cp__type_resolve(r->type) : NULL;
  for (uint32_t i = 0; i < r->count; i++)
    fn((void **)r->addr + i, target, r->name, ctx);
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
  cp__root_arrays_each(fn, ctx);
  cp__thread_results_each(fn, ctx);
  for (cp_thread_t *t = cp__threads_list; t; t = t->next) {
    /* Not yet read by the thread: also while it is parked in its
     * trampoline, where its state is PARKED, not STARTING (a thread that
     * started just as the switch came read its argument untranslated).
     * The switch holds the registry lock, under which trampoline reads
     * and clears it. */
    if (t->start_arg)
      fn(&t->start_arg, NULL, NULL, ctx);
    cp__thread_specifics_each(t, fn, ctx);
    if (__atomic_load_n(&t->state, __ATOMIC_ACQUIRE) == CP_TS_STARTING)
      continue;
    if (!t->frames)
      continue;
    for (cp_frame_t *f = *t->frames; f; f = f->prev) {
      uint32_t n = f->count & ~CP_FRAME_RELATIVE;
      for (uint32_t i = 0; i < n; i++) {
        cp_root_desc_t d = f->roots[i];
        if (f->count & CP_FRAME_RELATIVE)
          d.addr = (char *)f + (uintptr_t)d.addr;
        visit_desc(&d, fn, ctx);
      }
    }
  }
}

/* ---- thread-local roots --------------------------------------------------- */

/* Every table cp_tls_roots_register was given (heap lock). */
static struct tls_table {
  const cp_tls_root_t *r;
  size_t n;
} *tls_tables;
static size_t ntls_tables;

/* Registers the calling thread's copies of the n roots at r (thread-local
 * storage: never in the compact heap).  A copy already registered (a
 * thread made known again by a late destructor) is not registered twice.
 * Heap lock held. */
static void tls_register(const cp_tls_root_t *r, size_t n) {
  for (size_t i = 0; i < n; i++) {
    void *a = r[i].addr();
    bool known = false;
    for (size_t j = 0; j < nregistered && !known; j++)
      known = registered[j].addr == a;
    if (!known && add_locked(a, r[i].kind, r[i].count, r[i].type, r[i].name) != 0)
      cp__fatal("out of memory registering thread-local root '%s'", r[i].name);
  }
}

void cp_tls_roots_register(const cp_tls_root_t *r, size_t n) {
  cp__init();
  for (size_t i = 0; i < n; i++)
    if (r[i].type)
      cp__type_resolve(r[i].type);
  cp__lock();
  struct tls_table *t = realloc(tls_tables, (ntls_tables + 1) * sizeof *t);
  if (!t)
    cp__fatal("out of memory registering thread-local roots");
  tls_tables = t;
  tls_tables[ntls_tables++] = (struct tls_table){r, n};
  if (cp__self)
    tls_register(r, n);
  cp__unlock();
}

void cp__tls_roots_attach(void) {
  cp__lock();
  for (size_t k = 0; k < ntls_tables; k++)
    tls_register(tls_tables[k].r, tls_tables[k].n);
  cp__unlock();
}

void cp__roots_forget_range(const char *lo, const char *hi) {
  for (size_t i = nregistered; i-- > 0;) {
    const char *a = registered[i].addr;
    if (a >= lo && a < hi)
      registered[i] = registered[--nregistered];
  }
}
