// A compact type with a flexible array member of plain elements: the
// compact struct keeps the member last, the descriptor names it
// CP_FIELD_FLEX with its element's size, and its allocations -- the size
// as written, in the layout of the moment -- become arrays of as many
// objects' room as cp_flex_count says (enough for the member in both
// layouts), realloc included; the struct's value converters leave the
// member out, as C's struct copy does.
// RUN: %rewrite --main-only %s -- %cflags > %t.c
// RUN: FileCheck --match-full-lines %s < %t.c
// RUN: %clang %cflags -Wall -Werror %t.c %runtime -o %t && %t | FileCheck --check-prefix=OUT %s
#include <compactptr.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT entry {
  struct entry *next;
  short len;
  char key[];
};
// CHECK: }; struct cp__c_entry { cp_handle_t next; short len; char key[]; } {{.*}} struct entry cp__load_entry(const struct cp__c_entry *cp__c) { struct entry cp__w; cp__w.next = (struct entry *)cp_decode(cp__c->next); cp__w.len = cp__c->len; return cp__w; } {{.*}}

static struct entry *make(const char *k, struct entry *next) {
  size_t n = strlen(k);
  struct entry *e = malloc(sizeof *e + n + 1);
  // CHECK: struct entry *e = cp_alloc_array(&cp__desc_entry, cp_flex_count(&cp__desc_entry, (unsigned long)(sizeof((*(struct cp__c_entry *)(e))) + n + 1)));
  memcpy(e->key, k, n + 1);
  e->len = (short)n;
  e->next = next;
  return e;
}

static struct entry *longer(struct entry *e, const char *more) {
  size_t n = strlen(more);
  e = realloc(e, offsetof(struct entry, key) + e->len + n + 1);
  // CHECK: e = cp_realloc_array(&cp__desc_entry, e, cp_flex_count(&cp__desc_entry, (unsigned long)(__builtin_offsetof(struct cp__c_entry, key) + (((struct cp__c_entry *)(e))->len) + n + 1)));
  memcpy(e->key + e->len, more, n + 1);
  e->len = (short)(e->len + n);
  return e;
}

// git's FLEX_ALLOC_MEM: calloc(1, st_add3(sizeof(*x), len, 1)), through
// a size helper that adds with an overflow check.
static inline size_t st_add(size_t a, size_t b) {
  if (a > (size_t)-1 - b)
    abort();
  return a + b;
}
#define st_add3(a, b, c) st_add(st_add((a), (b)), (c))
static struct entry *flex_alloc(const char *k) {
  size_t n = strlen(k);
  struct entry *e = calloc(1, st_add3(sizeof(*e), n, 1));
  // CHECK: struct entry *e = cp_alloc_array(&cp__desc_entry, cp_flex_count(&cp__desc_entry, (unsigned long)(st_add3(sizeof((*(struct cp__c_entry *)(e))), n, 1))));
  memcpy(e->key, k, n);
  e->len = (short)n;
  return e;
}

// The size held in a local first, which only the allocation reads: the
// local keeps the size of the moment, which a switch since may have left
// the other layout's, so the allocation counts its room for either
// (cp_flex_count_any).
static struct entry *held(const char *k, struct entry *next) {
  size_t n = strlen(k);
  const size_t sz = offsetof(struct entry, key) + n + 1;
  // CHECK: const size_t sz = __builtin_offsetof(struct cp__c_entry, key) + n + 1;
  struct entry *e = malloc(sz);
  // CHECK: struct entry *e = cp_alloc_array(&cp__desc_entry, cp_flex_count_any(&cp__desc_entry, (unsigned long)(sz)));
  memcpy(e->key, k, n + 1);
  e->len = (short)n;
  e->next = next;
  return e;
}

int main(void) {
  struct entry *l = make("alpha", NULL);
  l = make("beta", l);
  l->next = longer(l->next, "-and-omega");
  struct entry *z = calloc(1, sizeof(struct entry) + 3);
  // CHECK: struct entry *z = cp_alloc_array(&cp__desc_entry, cp_flex_count(&cp__desc_entry, (unsigned long)(sizeof(struct cp__c_entry) + 3)));
  z->key[0] = 'z';
  z->next = flex_alloc("git");
  z->next->next = held("held", l);
  for (struct entry *e = z; e; e = e->next)
    printf("%d %s\n", e->len, e->key);
  // OUT: 0 z
  // OUT: 3 git
  // OUT: 4 held
  // OUT: 4 beta
  // OUT: 15 alpha-and-omega
  return 0;
}
// The descriptor, at the end of the file:
// CHECK: {{ *}}{"key", __builtin_offsetof(struct cp__c_entry, key), __builtin_offsetof(struct entry, key), CP_FIELD_FLEX, CP_FIELD_BYTES, sizeof(((struct entry *)0)->key[0]), 0},
