// Values the plugin cannot prove are in the arena keep the encode's range
// check (cp__sth), even where every call the AST shows passes a compact
// allocation: a function also entered through an alias, a local written
// by an asm output, a
// result of a weak definition or of an inline definition (another body may
// be the one that runs).  A plain static function gets cp__sth_known.
// RUN: %rewrite --main-only %s -- %cflags > %t.c
// RUN: FileCheck %s < %t.c
#include <compactptr.h>
#include <stdlib.h>

struct CP_COMPACT node {
  long key;
  struct node *next;
};

static struct node *head;

static void put(struct node *n) { head->next = n; }
void put_too(struct node *n) __attribute__((alias("put")));
// CHECK: {{^}}static void put(struct node *n) { cp__sth(&


static void plain(struct node *n) { head->next = n; }
// CHECK: {{^}}static void plain(struct node *n) { cp__sth_known(&

__attribute__((weak)) struct node *made(void) { return malloc(sizeof(struct node)); }
inline struct node *made_inline(void) { return malloc(sizeof(struct node)); }

void use(void) {
  struct node *p = NULL;
  put(malloc(sizeof(struct node)));
  plain(malloc(sizeof(struct node)));
  __asm__("" : "=r"(p) : "0"(p));
  head->next = p;
  head->next = made();
  head->next = made_inline();
}
// CHECK-LABEL: {{^}}void use(void) {
// CHECK: {{^}}  cp__sth(&{{.*}}->next), p);
// CHECK-NEXT: {{^}}  cp__sth(&{{.*}}->next), made());
// CHECK-NEXT: {{^}}  cp__sth(&{{.*}}->next), made_inline());
