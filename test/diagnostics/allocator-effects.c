// A CP_ALLOCATOR or CP_DEALLOCATOR function's calls that allocate or free
// compact objects go to the runtime, which runs none of its code: an
// update its body makes to state the rest of the program reads misses
// every compact object.  A malloc wrapper counting live bytes printed 0
// where its native build printed 16000, with nothing said; warned now
// (allocator-effects, every mode) at each such update -- in the body, or
// in a function of the file it calls -- naming a function that reads it.
// Also an element of a global array, a field through a local that names
// the program's state (`s = &stats`, Lua's `g = G(L)`), an update three
// calls deep, a global other files can read, and a reader that also
// frees, and counts updated through a pointer: one the callers hand in
// (`xmalloc_n(n, &total)`, also passed on to a helper), a global pointer,
// a field of a caller's record (`grow(n, &v)`).  Not warned: state only the allocator's own functions read (a
// pool's free list and count), the memory handed out itself, locals,
// state no one reads, plain stores (a flag set when malloc fails, a
// lock's owner), a count handed in that its caller never reads, and
// functions whose calls never allocate compact objects.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=wide -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-Wno-compactptr-allocator-effects -fsyntax-only -Xclang -verify=quiet %s
// quiet-no-diagnostics
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node { int k; struct node *next; };

// A live-bytes count (Lua's GC debt), printed by main.
static size_t live_bytes;
static CP_ALLOCATOR void *xmalloc(size_t n) {
  live_bytes += n; // expected-warning {{'live_bytes' is updated here for each call of 'xmalloc' (CP_ALLOCATOR), but the calls that allocate compact objects go to the runtime and run none of 'xmalloc''s code, so 'report', which reads it, sees a value that misses them: keep such bookkeeping at the calls, or let it count other memory only}}
  void *p = malloc(n);
  if (!p)
    abort();
  return p;
}
static CP_DEALLOCATOR void xfree(void *p, size_t n) {
  live_bytes -= n; // expected-warning {{'live_bytes' is updated here for each call of 'xfree' (CP_DEALLOCATOR), but the calls that free compact objects go to the runtime}}
  free(p);
}

// A statistics record a helper updates: said at the helper's update.
struct stats { long allocs, peak; };
static struct stats st;
static void account(struct stats *s) {
  s->allocs++; // expected-warning {{'allocs' is updated here by 'account', which 'counted' calls, for each call of 'counted' (CP_ALLOCATOR)}}
}
static CP_ALLOCATOR void *counted(size_t n) {
  account(&st);
  return calloc(1, n);
}

// A histogram, a record through a local, a count three calls deep, and a
// global of external linkage no function here reads.
static long hist[8];
static struct stats *stats_of(void) { return &st; }
static long deep;
static void d3(void) {
  deep++; // expected-warning {{'deep' is updated here by 'd3', which 'spread' calls, for each call of 'spread' (CP_ALLOCATOR)}}
}
static void d2(void) { d3(); }
static void d1(void) { d2(); }
long exported;
static int oom_seen;
static long opened;
// Tested, not only updated: a read.
static int closing(void) {
  if (--opened == 0)
    return 1;
  return 0;
}
static struct { int owner; } lock;
static void take(void) { lock.owner = 1; }
static void give(void) { lock.owner = 0; }
static CP_ALLOCATOR void *spread(size_t n) {
  hist[n & 7]++; // expected-warning {{'hist' is updated here for each call of 'spread' (CP_ALLOCATOR)}}
  struct stats *s = stats_of();
  s->peak += 1; // expected-warning {{'peak' is updated here for each call of 'spread' (CP_ALLOCATOR)}}
  d1();
  opened++; // expected-warning {{'opened' is updated here for each call of 'spread' (CP_ALLOCATOR), but the calls that allocate compact objects go to the runtime and run none of 'spread''s code, so 'closing', which reads it,}}
  exported += (long)n; // expected-warning {{'exported' is updated here for each call of 'spread' (CP_ALLOCATOR), but the calls that allocate compact objects go to the runtime and run none of 'spread''s code, so code of other files, which it is visible to, sees a value that misses them}}
  take();
  void *p = malloc(n);
  if (!p)
    oom_seen = 1;
  give();
  return p;
}

// A pool's own state, read only by its functions: quiet.  So are the
// memory it hands out, a local, and a global no one else reads.
struct pool { void *free; long handed; };
static long pool_calls;
static CP_ALLOCATOR void *pool_get(struct pool *p, size_t n) {
  pool_calls++;
  p->handed++;
  if (p->free) {
    void *r = p->free;
    p->free = *(void **)r;
    return r;
  }
  char *m = malloc(n);
  *(long *)m = 0;
  return m;
}
static CP_DEALLOCATOR void pool_put(struct pool *p, void *x) {
  *(void **)x = p->free;
  p->free = x;
  p->handed--;
}

// An allocator whose calls here never allocate compact objects: quiet.
static long strings;
static CP_ALLOCATOR char *xstrdup_n(size_t n) {
  strings++;
  return calloc(1, n);
}

// Through pointers: a caller's count (directly and by a helper it is
// handed on to: said once), a global pointer's target, a caller's record.
static void bump(long *c, long n) { *c += n; }
static CP_ALLOCATOR void *xmalloc_n(size_t n, long *count) {
  (*count)++; // expected-warning {{'total' is updated here through 'count' for each call of 'xmalloc_n' (CP_ALLOCATOR), but the calls that allocate compact objects go to the runtime and run none of 'xmalloc_n''s code, so 'through_pointers', which reads it,}}
  bump(count, (long)n);
  return malloc(n);
}
static CP_ALLOCATOR void *via_helper(size_t n, long *count) {
  bump(count, (long)n); // expected-warning@-7 {{'counted_bytes' is updated here through 'c' by 'bump', which 'via_helper' calls, for each call of 'via_helper' (CP_ALLOCATOR)}}
  return malloc(n);
}
static long counted_bytes;
static long *live_count;
static CP_ALLOCATOR void *ymalloc(size_t n) {
  (*live_count)++; // expected-warning {{'*live_count' is updated here for each call of 'ymalloc' (CP_ALLOCATOR)}}
  return malloc(n);
}
struct vec { long cap, len; };
static CP_ALLOCATOR void *grow(size_t n, struct vec *v) {
  v->cap *= 2; // expected-warning {{'cap' is updated here for each call of 'grow' (CP_ALLOCATOR)}}
  return malloc(n);
}
static CP_ALLOCATOR void *by_size(size_t n, long *hist) {
  hist[n & 3]++; // expected-warning {{'sizes' is updated here through 'hist' for each call of 'by_size' (CP_ALLOCATOR)}}
  return malloc(n);
}
static long sizes[4];
static long size_report(void) { return sizes[0] + sizes[1]; }
// A global pointer handed in is itself the target (a bump cursor).
static char *cursor;
static CP_ALLOCATOR void *bump_from(size_t n, char **cur) {
  *cur += n; // expected-warning {{'cursor' is updated here through 'cur' for each call of 'bump_from' (CP_ALLOCATOR)}}
  return malloc(n);
}
static long cursor_report(void) { return cursor != 0; }
// Handed in, at two calls, never read by the caller: quiet.
static CP_ALLOCATOR void *zmalloc(size_t n, long *unread) {
  (*unread)++;
  return malloc(n);
}
static long through_pointers(void) {
  long total = 0, unread = 0;
  static long target;
  struct vec v = {1, 0};
  live_count = &target;
  struct node *a = xmalloc_n(sizeof *a, &total);
  struct node *b = via_helper(sizeof *b, &counted_bytes);
  struct node *c = ymalloc(sizeof *c);
  struct node *d = grow(sizeof *d, &v);
  struct node *e = zmalloc(sizeof *e, &unread);
  struct node *e2 = zmalloc(sizeof *e2, &unread);
  struct node *g = bump_from(sizeof *g, &cursor);
  free(e2), free(g);
  struct node *f = by_size(sizeof *f, sizes);
  free(a), free(b), free(c), free(d), free(e), free(f);
  return total + counted_bytes + *live_count + v.cap + size_report() +
         cursor_report();
}

static void report(void) {
  printf("%zu %ld %ld %ld %ld %ld %d %d\n", live_bytes, st.allocs, strings,
         hist[3], st.peak, deep, oom_seen, lock.owner);
}

int main(void) {
  struct pool pool = {0, 0};
  struct node *h = NULL;
  for (int i = 0; i < 1000; i++) {
    struct node *n = xmalloc(sizeof *n);
    n->k = i;
    n->next = h;
    h = n;
  }
  struct node *c = counted(sizeof(struct node));
  struct node *q = pool_get(&pool, sizeof(struct node));
  char *s = xstrdup_n(8);
  struct node *sp = spread(sizeof(struct node));
  report();
  (void)closing();
  printf("%ld\n", through_pointers());
  free(sp);
  while (h) {
    struct node *n = h->next;
    xfree(h, sizeof *h);
    h = n;
  }
  pool_put(&pool, q);
  free(c);
  free(s);
  return 0;
}
