/* slist.c - singly linked list: push front, append at tail, reverse in
 * place, delete by key (head, middle, tail), sorted insert, free.
 * Usage: slist [n]   (default 1000) */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  int key;
  struct node *next;
};

static unsigned long long rng_state = 0x9e3779b97f4a7c15ULL;
static unsigned rng(void) {
  rng_state ^= rng_state << 13;
  rng_state ^= rng_state >> 7;
  rng_state ^= rng_state << 17;
  return (unsigned)(rng_state >> 16);
}

static struct node *push_front(struct node *head, int key) {
  struct node *n = malloc(sizeof(struct node));
  if (!n) exit(2);
  n->key = key;
  n->next = head;
  return n;
}

static struct node *append(struct node *head, int key) {
  struct node *n = malloc(sizeof *n);
  struct node *p;
  if (!n) exit(2);
  n->key = key;
  n->next = NULL;
  if (!head) return n;
  for (p = head; p->next; p = p->next)
    ;
  p->next = n;
  return head;
}

static struct node *reverse(struct node *head) {
  struct node *prev = NULL;
  while (head) {
    struct node *nx = head->next;
    head->next = prev;
    prev = head;
    head = nx;
  }
  return prev;
}

/* Deletes every node with the given key; returns the new head. */
static struct node *delete_key(struct node *head, int key, int *removed) {
  struct node *p, *prev = NULL;
  p = head;
  while (p) {
    if (p->key == key) {
      struct node *dead = p;
      if (prev) prev->next = p->next;
      else head = p->next;
      p = p->next;
      free(dead);
      ++*removed;
    } else {
      prev = p;
      p = p->next;
    }
  }
  return head;
}

static struct node *insert_sorted(struct node *head, int key) {
  struct node *n = malloc(sizeof(struct node)), *p;
  if (!n) exit(2);
  n->key = key;
  if (!head || head->key >= key) {
    n->next = head;
    return n;
  }
  for (p = head; p->next && p->next->key < key; p = p->next)
    ;
  n->next = p->next;
  p->next = n;
  return head;
}

static unsigned long checksum(const struct node *p, long *len) {
  unsigned long h = 5381;
  *len = 0;
  for (; p; p = p->next) {
    h = h * 33 + (unsigned)p->key;
    ++*len;
  }
  return h;
}

static void free_list(struct node *p) {
  while (p) {
    struct node *nx = p->next;
    free(p);
    p = nx;
  }
}

int main(int argc, char **argv) {
  long n = argc > 1 ? strtol(argv[1], NULL, 10) : 1000;
  struct node *a = NULL, *s = NULL;
  long i, len;
  int removed = 0;
  unsigned long h;
  if (n < 4) n = 4;

  for (i = 0; i < n; i++) a = push_front(a, (int)(rng() % 64));
  for (i = 0; i < 16; i++) a = append(a, (int)i);
  h = checksum(a, &len);
  printf("built len=%ld hash=%lu head=%d\n", len, h, a->key);
  a = reverse(a);
  h = checksum(a, &len);
  printf("reversed len=%ld hash=%lu head=%d\n", len, h, a->key);
  a = delete_key(a, a->key, &removed);   /* head */
  a = delete_key(a, 15, &removed);       /* tail (was) */
  a = delete_key(a, 7, &removed);        /* middle */
  h = checksum(a, &len);
  printf("deleted removed=%d len=%ld hash=%lu\n", removed, len, h);

  for (i = 0; i < n / 2; i++) s = insert_sorted(s, (int)(rng() % 1000));
  {
    const struct node *p;
    long bad = 0;
    for (p = s; p && p->next; p = p->next)
      if (p->key > p->next->key) bad++;
    h = checksum(s, &len);
    printf("sorted len=%ld hash=%lu unsorted_pairs=%ld min=%d\n", len, h, bad,
           s->key);
  }
  free_list(a);
  free_list(s);
  return 0;
}
