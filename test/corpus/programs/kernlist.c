/* kernlist.c - a page cache with two LRU lists on Linux-style list_heads.
 *
 * In the style of the Linux kernel's <linux/list.h> and the many user
 * space copies of it: a two-pointer `struct list_head` embedded in the
 * objects it links, container_of() to get from a link back to its object
 * (pointer arithmetic on `char *` minus offsetof), list_for_each_entry
 * macros built on __typeof__, list heads that are globals initialised to
 * point at themselves (LIST_HEAD(name)), and a hash table that is a global
 * array of list heads.  The cache keeps pages on an active and an inactive
 * list, promotes a page on its second touch, refills the inactive list
 * from the active one, and evicts from the inactive head.
 *
 * Usage: kernlist [accesses [capacity]]      (default 400000 20000)
 */
#include <compactptr.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT list_head {
  struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(name) { &(name), &(name) }
#define LIST_HEAD(name) struct list_head name = LIST_HEAD_INIT(name)

#define container_of(ptr, type, member) \
  ((type *)((char *)(ptr) - offsetof(type, member)))
#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_first_entry(ptr, type, member) list_entry((ptr)->next, type, member)
#define list_for_each_entry(pos, head, member)                          \
  for (pos = list_entry((head)->next, __typeof__(*pos), member);        \
       &pos->member != (head);                                          \
       pos = list_entry(pos->member.next, __typeof__(*pos), member))

static inline void INIT_LIST_HEAD(struct list_head *list)
{
  list->next = list;
  list->prev = list;
}

static inline void __list_add(struct list_head *new, struct list_head *prev,
                              struct list_head *next)
{
  next->prev = new;
  new->next = next;
  new->prev = prev;
  prev->next = new;
}

static inline void list_add(struct list_head *new, struct list_head *head)
{
  __list_add(new, head, head->next);
}

static inline void list_add_tail(struct list_head *new, struct list_head *head)
{
  __list_add(new, head->prev, head);
}

static inline void __list_del(struct list_head *prev, struct list_head *next)
{
  next->prev = prev;
  prev->next = next;
}

static inline void list_del(struct list_head *entry)
{
  __list_del(entry->prev, entry->next);
  entry->next = NULL;
  entry->prev = NULL;
}

static inline void list_move_tail(struct list_head *list, struct list_head *head)
{
  __list_del(list->prev, list->next);
  list_add_tail(list, head);
}

static inline int list_empty(const struct list_head *head)
{
  return head->next == head;
}

struct CP_COMPACT page {
  unsigned long index;
  int active;
  int referenced;
  long uses;
  struct list_head lru;
  struct list_head hash;
};

#define HASH_BITS 12
#define HASH_SIZE (1 << HASH_BITS)

static LIST_HEAD(active_list);
static LIST_HEAD(inactive_list);
static struct list_head page_hash[HASH_SIZE];
static long nr_active, nr_inactive, nr_pages;

static struct list_head *hash_bucket(unsigned long index)
{
  return &page_hash[(index * 2654435761UL >> 7) & (HASH_SIZE - 1)];
}

static struct page *find_page(unsigned long index)
{
  struct page *p;

  list_for_each_entry(p, hash_bucket(index), hash)
    if (p->index == index)
      return p;
  return NULL;
}

static void mark_accessed(struct page *p)
{
  p->uses++;
  if (!p->active && p->referenced) {        /* second touch: promote */
    list_move_tail(&p->lru, &active_list);
    p->active = 1;
    p->referenced = 0;
    nr_inactive--;
    nr_active++;
  } else if (!p->referenced) {
    p->referenced = 1;
  } else if (p->active) {
    list_move_tail(&p->lru, &active_list);
  }
}

/* move the oldest active pages to the inactive list until it is 1/3 */
static void refill_inactive(void)
{
  while (nr_inactive * 2 < nr_active && !list_empty(&active_list)) {
    struct page *p = list_first_entry(&active_list, struct page, lru);

    list_move_tail(&p->lru, &inactive_list);
    p->active = 0;
    p->referenced = 0;
    nr_active--;
    nr_inactive++;
  }
}

static void evict_one(void)
{
  struct page *p;

  refill_inactive();
  p = list_first_entry(&inactive_list, struct page, lru);
  list_del(&p->lru);
  list_del(&p->hash);
  free(p);
  nr_inactive--;
  nr_pages--;
}

static struct page *add_page(unsigned long index)
{
  struct page *p = malloc(sizeof(*p));

  p->index = index;
  p->active = 0;
  p->referenced = 0;
  p->uses = 1;
  list_add_tail(&p->lru, &inactive_list);
  list_add(&p->hash, hash_bucket(index));
  nr_inactive++;
  nr_pages++;
  return p;
}

int main(int argc, char *argv[])
{
  long accesses = argc > 1 ? atol(argv[1]) : 400000;
  long capacity = argc > 2 ? atol(argv[2]) : 20000;
  long i, hits = 0, misses = 0, evictions = 0, sum = 0, pos = 0;
  unsigned long x = 88172645463325252UL;
  struct page *p;

  for (i = 0; i < HASH_SIZE; i++)
    INIT_LIST_HEAD(&page_hash[i]);
  for (i = 0; i < accesses; i++) {
    unsigned long index;

    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    /* a hot working set, a scan, and random cold pages */
    if (x % 10 < 6)
      index = x / 10 % (unsigned long)(capacity / 2);
    else if (x % 10 < 8)
      index = 1000000 + (unsigned long)i / 3;
    else
      index = 2000000 + x / 10 % (unsigned long)(capacity * 8);
    p = find_page(index);
    if (p) {
      hits++;
      mark_accessed(p);
    } else {
      misses++;
      if (nr_pages >= capacity) {
        evict_one();
        evictions++;
      }
      add_page(index);
    }
  }
  list_for_each_entry(p, &active_list, lru)
    sum = (sum * 31 + (long)p->index * 3 + p->uses + ++pos) % 1000000007;
  list_for_each_entry(p, &inactive_list, lru)
    sum = (sum * 37 + (long)p->index + p->uses) % 1000000007;
  printf("hits %ld misses %ld evictions %ld\n", hits, misses, evictions);
  printf("active %ld inactive %ld checksum %ld\n", nr_active, nr_inactive, sum);
  while (!list_empty(&inactive_list)) {
    p = list_first_entry(&inactive_list, struct page, lru);
    list_del(&p->lru);
    list_del(&p->hash);
    free(p);
  }
  while (!list_empty(&active_list)) {
    p = list_first_entry(&active_list, struct page, lru);
    list_del(&p->lru);
    list_del(&p->hash);
    free(p);
  }
  return 0;
}
