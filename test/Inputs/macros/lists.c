/* Macro shapes of list and queue code: accessor macros on handle and
 * plain fields, an allocation macro, BSD-queue-style insert and foreach
 * macros, do { } while (0) statement macros, an assert-like macro, and
 * # / ## macros that do not touch compact types.
 * Usage: lists [n] (default 20000).  Prints checksums. */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT item {
  long val;
  struct item *next, *prev;
};

/* 1. accessor macros, plain and handle fields */
#define VAL(p) ((p)->val)
#define NEXT(p) ((p)->next)
#define PREV(p) (p)->prev
/* 2. an allocation macro with a cast */
#define NEW_ITEM() ((struct item *)malloc(sizeof(struct item)))
/* 3. BSD-queue-style insert at the head: a do-while(0) statement macro */
#define LIST_PUSH(head, elm)                                                   \
  do {                                                                         \
    NEXT(elm) = (head);                                                        \
    PREV(elm) = NULL;                                                          \
    if ((head) != NULL)                                                        \
      PREV(head) = (elm);                                                      \
    (head) = (elm);                                                            \
  } while (0)
/* 4. a foreach macro whose body follows the use */
#define FOREACH(var, head) for ((var) = (head); (var) != NULL; (var) = NEXT(var))
/* 5. an assert-like macro with a message built by # */
#define CHECK(cond)                                                            \
  do {                                                                         \
    if (!(cond)) {                                                             \
      fprintf(stderr, "check failed: %s\n", #cond);                            \
      exit(2);                                                                 \
    }                                                                          \
  } while (0)
/* 6. ## builds names of plain counters (no compact type involved) */
#define COUNTER(name) static long count_##name
#define BUMP(name) (count_##name++)
COUNTER(pushes);
COUNTER(visits);
/* 7. a nested macro: a macro whose body uses other macros */
#define SECOND_VAL(p) VAL(NEXT(p))
/* 8. an unlink macro with a statement expression-free body */
#define UNLINK(head, elm)                                                      \
  do {                                                                         \
    if (PREV(elm))                                                             \
      NEXT(PREV(elm)) = NEXT(elm);                                             \
    else                                                                       \
      (head) = NEXT(elm);                                                      \
    if (NEXT(elm))                                                             \
      PREV(NEXT(elm)) = PREV(elm);                                             \
  } while (0)

static struct item *build(int n) {
  struct item *head = NULL;
  int i;
  for (i = 0; i < n; i++) {
    struct item *it = NEW_ITEM();
    CHECK(it != NULL);
    VAL(it) = (long)i * 7 % 1000;
    LIST_PUSH(head, it);
    BUMP(pushes);
  }
  return head;
}

static long sum(struct item *head) {
  struct item *p;
  long s = 0;
  FOREACH(p, head) {
    s += VAL(p);
    BUMP(visits);
  }
  return s;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 20000;
  struct item *head = build(n), *p, *next;
  long before = sum(head), removed = 0;
  CHECK(SECOND_VAL(head) == VAL(NEXT(head)));
  for (p = head; p != NULL; p = next) {
    next = NEXT(p);
    if (VAL(p) % 3 == 0) {
      UNLINK(head, p);
      removed += VAL(p);
      free(p);
    }
  }
  printf("sum %ld removed %ld after %ld pushes %ld visits %ld\n", before, removed,
         sum(head), count_pushes, count_visits);
  while (head) {
    next = NEXT(head);
    free(head);
    head = next;
  }
  return 0;
}
