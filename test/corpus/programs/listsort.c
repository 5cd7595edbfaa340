/* listsort.c - a scheduler's run queues on Linux-style list_heads, sorted.
 *
 * In the style of the Linux kernel's <linux/list.h> and lib/list_sort.c:
 * a list_head inside a nested member (`se.group_node`), the kernel's
 * bottom-up merge sort that keeps its pending runs on the `prev` links and
 * takes a priv pointer and a comparator of list_heads, local LIST_HEADs in
 * functions that allocate, list_replace, list_cut_position,
 * list_rotate_left and reverse iteration. */
#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <compactptr.h>

struct CP_COMPACT list_head { struct list_head *next, *prev; };
#define LIST_HEAD_INIT(name) { &(name), &(name) }
#define LIST_HEAD(name) struct list_head name = LIST_HEAD_INIT(name)
#define container_of(ptr, type, member) ((type *)((char *)(ptr) - offsetof(type, member)))
#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_first_entry(ptr, type, member) list_entry((ptr)->next, type, member)
#define list_last_entry(ptr, type, member) list_entry((ptr)->prev, type, member)
#define list_for_each_entry(pos, head, member) \
  for (pos = list_entry((head)->next, __typeof__(*pos), member); &pos->member != (head); \
       pos = list_entry(pos->member.next, __typeof__(*pos), member))
#define list_for_each_entry_reverse(pos, head, member) \
  for (pos = list_entry((head)->prev, __typeof__(*pos), member); &pos->member != (head); \
       pos = list_entry(pos->member.prev, __typeof__(*pos), member))
#define list_for_each_prev_safe(pos, n, head) \
  for (pos = (head)->prev, n = pos->prev; pos != (head); pos = n, n = pos->prev)

static inline void INIT_LIST_HEAD(struct list_head *l) { l->next = l; l->prev = l; }
static inline void __list_add(struct list_head *n, struct list_head *p, struct list_head *x) { x->prev = n; n->next = x; n->prev = p; p->next = n; }
static inline void list_add(struct list_head *n, struct list_head *h) { __list_add(n, h, h->next); }
static inline void list_add_tail(struct list_head *n, struct list_head *h) { __list_add(n, h->prev, h); }
static inline void __list_del(struct list_head *p, struct list_head *n) { n->prev = p; p->next = n; }
static inline void list_del_init(struct list_head *e) { __list_del(e->prev, e->next); INIT_LIST_HEAD(e); }
static inline int list_empty(const struct list_head *h) { return h->next == h; }
static inline int list_is_singular(const struct list_head *h) { return !list_empty(h) && h->next == h->prev; }
static inline void list_move_tail(struct list_head *e, struct list_head *h) { __list_del(e->prev, e->next); list_add_tail(e, h); }
static inline void list_replace(struct list_head *old, struct list_head *n) {
  n->next = old->next; n->next->prev = n; n->prev = old->prev; n->prev->next = n;
}
static inline void list_rotate_left(struct list_head *h) { if (!list_empty(h)) list_move_tail(h->next, h); }
static inline void __list_cut_position(struct list_head *list, struct list_head *head, struct list_head *entry) {
  struct list_head *new_first = entry->next;
  list->next = head->next; list->next->prev = list; list->prev = entry; entry->next = list;
  head->next = new_first; new_first->prev = head;
}
static inline void list_cut_position(struct list_head *list, struct list_head *head, struct list_head *entry) {
  if (list_empty(head)) return;
  if (list_is_singular(head) && head->next != entry && head != entry) return;
  if (entry == head) INIT_LIST_HEAD(list); else __list_cut_position(list, head, entry);
}
static inline void list_splice_tail(struct list_head *list, struct list_head *head) {
  if (!list_empty(list)) {
    struct list_head *first = list->next, *last = list->prev, *prev = head->prev;
    first->prev = prev; prev->next = first; last->next = head; head->prev = last;
  }
}

/* kernel lib/list_sort.c, simplified (merge of singly linked runs via ->next) */
typedef int (*list_cmp_func_t)(void *, const struct list_head *, const struct list_head *);
static struct list_head *merge(void *priv, list_cmp_func_t cmp, struct list_head *a, struct list_head *b) {
  struct list_head *head, **tail = &head;
  for (;;) {
    if (cmp(priv, a, b) <= 0) { *tail = a; tail = &a->next; a = a->next; if (!a) { *tail = b; break; } }
    else { *tail = b; tail = &b->next; b = b->next; if (!b) { *tail = a; break; } }
  }
  return head;
}
static void merge_final(void *priv, list_cmp_func_t cmp, struct list_head *head, struct list_head *a, struct list_head *b) {
  struct list_head *tail = head;
  for (;;) {
    if (cmp(priv, a, b) <= 0) { tail->next = a; a->prev = tail; tail = a; a = a->next; if (!a) break; }
    else { tail->next = b; b->prev = tail; tail = b; b = b->next; if (!b) { b = a; break; } }
  }
  do { tail->next = b; b->prev = tail; tail = b; b = b->next; } while (b);
  tail->next = head; head->prev = tail;
}
static void list_sort(void *priv, struct list_head *head, list_cmp_func_t cmp) {
  struct list_head *list = head->next, *pending = NULL;
  size_t count = 0;
  if (list == head->prev) return;
  head->prev->next = NULL;
  do {
    size_t bits;
    struct list_head **tail = &pending;
    for (bits = count; bits & 1; bits >>= 1) tail = &(*tail)->prev;
    if (bits) {
      struct list_head *a = *tail, *b = a->prev;
      a = merge(priv, cmp, b, a);
      a->prev = b->prev;
      *tail = a;
    }
    list->prev = pending; pending = list; list = list->next; pending->next = NULL; count++;
  } while (list);
  list = pending; pending = pending->prev;
  for (;;) {
    struct list_head *next = pending->prev;
    if (!next) break;
    list = merge(priv, cmp, pending, list);
    pending = next;
  }
  merge_final(priv, cmp, head, pending, list);
}

struct sched_entity { long vruntime; int weight; struct list_head group_node; };
struct CP_COMPACT task { int pid; char name[8]; struct sched_entity se; struct list_head node; };
struct CP_COMPACT cgroup { int id; struct list_head tasks; struct list_head sibling; long load; };

static unsigned long rs = 4242;
static unsigned rnd(void) { rs = rs * 6364136223846793005UL + 1442695040888963407UL; return (unsigned)(rs >> 33); }
static int npid;
static LIST_HEAD(all);
static LIST_HEAD(groups);

static struct task *new_task(void) {
  struct task *t = malloc(sizeof *t);
  t->pid = ++npid;
  snprintf(t->name, sizeof t->name, "t%d", t->pid % 100000);
  t->se.vruntime = rnd() % 100000; t->se.weight = 1 + rnd() % 7;
  INIT_LIST_HEAD(&t->se.group_node);
  list_add_tail(&t->node, &all);
  return t;
}
struct sort_stats { long calls; int by_weight; };
static int cmp_vr(void *priv, const struct list_head *a, const struct list_head *b) {
  struct sort_stats *st = priv;
  const struct sched_entity *x = list_entry(a, struct sched_entity, group_node);
  const struct sched_entity *y = list_entry(b, struct sched_entity, group_node);
  st->calls++;
  if (st->by_weight && x->weight != y->weight) return x->weight - y->weight;
  return (x->vruntime > y->vruntime) - (x->vruntime < y->vruntime);
}
static int cmp_pid(void *priv, const struct list_head *a, const struct list_head *b) {
  (void)priv;
  return list_entry(a, struct task, node)->pid - list_entry(b, struct task, node)->pid;
}

/* spawn into a local list, then hand out round-robin to groups */
static void spawn_batch(int n) {
  LIST_HEAD(batch);
  for (int i = 0; i < n; i++) {
    struct task *t = new_task();
    list_add(&t->se.group_node, &batch);
  }
  struct cgroup *g = list_first_entry(&groups, struct cgroup, sibling);
  while (!list_empty(&batch)) {
    struct sched_entity *se = list_last_entry(&batch, struct sched_entity, group_node);
    list_move_tail(&se->group_node, &g->tasks);
    g->load += se->weight;
    list_rotate_left(&groups);
    g = list_first_entry(&groups, struct cgroup, sibling);
  }
}
/* migrate the first half of a group into a fresh group */
static void split_group(struct cgroup *g) {
  struct cgroup *ng = calloc(1, sizeof *ng);
  static int gid = 1000;
  ng->id = gid++;
  INIT_LIST_HEAD(&ng->tasks);
  list_add_tail(&ng->sibling, &groups);
  long k = 0; struct sched_entity *se;
  list_for_each_entry(se, &g->tasks, group_node) k++;
  if (k < 2) return;
  struct list_head *cut = g->tasks.next;
  for (long i = 1; i < k / 2; i++) cut = cut->next;
  LIST_HEAD(moved);
  list_cut_position(&moved, &g->tasks, cut);
  list_for_each_entry(se, &moved, group_node) { g->load -= se->weight; ng->load += se->weight; }
  list_splice_tail(&moved, &ng->tasks);
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? atoi(argv[1]) : 200;
  for (int i = 0; i < 8; i++) {
    struct cgroup *g = calloc(1, sizeof *g);
    g->id = i; INIT_LIST_HEAD(&g->tasks); list_add_tail(&g->sibling, &groups);
  }
  struct sort_stats st = {0, 0};
  long replaced = 0, killed = 0;
  for (int r = 0; r < rounds; r++) {
    spawn_batch(300 + rnd() % 200);
    struct cgroup *g;
    list_for_each_entry(g, &groups, sibling) {
      st.by_weight = (r + g->id) & 1;
      list_sort(&st, &g->tasks, cmp_vr);
    }
    /* replace the head task of every other group with a fresh task */
    int i = 0;
    list_for_each_entry(g, &groups, sibling) {
      if (i++ % 2 || list_empty(&g->tasks)) continue;
      struct sched_entity *old = list_first_entry(&g->tasks, struct sched_entity, group_node);
      struct task *ot = container_of(old, struct task, se);
      struct task *nt = new_task();
      list_replace(&old->group_node, &nt->se.group_node);
      g->load += nt->se.weight - old->weight;
      list_del_init(&ot->node);
      free(ot); replaced++;
    }
    /* kill from the back of the biggest group */
    struct cgroup *big = NULL;
    list_for_each_entry(g, &groups, sibling) if (!big || g->load > big->load) big = g;
    struct list_head *pos, *n;
    int k = 0;
    list_for_each_prev_safe(pos, n, &big->tasks) {
      if (k++ >= 100) break;
      struct task *t = container_of(list_entry(pos, struct sched_entity, group_node), struct task, se);
      big->load -= t->se.weight;
      list_del_init(&t->se.group_node); list_del_init(&t->node); free(t); killed++;
    }
    if (r % 25 == 24) split_group(big);
  }
  list_sort(NULL, &all, cmp_pid);
  unsigned long h = 0; long ntasks = 0; struct task *t;
  list_for_each_entry_reverse(t, &all, node) { h = h * 31 + (unsigned long)t->pid; ntasks++; }
  struct cgroup *g; long ng = 0, tot = 0;
  list_for_each_entry(g, &groups, sibling) {
    struct sched_entity *se; long load = 0, c = 0, prev = -1, sorted = 1;
    list_for_each_entry(se, &g->tasks, group_node) { load += se->weight; c++; h = h * 7 + (unsigned long)se->vruntime; (void)prev; }
    if (load != g->load) printf("group %d load mismatch %ld vs %ld\n", g->id, load, g->load);
    (void)sorted; ng++; tot += c;
    if (ng <= 10) printf("group %d: %ld tasks load %ld first %s\n", g->id, c, load,
                        c ? container_of(list_first_entry(&g->tasks, struct sched_entity, group_node), struct task, se)->name : "-");
  }
  printf("tasks=%ld groups=%ld grouped=%ld replaced=%ld killed=%ld cmp=%ld\n", ntasks, ng, tot, replaced, killed, st.calls);
  printf("checksum=%016lx\n", h);
  return 0;
}
