/* byvalue.c - by-value copies of compact structs between heap objects and
 * values: `struct node v = *p; *q = v;`, `*p = *q`, passing and returning
 * by value, compound literals, member access on a returned value, and
 * nested by-value structs inside a compact struct: a plain one (struct
 * point), an inferred-compact one holding compact pointers (struct link),
 * and an array of those.
 * Usage: byvalue [n]   (default 2000) */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct point {
  int x, y;
};

struct node;

/* Not annotated, but holds compact pointers: an inferred compact type. */
struct link {
  struct node *to;
  int weight;
};

struct CP_COMPACT node {
  int key;
  struct point pos;
  struct link out;
  struct link extra[2];
  struct node *next;
};

static unsigned st = 7u;
static int rnd(int b) {
  st = st * 1664525u + 1013904223u;
  return (int)((st >> 9) % (unsigned)b);
}

static struct node make(int key, struct node *next) {
  struct node v;
  v.key = key;
  v.pos.x = key * 2;
  v.pos.y = -key;
  v.out.to = next;
  v.out.weight = key % 13;
  v.extra[0].to = next;
  v.extra[0].weight = 1;
  v.extra[1].to = NULL;
  v.extra[1].weight = 2;
  v.next = next;
  return v;
}

/* Takes a value, returns a modified value. */
static struct node shifted(struct node v, int dx) {
  v.pos.x += dx;
  v.out.weight++;
  return v;
}

static struct link best_link(const struct node *p) {
  struct link l = p->out;
  if (p->extra[0].weight > l.weight) l = p->extra[0];
  return l;
}

static long score(struct node v) {
  return (long)v.key + v.pos.x - v.pos.y + v.out.weight +
         (v.next ? v.next->key : -1) + (v.out.to == v.next);
}

static unsigned long list_hash(const struct node *p) {
  unsigned long h = 1;
  for (; p; p = p->next)
    h = h * 1000003u + (unsigned long)(p->key ^ p->pos.x ^ (p->pos.y * 8) ^
                                       p->out.weight ^ p->extra[1].weight);
  return h;
}

int main(int argc, char **argv) {
  long n = argc > 1 ? strtol(argv[1], NULL, 10) : 2000;
  struct node *head = NULL, *p, *q;
  long i, total = 0, same = 0, links = 0;
  if (n < 4) n = 4;

  for (i = 0; i < n; i++) {
    p = malloc(sizeof(struct node));
    if (!p) return 2;
    *p = make((int)i, head); /* value -> heap */
    head = p;
  }
  printf("built hash=%lu\n", list_hash(head));

  /* heap -> value -> heap */
  for (p = head; p && p->next; p = p->next->next) {
    struct node v = *p;
    struct node w = *p->next;
    v.pos = w.pos;             /* nested plain struct copy */
    v.out = w.out;             /* nested compact-pointer struct copy */
    v.next = p->next;          /* keep the list shape */
    *p = v;
    if (p->out.to == p->next->next) same++;
  }
  printf("swapped hash=%lu same=%ld\n", list_hash(head), same);

  /* pass and return by value */
  for (p = head; p; p = p->next) total += score(shifted(*p, rnd(5)));
  printf("score total=%ld\n", total);

  /* *p = *q between heap objects, then restore the link */
  for (p = head, i = 0; p && p->next; p = p->next, i++)
    if (i % 5 == 0) {
      struct node *keep = p->next;
      q = p->next;
      *p = *q;
      p->next = keep;
    }
  printf("copied hash=%lu\n", list_hash(head));

  /* compound literal, member on returned value and on a nested link */
  head->pos = (struct point){3, 4};
  *head = (struct node){.key = head->key, .pos = head->pos, .next = head->next};
  printf("literal key=%d pos=%d,%d out.to_null=%d make().next==head %d\n",
         head->key, head->pos.x, head->pos.y, head->out.to == NULL,
         make(1, head).next == head);
  for (p = head; p; p = p->next) {
    struct link l = best_link(p);
    if (l.to) links += l.to->key % 7 + l.weight;
    if (p->extra[0].to && p->extra[0].to->next) links++;
  }
  printf("links=%ld first.next.key=%d\n", links, make(0, head).next->next->key);

  while (head) {
    p = head->next;
    free(head);
    head = p;
  }
  return 0;
}
