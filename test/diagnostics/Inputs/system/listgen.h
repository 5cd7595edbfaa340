/* A system header (included with -isystem) with a function over the
 * user's compact type, and one that a macro invoked here produces. */
#define LISTGEN(name, type, link) \
  static long name##_len(struct type *t) { long n = 0; for (; t; t = t->link) n++; return n; }
static long sys_len(struct cell *t) { long n = 0; for (; t; t = t->nx) n++; return n; }
LISTGEN(sysgen, cell, nx)
/* Generic code of the header: no compact type, left alone. */
static long sys_count(void *const *v, long n) { long k = 0; while (n-- > 0) k += v[n] != 0; return k; }
