/* Generic containers written as macros that produce whole functions, the
 * way C libraries write them (BSD tree.h's RB_GENERATE, klib's KHASH_INIT):
 * the user's program invokes them once per element type.  Used by
 * generator.c; this header invokes one itself. */
#ifndef GENERATOR_H
#define GENERATOR_H
#include <compactptr.h>
#include <stdlib.h>

/* A stack over an intrusive link field: push allocates. */
#define STACK_GENERATE(name, type, link)                                    \
  static struct type *name##_push(struct type *top, long v) {               \
    struct type *n = malloc(sizeof *n);                                     \
    if (!n)                                                                 \
      exit(2);                                                              \
    n->val = v;                                                             \
    n->link = top;                                                          \
    return n;                                                               \
  }                                                                         \
  static struct type *name##_pop(struct type *top, long *v) {               \
    struct type *next = top->link;                                          \
    *v = top->val;                                                          \
    free(top);                                                              \
    return next;                                                            \
  }                                                                         \
  static long name##_count(const struct type *top) {                        \
    long n = 0;                                                             \
    for (; top; top = top->link)                                            \
      n++;                                                                  \
    return n;                                                               \
  }

/* The tree entry as tree.h declares it: an unnamed struct of links. */
#define BST_ENTRY(type)                                                     \
  struct {                                                                  \
    struct type *lo, *hi;                                                   \
  }

/* A binary search tree: insert recurses and allocates, the key compared
 * by a function the user names. */
#define BST_GENERATE(name, type, field, cmp)                                \
  static struct type *name##_insert(struct type *t, long key, int *added) { \
    int c;                                                                  \
    if (!t) {                                                               \
      t = calloc(1, sizeof *t);                                             \
      t->key = key;                                                         \
      *added = 1;                                                           \
      return t;                                                             \
    }                                                                       \
    c = cmp(key, t->key);                                                   \
    if (c < 0)                                                              \
      t->field.lo = name##_insert(t->field.lo, key, added);                 \
    else if (c > 0)                                                         \
      t->field.hi = name##_insert(t->field.hi, key, added);                 \
    return t;                                                               \
  }                                                                         \
  static long name##_walk(const struct type *t, long depth) {               \
    return t ? t->key * depth + name##_walk(t->field.lo, depth + 1) +       \
                   name##_walk(t->field.hi, depth + 1)                      \
             : 0;                                                           \
  }                                                                         \
  static void name##_free(struct type *t) {                                 \
    if (t) {                                                                \
      name##_free(t->field.lo);                                             \
      name##_free(t->field.hi);                                             \
      free(t);                                                              \
    }                                                                       \
  }

/* An element type of the header's own, with its stack generated here. */
struct CP_COMPACT hitem {
  long val;
  struct hitem *below;
};
STACK_GENERATE(hstack, hitem, below)

#endif
