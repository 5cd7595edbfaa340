// A sizeof of a compact type inside a macro's parentheses (`#define
// NODE_SIZE (sizeof(struct node))`, as most C writes a size macro): the
// expansion is printed anew with the compact struct's size.  Before, the
// macro's text was copied, so the compact body kept the wide size: a
// `memcpy(a, b, NODE_SIZE)` copied 16 bytes over 8-byte objects and wrote
// over the next one (13 printed instead of 23, exit 0).
// RUN: %rewrite --main-only --mode=compact-only %s -- %cflags > %t.c
// RUN: FileCheck --match-full-lines %s < %t.c
// RUN: %clang %cflags -O1 %s -o %t.native
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t.sw
// RUN: %t.native > %t.expect
// RUN: %t.co | diff %t.expect -
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 %t.sw | diff %t.expect -
#include <compactptr.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT node {
  struct node *next;
  int k;
};

#define NODE_SIZE (sizeof(struct node))
#define NODE_ALIGN (_Alignof(struct node))
#define K_AT (offsetof(struct node, k))

static void copy(struct node *a, const struct node *b) {
  size_t sz = NODE_SIZE;
  // CHECK: size_t sz = ((sizeof(struct cp__c_node)));
  memcpy(a, b, sz);
}

static void clear(struct node *a) {
  memset(a, 0, NODE_SIZE);
  // CHECK: memset(a, 0, ((sizeof(struct cp__c_node))));
}

int main(void) {
  struct node *v[4];
  long s = 0, i;
  for (i = 0; i < 4; i++) {
    v[i] = malloc(NODE_SIZE);
    v[i]->k = (int)i;
    v[i]->next = i ? v[i - 1] : NULL;
  }
  copy(v[1], v[0]);
  clear(v[3]);
  for (i = 0; i < 4; i++)
    s = s * 10 + v[i]->k;
  printf("%ld %d %d\n", s, v[1]->next == NULL, (int)(K_AT % NODE_ALIGN == 0));
  for (i = 0; i < 100000; i++) { /* enough to switch at 256K */
    struct node *n = malloc(NODE_SIZE);
    copy(n, v[2]);
    n->next = v[0]->next;
    v[0]->next = n;
  }
  for (s = 0, i = 0; v[0]->next; i++) {
    struct node *n = v[0]->next;
    v[0]->next = n->next;
    s += n->k;
    free(n);
  }
  printf("%ld %ld\n", i, s);
  return 0;
}
