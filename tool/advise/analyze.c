/*
 * analyze.c - candidates, layouts, blockers per candidate, ranking.
 *
 * In:  the facts scan.c collected.
 * Out: per struct: heap / self_ref / pointed_from_heap / candidate, the
 *      compact layout size, the blockers that apply to it, a score, and
 *      the ranked order in ad_model_t.order.
 *
 * Rules (kept in step with the plugin, passes/Analysis.cpp and
 * passes/Layout.cpp):
 *  - A struct is a *candidate* if it is allocated with malloc, calloc or
 *    realloc (the result converted to a pointer to it, or the size given
 *    as sizeof of it; a size in another form is an alloc-size blocker), and
 *    it is self-referential, a heap struct has a field pointing to it, or
 *    it holds an intrusive link (below) that threads its objects.
 *  - Sizes assume every candidate (and every struct already marked
 *    CP_COMPACT) is marked: those types and, to a fixed point, every struct
 *    that points to or holds one of them are compact.  A field pointing to
 *    a compact type becomes a 4-byte handle (arrays: 4 bytes per element),
 *    a nested compact struct takes its compact layout, other fields keep
 *    their size; fields are placed first fit in declaration order (each at
 *    the lowest aligned offset where it fits, in a hole or at the end), and
 *    the struct is aligned to at least 4 bytes (and to the granule).
 *  - Marking T also makes compact every struct that points to or holds T
 *    (transitively); a blocker of any of them blocks T.
 *  - A self-referential struct held by value in a candidate (an intrusive
 *    link: `struct list_head` in a node, reached back with container_of)
 *    is a candidate too, though never allocated by itself: its pointers
 *    point into the candidate's objects, and left native they would be
 *    addresses inside compact objects kept in memory, which the switch
 *    cannot find (the plugin's interior-escape warning) -- marked, they
 *    are handles, and smaller.
 */
#include "advise.h"

#include <stdlib.h>
#include <string.h>

static const struct {
  const char *name, *plugin;
} kinds[AD_B__COUNT] = {
#define CP_DIAG(Id, Name, Level, Advise) [AD_B_##Id] = {Name, #Level},
#define CP_HAZARD(Id, Name) [AD_B_##Id] = {Name, "none"},
#include "Diagnostics.def"
};

const char *ad_blocker_kind_name(ad_blocker_kind_t k) { return kinds[k].name; }
const char *ad_blocker_plugin(ad_blocker_kind_t k) { return kinds[k].plugin; }

const char *ad_verdict(const ad_record_t *r) {
  if (r->annotated)
    return "annotated";
  if (!r->candidate)
    return "not a candidate";
  if (r->nblockers)
    return "blocked";
  return r->no_gain ? "no gain" : "clean";
}

static int is_struct(const ad_record_t *r) { return r->defined && !r->is_union; }

static void compact_layout(ad_model_t *m, int i) {
  ad_record_t *r = &m->records[i];
  if (r->compact_size || r->in_layout)
    return;
  r->in_layout = 1;
  size_t n = r->nfields;
  long long *sz = calloc(n + 1, sizeof *sz), *al = calloc(n + 1, sizeof *al);
  int unsupported = r->packed;
  for (size_t k = 0; k < n; k++) {
    ad_field_t *f = &r->fields[k];
    ad_record_t *t = f->target >= 0 ? &m->records[f->target] : NULL;
    /* (A flexible array member has no size: it goes last, as in the
     * plugin's layout.) */
    if (f->bitfield && f->aligned)
      unsupported = 1;
    if (f->bitfield) {
      /* A run of bit-fields, as passes/Layout.cpp places it: one field
       * aligned for its widest type, spanning its bits plus the bytes
       * between such a boundary and its first byte; -1 for the rest of the
       * run and for a run of padding alone. */
      size_t j = k;
      long long begin = -1, end = 0, a = 1;
      int named = 0;
      for (; j < n && r->fields[j].bitfield; j++) {
        const ad_field_t *b = &r->fields[j];
        if (b->align > a)
          a = b->align;
        if (b->bit_width <= 0)
          continue;
        if (begin < 0 || b->bit_offset < begin)
          begin = b->bit_offset;
        if (b->bit_offset + b->bit_width > end)
          end = b->bit_offset + b->bit_width;
        named |= *b->name != 0;
      }
      for (size_t x = k; x < j; x++)
        sz[x] = -1;
      if (named && begin >= 0) {
        long long first = begin / 8, lead = first % a,
                  bytes = (end + 7) / 8 - first;
        sz[k] = (lead + bytes + a - 1) / a * a;
        al[k] = a;
      }
      k = j - 1;
      continue;
    }
    if (f->kind == AD_FIELD_POINTER && t && t->compact) {
      sz[k] = f->flexible ? 0 : 4 * f->count;
      al[k] = 4;
    } else if (f->kind == AD_FIELD_STRUCT && t && t->compact) {
      compact_layout(m, f->target);
      sz[k] = f->flexible ? 0 : t->compact_size * f->count;
      al[k] = t->compact_align;
    } else {
      sz[k] = f->size;
      al[k] = f->align > 0 ? f->align : 1;
    }
  }
  if (unsupported || !r->compact) {
    r->compact_size = r->wide_size;
    r->compact_align = r->wide_align;
  } else {
    /* first fit in declaration order (passes/Layout.cpp): each field at
     * the lowest offset aligned for it where it fits, in a hole an earlier
     * field left or at the end */
    long long *b = calloc(n + 1, sizeof *b), *e = calloc(n + 1, sizeof *e);
    size_t used = 0; /* placed intervals [b, e), sorted */
    long long end = 0, align = 1;
    for (size_t k = 0; k < n; k++) {
      if (sz[k] < 0)
        continue; /* inside a run of bit-fields */
      long long A = al[k], at = 0, prev = 0;
      size_t i = 0;
      /* (The struct hack's one element goes last too: its room follows.) */
      if (sz[k] == 0 || (k + 1 == n && r->fields[k].small_array)) {
        at = (end + A - 1) / A * A;
        i = used;
      } else {
        for (;; i++) {
          at = (prev + A - 1) / A * A;
          if (i == used || at + sz[k] <= b[i])
            break;
          prev = e[i];
        }
      }
      memmove(b + i + 1, b + i, (used - i) * sizeof *b);
      memmove(e + i + 1, e + i, (used - i) * sizeof *e);
      b[i] = at;
      e[i] = at + sz[k];
      used++;
      if (at + sz[k] > end)
        end = at + sz[k];
      if (A > align)
        align = A;
    }
    if (align < 4)
      align = 4;
    r->compact_align = align;
    r->compact_size = (end + align - 1) / align * align;
    free(b);
    free(e);
  }
  free(sz);
  free(al);
  r->in_layout = 0;
}

/** Mark in `in` the types that marking `seed` makes compact. */
static void closure(const ad_model_t *m, int seed, char *in) {
  memset(in, 0, m->nrecords);
  in[seed] = 1;
  /* The intrusive links a struct holds are marked with it: a blocker of
   * one (an rb_node packing its parent into an integer) blocks it too, or
   * --annotate would mark the container alone and its objects would be
   * linked by addresses inside them that the switch does not translate. */
  for (size_t i = 0; i < m->nrecords; i++)
    if (m->records[i].link_of == seed || m->records[seed].linked_by == (int)i)
      in[i] = 1;
  for (int changed = 1; changed;) {
    changed = 0;
    for (size_t i = 0; i < m->nrecords; i++) {
      const ad_record_t *r = &m->records[i];
      if (in[i] || !is_struct(r))
        continue;
      for (size_t k = 0; k < r->nfields; k++) {
        int t = r->fields[k].target;
        if (t >= 0 && in[t]) {
          in[i] = 1;
          changed = 1;
          break;
        }
      }
    }
  }
}

static const ad_model_t *sort_model;

static int group(const ad_record_t *r) {
  if (r->candidate && !r->annotated)
    return r->nblockers ? 1 : r->no_gain ? 2 : 0;
  return r->annotated ? 3 : 4;
}

static int rank_cmp(const void *a, const void *b) {
  const ad_record_t *x = &sort_model->records[*(const int *)a];
  const ad_record_t *y = &sort_model->records[*(const int *)b];
  int gx = group(x), gy = group(y);
  if (gx != gy)
    return gx - gy;
  if (x->score != y->score)
    return x->score > y->score ? -1 : 1;
  if (x->saved != y->saved)
    return x->saved > y->saved ? -1 : 1;
  return strcmp(x->name, y->name);
}

/** A struct only declared in one translation unit (`struct tree;` in a
 *  header) and defined in another is keyed by its USR alone there; point
 *  its uses at the definition when there is exactly one. */
static void link_declarations(ad_model_t *m) {
  size_t n = m->nrecords;
  int *to = ad_xrealloc(NULL, (n + 1) * sizeof *to);
  for (size_t i = 0; i < n; i++) {
    const ad_record_t *r = &m->records[i];
    size_t len = strlen(r->usr);
    to[i] = (int)i;
    if (r->defined)
      continue;
    int found = -1, count = 0;
    for (size_t k = 0; k < n; k++)
      if (m->records[k].defined && strncmp(m->records[k].usr, r->usr, len) == 0 &&
          m->records[k].usr[len] == '@') {
        found = (int)k;
        count++;
      }
    if (count == 1)
      to[i] = found;
  }
  for (size_t i = 0; i < n; i++) {
    ad_record_t *r = &m->records[i];
    for (size_t k = 0; k < r->nfields; k++)
      if (r->fields[k].target >= 0)
        r->fields[k].target = to[r->fields[k].target];
    if (!r->defined && to[i] != (int)i) {
      /* allocation sites seen through the declaration only */
      ad_record_t *d = &m->records[to[i]];
      for (size_t k = 0; k < r->nallocs; k++)
        AD_PUSH(d->allocs, d->nallocs, d->capallocs, r->allocs[k]);
      r->nallocs = 0;
    }
  }
  for (size_t b = 0; b < m->nblockers; b++) {
    m->blockers[b].record = to[m->blockers[b].record];
    if (m->blockers[b].unless >= 0)
      m->blockers[b].unless = to[m->blockers[b].unless];
  }
  free(to);
}

/* Struct `in` (r itself, or a struct r holds by value, depth levels down)
 * has a pointer to r: kavl's links in an unnamed member struct,
 * `struct avl { int key; struct { struct avl *p[2]; } head; }`. */
static int links_back(const ad_model_t *m, size_t in, size_t r, int depth) {
  const ad_record_t *x = &m->records[in];
  for (size_t k = 0; k < x->nfields; k++) {
    const ad_field_t *f = &x->fields[k];
    if (f->target < 0)
      continue;
    if (f->kind == AD_FIELD_POINTER && f->target == (int)r)
      return 1;
    if (f->kind == AD_FIELD_STRUCT && depth < 4 && f->target != (int)in &&
        links_back(m, (size_t)f->target, r, depth + 1))
      return 1;
  }
  return 0;
}

/* A self-referential struct that struct `in` holds by value, depth levels
 * down: the intrusive link that threads `in`'s objects (the kernel's
 * `struct rb_node rb;`, reached back with container_of), or -1. */
static int held_link(const ad_model_t *m, size_t in, int depth) {
  const ad_record_t *x = &m->records[in];
  for (size_t k = 0; k < x->nfields; k++) {
    const ad_field_t *f = &x->fields[k];
    if (f->kind != AD_FIELD_STRUCT || f->target < 0 || f->target == (int)in)
      continue;
    if (m->records[f->target].self_ref)
      return f->target;
    int l = depth < 4 ? held_link(m, (size_t)f->target, depth + 1) : -1;
    if (l >= 0)
      return l;
  }
  return -1;
}

void ad_analyze(ad_model_t *m) {
  size_t n = m->nrecords;
  link_declarations(m);
  for (size_t i = 0; i < n; i++)
    m->records[i].heap = is_struct(&m->records[i]) && m->records[i].nallocs > 0;
  for (size_t i = 0; i < n; i++) {
    ad_record_t *r = &m->records[i];
    if (!is_struct(r))
      continue;
    for (size_t k = 0; k < r->nfields; k++) {
      ad_field_t *f = &r->fields[k];
      if (f->kind != AD_FIELD_POINTER || f->target < 0)
        continue;
      if (f->target == (int)i)
        r->self_ref = 1;
      else if (r->heap)
        m->records[f->target].pointed_from_heap = 1;
    }
    if (!r->self_ref && links_back(m, i, i, 0))
      r->self_ref = 1;
  }
  /* A heap struct threaded only through a link it holds (an interval
   * tree's node around an rb_node) is linked as much as one with its own
   * pointers: the link's pointers are addresses inside its objects. */
  for (size_t i = 0; i < n; i++) {
    ad_record_t *r = &m->records[i];
    r->linked_by =
        is_struct(r) && r->heap && !r->self_ref ? held_link(m, i, 0) : -1;
  }
  for (size_t i = 0; i < n; i++) {
    ad_record_t *r = &m->records[i];
    r->candidate = is_struct(r) && r->heap &&
                   (r->self_ref || r->pointed_from_heap || r->linked_by >= 0);
    r->compact = r->candidate || (is_struct(r) && r->annotated);
    r->link_of = -1;
  }
  /* Intrusive links of candidates (and of links: a link may hold one). */
  for (int changed = 1; changed;) {
    changed = 0;
    for (size_t i = 0; i < n; i++) {
      const ad_record_t *c = &m->records[i];
      if (!is_struct(c) || !(c->candidate || c->annotated))
        continue;
      for (size_t k = 0; k < c->nfields; k++) {
        const ad_field_t *f = &c->fields[k];
        ad_record_t *l = f->kind == AD_FIELD_STRUCT && f->target >= 0
                             ? &m->records[f->target]
                             : NULL;
        if (!l || !is_struct(l) || !l->self_ref || l->candidate || l->annotated)
          continue;
        l->candidate = l->compact = 1;
        l->link_of = (int)i;
        changed = 1;
      }
    }
  }
  /* Everything that points to or holds a compact type is compact. */
  for (int changed = 1; changed;) {
    changed = 0;
    for (size_t i = 0; i < n; i++) {
      ad_record_t *r = &m->records[i];
      if (r->compact || !is_struct(r))
        continue;
      for (size_t k = 0; k < r->nfields; k++) {
        int t = r->fields[k].target;
        if (t >= 0 && m->records[t].compact) {
          r->compact = changed = 1;
          break;
        }
      }
    }
  }
  for (size_t i = 0; i < n; i++)
    if (is_struct(&m->records[i]))
      compact_layout(m, (int)i);
  char *in = calloc(n + 1, 1);
  for (size_t i = 0; i < n; i++) {
    ad_record_t *r = &m->records[i];
    if (!is_struct(r))
      continue;
    r->saved = r->compact ? r->wide_size - r->compact_size : 0;
    /* A link is allocated with its container. */
    r->score = r->saved * (long long)(r->link_of >= 0
                                          ? m->records[r->link_of].nallocs
                                          : r->nallocs);
    closure(m, (int)i, in);
    for (size_t b = 0; b < m->nblockers; b++)
      if (in[m->blockers[b].record] &&
          !(m->blockers[b].unless >= 0 &&
            (in[m->blockers[b].unless] || m->records[m->blockers[b].unless].compact))) {
        int bi = (int)b;
        AD_PUSH(r->blockers, r->nblockers, r->capblockers, bi);
      }
  }
  free(in);
  /* A candidate that saves nothing (a region's chunk: one link beside a
   * size_t and a flexible array) gains only through the structs that point
   * to it or hold it; with none, marking it costs the program the
   * plugin's rules for nothing -- and a chunk used as raw storage for
   * other objects would be moved by the switch under their plain pointers. */
  for (size_t i = 0; i < n; i++) {
    ad_record_t *r = &m->records[i];
    r->no_gain = is_struct(r) && r->candidate && !r->annotated &&
                 r->saved <= 0 && r->link_of < 0;
  }
  /* Wanted by a struct that is marked (a candidate or annotated, not of no
   * gain itself), to a fixed point: the verdicts do not depend on the
   * order of the definitions. */
  for (int changed = 1; changed;) {
    changed = 0;
    for (size_t i = 0; i < n; i++) {
      ad_record_t *r = &m->records[i];
      for (size_t j = 0; j < n && r->no_gain; j++) {
        const ad_record_t *c = &m->records[j];
        /* (Not one compact only by holding r: a region on the stack.) */
        if (j == i || !is_struct(c) || !(c->candidate || c->annotated) ||
            c->no_gain)
          continue;
        for (size_t k = 0; k < c->nfields && r->no_gain; k++)
          if (c->fields[k].target == (int)i) {
            r->no_gain = 0;
            changed = 1;
          }
      }
    }
  }
  m->order = ad_xrealloc(NULL, (n + 1) * sizeof *m->order);
  m->norder = 0;
  for (size_t i = 0; i < n; i++)
    if (is_struct(&m->records[i]))
      m->order[m->norder++] = (int)i;
  sort_model = m;
  qsort(m->order, m->norder, sizeof *m->order, rank_cmp);
}
