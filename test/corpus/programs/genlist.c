/* genlist.c - one generic merge sort for every kind of linked list.
 *
 * In the style of C container libraries that write an algorithm once for
 * all node types by passing the offset of the link field (the way
 * BSD's and glib's generic list helpers, or hand-written "intrusive"
 * utilities, do): the sort receives `void *` nodes, the offsetof() of the
 * `next` field and a comparator, and reads and writes the link with
 * memcpy at that offset, which is the portable way to do it without
 * knowing the type.  Two unrelated node types -- employees and parts --
 * are sorted by the same function, then walked through their real types.
 * Shapes: offsetof on a pointer field, memcpy of a node pointer out of
 * and into the middle of a node through `char *`, comparators taking
 * `const void *` nodes, a bottom-up merge sort (Simon Tatham's).
 *
 * Usage: genlist [n]       (default 150000)
 */
#include <compactptr.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT employee {
  int id;
  int dept;
  long salary;
  struct employee *next;
};

struct CP_COMPACT part {
  double weight;
  struct part *next;
  unsigned code;
};

typedef int (*cmp_fn)(const void *, const void *);

static void *get_next(void *node, size_t off)
{
  void *n;

  memcpy(&n, (char *)node + off, sizeof n);
  return n;
}

static void set_next(void *node, size_t off, void *n)
{
  memcpy((char *)node + off, &n, sizeof n);
}

/* bottom-up merge sort of a NULL-terminated list; stable */
static void *list_sort(void *list, size_t off, cmp_fn cmp)
{
  size_t insize = 1;

  if (!list)
    return NULL;
  for (;;) {
    void *p = list, *tail = NULL;
    int nmerges = 0;

    list = NULL;
    while (p) {
      void *q = p, *e;
      size_t psize = 0, qsize = insize, i;

      nmerges++;
      for (i = 0; i < insize && q; i++) {
        psize++;
        q = get_next(q, off);
      }
      while (psize > 0 || (qsize > 0 && q)) {
        if (psize == 0) {
          e = q; q = get_next(q, off); qsize--;
        } else if (qsize == 0 || !q || cmp(p, q) <= 0) {
          e = p; p = get_next(p, off); psize--;
        } else {
          e = q; q = get_next(q, off); qsize--;
        }
        if (tail)
          set_next(tail, off, e);
        else
          list = e;
        tail = e;
      }
      p = q;
    }
    set_next(tail, off, NULL);
    if (nmerges <= 1)
      return list;
    insize *= 2;
  }
}

static int by_dept_salary(const void *a, const void *b)
{
  const struct employee *x = a, *y = b;

  if (x->dept != y->dept)
    return x->dept - y->dept;
  return (x->salary > y->salary) - (x->salary < y->salary);
}

static int by_weight(const void *a, const void *b)
{
  const struct part *x = a, *y = b;

  return (x->weight > y->weight) - (x->weight < y->weight);
}

int main(int argc, char *argv[])
{
  int n = argc > 1 ? atoi(argv[1]) : 150000, i, inversions = 0;
  struct employee *staff = NULL, *e, *prev_e = NULL;
  struct part *parts = NULL, *p, *prev_p = NULL;
  unsigned x = 1;
  long long check = 0;

  for (i = 0; i < n; i++) {
    e = malloc(sizeof *e);
    x = x * 1664525u + 1013904223u;
    e->id = i;
    e->dept = (int)(x >> 28);
    e->salary = 20000 + (long)(x >> 12) % 90000;
    e->next = staff;
    staff = e;
    p = malloc(sizeof *p);
    x = x * 1664525u + 1013904223u;
    p->code = x;
    p->weight = (double)(x >> 8) / 1024.0;
    p->next = parts;
    parts = p;
  }
  staff = list_sort(staff, offsetof(struct employee, next), by_dept_salary);
  parts = list_sort(parts, offsetof(struct part, next), by_weight);
  for (e = staff, i = 0; e; prev_e = e, e = e->next, i++) {
    if (prev_e && by_dept_salary(prev_e, e) > 0)
      inversions++;
    check = (check * 31 + e->id) % 1000000007;
  }
  for (p = parts; p; prev_p = p, p = p->next) {
    if (prev_p && prev_p->weight > p->weight)
      inversions++;
    check = (check * 37 + p->code % 1000) % 1000000007;
  }
  printf("%d employees and %d parts sorted, %d inversions, checksum %lld\n", n, n, inversions,
         check);
  printf("lowest paid in dept 0: id %d salary %ld\n", staff->id, staff->salary);
  while (staff) {
    e = staff->next;
    free(staff);
    staff = e;
  }
  while (parts) {
    p = parts->next;
    free(parts);
    parts = p;
  }
  return 0;
}
