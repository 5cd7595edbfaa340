/* Macros that stringify an argument holding a compact access: the string
 * must spell the user's text, not the rewritten code, while the access is
 * rewritten (the string read "(((struct cp__c_node *)(n))->v) = 7"). */
#include <assert.h>
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node { int v; struct node *next; };

#define SHOW(e) printf("%s = %d\n", #e, (int)(e))
#define SHOW_TWICE(e) SHOW(e), SHOW((e) + 1) /* handed on, stringified there */
#define CHECK(c) ((c) ? (void)0 : (void)printf("check failed: %s\n", #c))
#define NAME_AND_VALUE(e) \
  do {                    \
    const char *s_ = # e; \
    long v_ = (long)(e);  \
    printf("%s -> %ld\n", s_, v_); \
  } while (0)

static struct node *mk(int v, struct node *next) {
  struct node *n = malloc(sizeof *n);
  n->v = v;
  n->next = next;
  return n;
}

static void show(struct node *n) {
  SHOW(n->v);
  SHOW(n->next != NULL);
  SHOW_TWICE(n->next->v);
  CHECK(n->next->next == NULL);
  CHECK(n->v == 8); /* fails: the message spells the condition */
  NAME_AND_VALUE(n->v * 10 + n->next->v);
  assert(n->next->v == 3);
}

int main(void) {
  struct node *keep = NULL, *all = NULL;
  for (int i = 0; i < 20000; i++) {
    struct node *n = mk(7, mk(3, NULL));
    if (i % 5000 == 0)
      show(n);
    if (!keep)
      keep = n;
    n->next->next = all; /* kept: the heap grows, and switches midway */
    all = n;
  }
  SHOW(keep->v + keep->next->v);
  SHOW(all->next->next == keep);
  return 0;
}
