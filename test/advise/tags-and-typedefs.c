// Two forms the plugin accepts, so advise reports no blocker for them: a
// tag of 1 to 3 in the low bits of a node's address converted straight to
// `void *` (crit-bit's internal nodes), and an array of node pointers
// sized with a typedef of the pointer type (libxml2's `sizeof(xmlNodePtr)`).
// A byte offset converted to anything else is still a layout-offset.
// RUN: compactptr-advise %s -- %cflags | FileCheck %s
// CHECK: struct xml_node: clean
// CHECK: blockers: none
// CHECK: struct cb_node: blocked
// CHECK: blockers (1):
// CHECK-NEXT: tags-and-typedefs.c:[[# @LINE + 17]]: a byte offset into a 'struct cb_node' is written as a number, an offset in the wide layout [layout-offset, plugin: error]
#include <stdint.h>
#include <stdlib.h>

struct cb_node {
  void *child[2];
  struct cb_node *up;
  int byte;
};
static void *tag(struct cb_node *n) { return (uint8_t *)n + 1; }
struct cb_node *grow(struct cb_node *parent) {
  struct cb_node *n = malloc(sizeof *n);
  n->up = parent;
  parent->child[0] = tag(n);
  parent->child[1] = (void *)(2 + (char *)n);
  return n;
}
char *second_byte(struct cb_node *n) { return (char *)n + 1; }

typedef struct xml_node {
  struct xml_node *next;
  int v;
} xml_node, *xml_node_ptr;
struct node_set {
  xml_node_ptr *tab;
  int n, max;
};
void add(struct node_set *s, xml_node_ptr x) {
  if (s->n == s->max) {
    s->max = s->max ? 2 * s->max : 4;
    s->tab = realloc(s->tab, s->max * sizeof(xml_node_ptr));
  }
  s->tab[s->n++] = x;
}
xml_node_ptr mk(void) { return calloc(1, sizeof(xml_node)); }
