/* lisp.c - cons cells, list functions and a mark-and-sweep collector.
 *
 * In the style of small Lisp and Scheme interpreters in C (xlisp,
 * tinyscheme, the "build your own Lisp" family): every value is a pointer
 * to a cell with a type tag and a union of a number, a symbol name and a
 * cons pair; car/cdr are macros over the union; cells come from one big
 * array with a free list threaded through cdr; a collector marks from an
 * explicit root stack (`obj *roots[]`, pushed and popped by macros around
 * every allocation) and sweeps the array back onto the free list.  The
 * driver builds lists, maps, reverses, appends, sorts (merge sort on
 * conses) and builds association lists, collecting when the free list
 * runs dry.  Shapes: a union holding node pointers, accessor macros into
 * it, a node array with a free list, addresses of local pointer variables
 * kept on a root stack, recursion on car and iteration on cdr.
 *
 * Usage: lisp [rounds [cells]]       (default 1000 200000)
 */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

enum tag { T_FREE, T_NUM, T_SYM, T_CONS };

typedef struct CP_COMPACT cell *obj;
struct CP_COMPACT cell {
  enum tag tag;
  int marked;
  union {
    long num;
    const char *sym;
    struct {
      obj car, cdr;
    } cons;
  } u;
};

#define car(x) ((x)->u.cons.car)
#define cdr(x) ((x)->u.cons.cdr)
#define NIL ((obj)0)

static struct cell *heap;
static long heapsize, nfree, collections, reclaimed;
static obj freelist;

#define MAXROOTS 256
static obj *roots[MAXROOTS];
static int nroots;
#define PUSH(v) (roots[nroots++] = &(v))
#define POP(n) (nroots -= (n))

static void mark(obj x)
{
  while (x && !x->marked) {
    x->marked = 1;
    if (x->tag != T_CONS)
      return;
    mark(car(x));
    x = cdr(x);
  }
}

static void gc(void)
{
  long i;
  int r;

  for (r = 0; r < nroots; r++)
    mark(*roots[r]);
  freelist = NIL;
  nfree = 0;
  for (i = heapsize - 1; i >= 0; i--) {
    obj c = &heap[i];

    if (c->marked)
      c->marked = 0;
    else {
      if (c->tag != T_FREE)
        reclaimed++;
      c->tag = T_FREE;
      cdr(c) = freelist;
      freelist = c;
      nfree++;
    }
  }
  collections++;
}

static obj alloc_cell(enum tag t)
{
  obj c;

  if (!freelist) {
    gc();
    if (!freelist) {
      fprintf(stderr, "lisp: out of cells\n");
      exit(1);
    }
  }
  c = freelist;
  freelist = cdr(c);
  nfree--;
  c->tag = t;
  c->marked = 0;
  return c;
}

static obj mknum(long n)
{
  obj c = alloc_cell(T_NUM);

  c->u.num = n;
  return c;
}

static obj cons(obj a, obj d)
{
  obj c;

  PUSH(a);
  PUSH(d);
  c = alloc_cell(T_CONS);
  POP(2);
  car(c) = a;
  cdr(c) = d;
  return c;
}

static obj iota(long n)
{
  obj l = NIL, x = NIL;

  PUSH(l);
  PUSH(x);
  while (n > 0) {
    x = mknum(--n * 37 % 1009);
    l = cons(x, l);
  }
  POP(2);
  return l;
}

static obj reverse(obj l)
{
  obj r = NIL;

  PUSH(l);
  PUSH(r);
  for (; l; l = cdr(l))
    r = cons(car(l), r);
  POP(2);
  return r;
}

static obj map_square(obj l)
{
  obj head = NIL, tail = NIL, x = NIL, c;

  PUSH(l);
  PUSH(head);
  PUSH(x);
  for (; l; l = cdr(l)) {
    x = mknum(car(l)->u.num * car(l)->u.num % 10007);
    c = cons(x, NIL);
    if (tail)
      cdr(tail) = c;
    else
      head = c;
    tail = c;
  }
  POP(3);
  return head;
}

static obj append(obj a, obj b)
{
  obj r;

  if (!a)
    return b;
  PUSH(a);
  r = append(cdr(a), b);
  r = cons(car(a), r);
  POP(1);
  return r;
}

/* destructive merge sort on numbers */
static obj merge(obj a, obj b)
{
  struct cell head;
  obj t = &head;

  while (a && b) {
    if (car(a)->u.num <= car(b)->u.num) { cdr(t) = a; t = a; a = cdr(a); }
    else { cdr(t) = b; t = b; b = cdr(b); }
  }
  cdr(t) = a ? a : b;
  return cdr(&head);
}

static obj sort(obj l)
{
  obj slow = l, fast, back;

  if (!l || !cdr(l))
    return l;
  for (fast = cdr(l); fast && cdr(fast); fast = cdr(cdr(fast)))
    slow = cdr(slow);
  back = cdr(slow);
  cdr(slow) = NIL;
  return merge(sort(l), sort(back));
}

static long sum(obj l)
{
  long s = 0;

  for (; l; l = cdr(l))
    s += car(l)->u.num;
  return s;
}

static long length(obj l)
{
  long n = 0;

  for (; l; l = cdr(l))
    n++;
  return n;
}

int main(int argc, char *argv[])
{
  int rounds = argc > 1 ? atoi(argv[1]) : 1000, r;
  obj keep = NIL, a = NIL, b = NIL, s = NIL;
  long check = 0, i;

  heapsize = argc > 2 ? atol(argv[2]) : 200000;
  heap = calloc(heapsize, sizeof(struct cell));
  for (i = heapsize - 1; i >= 0; i--) {
    cdr(&heap[i]) = freelist;
    freelist = &heap[i];
  }
  nfree = heapsize;
  PUSH(keep);
  PUSH(a);
  PUSH(b);
  PUSH(s);
  for (r = 0; r < rounds; r++) {
    a = iota(200 + r % 50);
    b = map_square(a);
    a = reverse(a);
    s = append(a, b);
    s = sort(s);
    check = (check * 31 + sum(s) + length(s) + car(s)->u.num) % 1000000007;
    if (r % 10 == 0)
      keep = cons(s, keep);          /* some results survive */
    a = b = s = NIL;
  }
  printf("rounds %d checksum %ld kept %ld\n", rounds, check, length(keep));
  printf("collections %ld reclaimed %ld free now %ld\n", collections, reclaimed, nfree);
  POP(4);
  free(heap);
  return 0;
}
