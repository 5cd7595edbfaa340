/* heaparray.c - heap arrays of compact structs: calloc/malloc/realloc of
 * n * sizeof(struct cell), subscripts, pointer arithmetic (p + i, p++,
 * p - base, p < end, (base + i)->f, *(base + i)), interior pointers
 * (&arr[i], arr + i) stored into compact fields, links between two arrays,
 * sizeof of elements and of the array type, and a permutation cycle walk.
 * Usage: heaparray [n]   (default 4000) */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT cell {
  int val;
  struct cell *next;  /* into the same array */
  struct cell *other; /* into the other array */
};

static unsigned long long z = 0xdeadbeefcafef00dULL;
static unsigned rnd(unsigned b) {
  z += 0x9e3779b97f4a7c15ULL;
  {
    unsigned long long t = z;
    t = (t ^ (t >> 30)) * 0xbf58476d1ce4e5b9ULL;
    t = (t ^ (t >> 27)) * 0x94d049bb133111ebULL;
    return (unsigned)((t ^ (t >> 31)) % b);
  }
}

int main(int argc, char **argv) {
  long n = argc > 1 ? strtol(argv[1], NULL, 10) : 4000;
  struct cell *a, *b, *p, *end;
  long i, steps, cycles = 0, longest = 0, idx_sum = 0;
  size_t m;
  if (n < 8) n = 8;

  /* grow a by realloc before any pointer into it is stored */
  m = (size_t)n / 2;
  a = malloc(m * sizeof(struct cell));
  if (!a) return 2;
  for (i = 0; i < (long)m; i++) a[i].val = (int)i;
  a = realloc(a, (size_t)n * sizeof(struct cell));
  if (!a) return 2;
  for (p = a + m, end = a + n; p < end; p++) p->val = (int)(p - a);
  b = calloc((size_t)n, sizeof *b);
  if (!b) return 2;
  printf("elem=%d same_size=%d\n", (int)(sizeof a[0] == sizeof(struct cell)),
         (int)(sizeof *b == sizeof(struct cell)));

  /* a random permutation through next: shuffle indices in b[].val first */
  for (i = 0; i < n; i++) b[i].val = (int)i;
  for (i = n - 1; i > 0; i--) {
    unsigned j = rnd((unsigned)i + 1);
    int t = b[i].val;
    b[i].val = b[j].val;
    b[j].val = t;
  }
  for (i = 0; i < n; i++) {
    a[i].next = &a[b[i].val]; /* interior pointer into a */
    (b + i)->other = a + (n - 1 - i);
    (*(a + i)).other = &b[i];
    b[i].next = i + 1 < n ? &b[i + 1] : b; /* ring through b */
  }

  /* count the permutation's cycles by walking next pointers */
  {
    char *seen = calloc((size_t)n, 1);
    if (!seen) return 2;
    for (i = 0; i < n; i++) {
      long len = 0;
      if (seen[i]) continue;
      cycles++;
      for (p = &a[i]; !seen[p - a]; p = p->next) {
        seen[p - a] = 1;
        len++;
      }
      if (len > longest) longest = len;
    }
    free(seen);
  }
  printf("cycles=%ld longest=%ld\n", cycles, longest);

  /* walk the ring through b and the cross links */
  p = b;
  steps = 0;
  do {
    idx_sum += (long)(p->other - a) * (steps & 3);
    if (p->other->other != p) idx_sum += 1000000; /* never */
    p = p->next;
    steps++;
  } while (p != b);
  printf("ring steps=%ld idx_sum=%ld\n", steps, idx_sum);

  /* pointer arithmetic forwards and backwards, pre/post increment */
  {
    long fwd = 0, bwd = 0;
    struct cell *q = a + n;
    for (p = a; p != a + n;) fwd += (p++)->val;
    while (q > a) bwd += (--q)->val;
    printf("fwd=%ld bwd=%ld diff=%ld\n", fwd, bwd, (long)((a + n) - a));
  }

  /* follow next from a[0] k times, accumulate via subscripts of the diff */
  {
    unsigned long h = 0;
    p = a;
    for (i = 0; i < 3 * n; i++) {
      h = h * 31 + (unsigned long)(p->next - a);
      p = p->next->next;
    }
    printf("chase hash=%lu at=%ld\n", h, (long)(p - a));
  }
  free(a);
  free(b);
  return 0;
}
