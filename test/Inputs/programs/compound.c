/* compound.c - compound assignments and ++/-- through compact-pointer
 * member chains, pointer-valued fields moved with += / ++ / -- inside a
 * heap array, stores whose lvalue has side effects (kids[i++], calls that
 * count how often they run), conditional operands and call results in
 * member chains (`pick()->next->key`, `(c ? p : q)->next = r`), chained
 * and embedded assignments (`a->next = b->next = x`, `p = p->next = q`),
 * and assignment inside conditions.
 * Usage: compound [n]   (default 3000) */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT rec {
  int count;
  unsigned flags;
  struct rec *next;
  struct rec *cursor; /* points into the heap array `pool` */
  struct rec *kids[3];
};

static struct rec *pool;
static long npool, calls;

static struct rec *pick(long i) { /* side effect: counts calls */
  calls++;
  return &pool[i % npool];
}

static struct rec *self(struct rec *r) {
  calls++;
  return r;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? strtol(argv[1], NULL, 10) : 3000;
  long i, acc = 0, expect_calls;
  struct rec *p, *q;
  int k;
  if (n < 8) n = 8;
  npool = n;
  pool = calloc((size_t)n, sizeof(struct rec));
  if (!pool) return 2;

  for (i = 0; i < n; i++) {
    pool[i].next = i + 1 < n ? &pool[i + 1] : NULL;
    pool[i].cursor = pool + i;
  }
  /* compound assignments through chains */
  for (i = 0; i + 3 < n; i++) {
    p = &pool[i];
    p->count += 3;
    p->next->count -= 1;
    ++p->next->next->count;
    p->next->next->next->count++;
    p->flags |= 1u << (i & 7);
    p->next->flags ^= 0x10u;
    p->count *= 2;
    p->count %= 1000;
  }
  for (i = 0, acc = 0; i < n; i++) acc += pool[i].count * 3 + (long)pool[i].flags;
  printf("compound acc=%ld\n", acc);

  /* pointer-valued fields moved with arithmetic */
  for (i = 0; i < n; i++) {
    p = &pool[i];
    p->cursor += (n - 1 - i) / 2;
    if (p->cursor > pool) p->cursor--;
    if (p->cursor + 1 < pool + n) ++p->cursor;
    p->cursor -= 0;
  }
  for (i = 0, acc = 0; i < n; i++) acc += (long)(pool[i].cursor - pool) * (i % 5);
  printf("cursors acc=%ld\n", acc);

  /* side effects in lvalues: each must happen exactly once */
  calls = 0;
  expect_calls = 0;
  for (i = 0; i < n; i++) {
    int j = 0;
    p = pick(i);
    expect_calls++;
    p->kids[j++] = pick(i + 1);
    p->kids[j++] = pick(i + 2);
    expect_calls += 2;
    p->kids[j] = j == 2 ? NULL : p;
    pick(i)->count += 1;               /* called once */
    self(p)->kids[0]->count--;          /* called once */
    pick(i + 1)->next = pick(i + 1)->next; /* two calls */
    expect_calls += 4;
  }
  printf("calls=%ld expected=%ld\n", calls, expect_calls);

  /* call results and conditional operands in member chains */
  acc = 0;
  for (i = 0; i + 3 < n; i++) {
    int c = (int)(i & 1);
    acc += pick(i)->next->count;
    acc += (c ? pick(i) : &pool[i + 1])->next->next->count;
    acc += (c ? pool[i].next : pool[i + 2].next)->flags & 0xff;
    acc += pool[i].next ? pool[i].next->count : -1;
    (c ? pick(i) : self(&pool[i]))->kids[2] = c ? &pool[i + 3] : NULL;
  }
  for (i = 0; i < n; i++) acc += pool[i].kids[2] ? pool[i].kids[2]->count : 7;
  printf("chains acc=%ld\n", acc);

  /* chained and embedded assignments, assignment in conditions */
  p = &pool[0];
  q = &pool[1];
  p->kids[1] = q->kids[1] = &pool[2];
  p = p->next = &pool[3];
  for (k = 0, q = &pool[0]; (q = q->next) != NULL && k < 10; k++)
    acc += q->count;
  printf("assign p=%ld k=%d acc=%ld same=%d\n", (long)(p - pool), k, acc,
         pool[0].kids[1] == pool[1].kids[1]);
  free(pool);
  return 0;
}
