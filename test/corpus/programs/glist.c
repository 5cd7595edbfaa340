/* glist.c - generic lists whose elements carry `void *` data, in the
 * style of GLib's GList and GSList.
 *
 * A doubly linked GList and a singly linked GSList of cells that point at
 * their data through a `gpointer`: records of the program's own (also
 * compact objects), strings from strdup, and small integers stored in the
 * pointer (GINT_TO_POINTER).  The functions take and return the list's
 * head (prepend, append, remove, reverse, a stable merge sort with a
 * GCompareFunc, foreach with a GFunc and user data), as GLib's do; the
 * program keeps an index of records in a GSList and frees everything at
 * the end.
 *
 * Usage: glist [n]       (default 20000)
 */
#include <compactptr.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef void *gpointer;
typedef const void *gconstpointer;
typedef int (*GCompareFunc)(gconstpointer a, gconstpointer b);
typedef void (*GFunc)(gpointer data, gpointer user_data);
#define GINT_TO_POINTER(i) ((gpointer)(intptr_t)(i))
#define GPOINTER_TO_INT(p) ((int)(intptr_t)(p))

typedef struct CP_COMPACT _GList GList;
struct CP_COMPACT _GList {
  gpointer data;
  GList *next;
  GList *prev;
};

typedef struct CP_COMPACT _GSList GSList;
struct CP_COMPACT _GSList {
  gpointer data;
  GSList *next;
};

struct CP_COMPACT record {
  int key;
  int weight;
  char *name;
};

static GList *g_list_prepend(GList *list, gpointer data) {
  GList *l = malloc(sizeof *l);
  l->data = data;
  l->next = list;
  l->prev = NULL;
  if (list)
    list->prev = l;
  return l;
}

static GList *g_list_append(GList *list, gpointer data) {
  GList *l = malloc(sizeof *l), *last = list;
  l->data = data;
  l->next = NULL;
  if (!list) {
    l->prev = NULL;
    return l;
  }
  while (last->next)
    last = last->next;
  last->next = l;
  l->prev = last;
  return list;
}

static GList *g_list_remove_link(GList *list, GList *l) {
  if (l->prev)
    l->prev->next = l->next;
  if (l->next)
    l->next->prev = l->prev;
  if (l == list)
    list = l->next;
  l->next = l->prev = NULL;
  return list;
}

static GList *g_list_reverse(GList *list) {
  GList *last = NULL;
  while (list) {
    last = list;
    list = last->next;
    last->next = last->prev;
    last->prev = list;
  }
  return last;
}

static GList *merge(GList *a, GList *b, GCompareFunc cmp) {
  GList head, *t = &head, *prev = NULL;
  while (a && b) {
    if (cmp(a->data, b->data) <= 0) {
      t->next = a;
      a = a->next;
    } else {
      t->next = b;
      b = b->next;
    }
    t = t->next;
    t->prev = prev;
    prev = t;
  }
  t->next = a ? a : b;
  t->next->prev = prev;
  return head.next;
}

static GList *g_list_sort(GList *list, GCompareFunc cmp) {
  GList *slow = list, *fast, *right;
  if (!list || !list->next)
    return list;
  for (fast = list->next; fast && fast->next; fast = fast->next->next)
    slow = slow->next;
  right = slow->next;
  slow->next = NULL;
  right->prev = NULL;
  return merge(g_list_sort(list, cmp), g_list_sort(right, cmp), cmp);
}

static void g_list_foreach(GList *list, GFunc func, gpointer user_data) {
  for (; list; list = list->next)
    func(list->data, user_data);
}

static GSList *g_slist_prepend(GSList *list, gpointer data) {
  GSList *l = malloc(sizeof *l);
  l->data = data;
  l->next = list;
  return l;
}

static int by_key(gconstpointer a, gconstpointer b) {
  const struct record *x = a, *y = b;
  return (x->key > y->key) - (x->key < y->key);
}

static int by_name(gconstpointer a, gconstpointer b) { return strcmp(a, b); }

static void add_weight(gpointer data, gpointer user_data) {
  const struct record *r = data;
  *(unsigned long *)user_data = *(unsigned long *)user_data * 31 + r->key * 7u + r->weight;
}

static unsigned long seed = 7;
static unsigned next_random(void) {
  seed = seed * 1103515245UL + 12345UL;
  return (unsigned)(seed >> 16) & 0x7fff;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 20000, i;
  GList *records = NULL, *names = NULL, *ints = NULL, *l, *next;
  GSList *index = NULL, *all = NULL, *s;
  unsigned long sum = 0, h = 0;
  char buf[32];
  for (i = 0; i < n; i++) {
    struct record *r = malloc(sizeof *r);
    r->key = (int)(next_random() % 5000);
    r->weight = i;
    snprintf(buf, sizeof buf, "rec%05d", r->key);
    r->name = strdup(buf);
    records = g_list_prepend(records, r);
    all = g_slist_prepend(all, r);
    if (i % 4 == 0)
      index = g_slist_prepend(index, r);
    if (i % 50 == 0) {
      names = g_list_append(names, r->name);
      ints = g_list_prepend(ints, GINT_TO_POINTER(r->key - 2500));
    }
  }
  records = g_list_sort(records, by_key);
  names = g_list_sort(names, by_name);
  /* Drop every record whose weight is a multiple of 7 from the list (the
   * index still names some of them). */
  for (l = records; l; l = next) {
    next = l->next;
    if (((struct record *)l->data)->weight % 7 == 0) {
      records = g_list_remove_link(records, l);
      free(l);
    }
  }
  records = g_list_reverse(records);
  g_list_foreach(records, add_weight, &sum);
  for (s = index; s; s = s->next)
    h = h * 131 + (unsigned long)((struct record *)s->data)->key;
  for (l = names; l; l = l->next)
    h = h * 7 + (unsigned char)((char *)l->data)[5];
  for (l = ints; l; l = l->next)
    h += (unsigned long)(GPOINTER_TO_INT(l->data) + 2500);
  printf("records %d sum %lu index %lu first %d\n", n, sum, h,
         records ? ((struct record *)records->data)->key : -1);
  while (index) {
    s = index;
    index = s->next;
    free(s);
  }
  while (names) {
    l = names;
    names = l->next;
    free(l);
  }
  while (ints) {
    l = ints;
    ints = l->next;
    free(l);
  }
  while (records) {
    l = records;
    records = l->next;
    free(l);
  }
  /* The records themselves, dropped from the list or not. */
  while (all) {
    struct record *r = all->data;
    s = all;
    all = s->next;
    free(r->name);
    free(r);
    free(s);
  }
  return 0;
}
