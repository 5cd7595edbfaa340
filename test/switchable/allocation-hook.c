// cJSON's allocation hooks: a struct of function pointers that starts as
// {malloc, free}, and items allocated through it, `(cJSON *)
// hooks.allocate(sizeof(cJSON))`.  While the hook is malloc the object
// comes from the compact heap (cp_hook_is_malloc picks cp_alloc), so the
// program builds and runs with only CP_COMPACT added, across the switch
// too; the plugin warns, because another hook's object is foreign: with
// one installed, the runtime stops at the first store of such an object
// into a compact field (exit 70), never later.  The free hook frees
// through the runtime while it is free.  Strings keep going through the
// hooks.
// REQUIRES: plugin
// RUN: %clang %cflags -O1 %s -o %t.native
// RUN: %clang %cflags -O1 -fplugin=%plugin %s %runtime -o %t 2>&1 | FileCheck --check-prefix=WARN %s
// RUN: %clang %cflags -O1 -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co 2>/dev/null
// RUN: %t.native > %t.expect
// RUN: %t | diff %t.expect -
// RUN: %t.co | diff %t.expect -
// RUN: env COMPACTPTR_ARENA_LIMIT=128K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: grep -q 'switch to wide mode' %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: grep -q 'switch to wide mode' %t.err
// RUN: not %t custom 2>&1 | FileCheck --check-prefix=CUSTOM %s
// A lone item from another hook, never linked, freed through the free
// hook (cJSON_CreateNumber, then cJSON_Delete, with only malloc_fn
// installed): foreign, handed to libc's free by cp_free_any.
// RUN: %t.native leaf > %t.expect-leaf
// RUN: %t leaf | diff %t.expect-leaf -
// RUN: %t.co leaf | diff %t.expect-leaf -
// WARN: warning: this allocation hook is handed the size of 'struct json'
// The free hook, which the file gives free, frees through the runtime
// while it is free (cp_hook_is_free): no void-escape warning, no cast.
// WARN-NOT: warning:
// RUN: %rewrite --main-only -mode=switchable %s -- %cflags 2>/dev/null | FileCheck --check-prefix=FREE %s
// CUSTOM: compactptr: pointer {{.*}} stored into a compact field is not in the compact arena
// FREE: (cp_hook_is_free((const void *)(hooks.deallocate)) ? cp_free_any(j) : hooks.deallocate(j));
// The string is no compact pointer: the hook as written.
// FREE: {{^ *}}hooks.deallocate(j->string);
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct CP_COMPACT json {
  struct json *next, *child;
  int type;
  char *string;
  double number;
} json;

typedef struct {
  void *(*allocate)(size_t);
  void (*deallocate)(void *);
} hooks_t;
static hooks_t hooks = {malloc, free};

static void *counting_malloc(size_t n) { return malloc(n); }

static json *new_item(void) {
  json *j = (json *)hooks.allocate(sizeof(json));
  if (j)
    memset(j, 0, sizeof(json));
  return j;
}
static char *dup_string(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = hooks.allocate(n);
  memcpy(d, s, n);
  return d;
}
static void delete_item(json *j) {
  while (j) {
    json *next = j->next;
    delete_item(j->child);
    hooks.deallocate(j->string);
    hooks.deallocate(j);
    j = next;
  }
}
/* An object of `width` members, each an array of `depth` numbers. */
/* Appended as cJSON's add_item_to_array does: `last->next = item`. */
static void append(json *parent, json *item) {
  json *c = parent->child;
  if (!c) {
    parent->child = item;
    return;
  }
  while (c->next)
    c = c->next;
  c->next = item;
}
static json *build(int width, int depth, int seed) {
  json *obj = new_item();
  char name[32];
  for (int i = 0; i < width; i++) {
    json *arr = new_item();
    snprintf(name, sizeof name, "k%d_%d", seed, i);
    arr->string = dup_string(name);
    for (int k = 0; k < depth; k++) {
      json *n = new_item();
      n->number = seed * 1000.0 + i * 10 + k;
      append(arr, n);
    }
    append(obj, arr);
  }
  return obj;
}
static double sum(const json *j, unsigned long *names) {
  double s = 0;
  for (; j; j = j->next) {
    if (j->string)
      *names = *names * 31 + strlen(j->string);
    s += j->number + sum(j->child, names);
  }
  return s;
}

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "leaf")) {
    hooks.allocate = counting_malloc;
    json *n = new_item();
    n->number = 42;
    printf("%.1f\n", n->number);
    delete_item(n);
    return 0;
  }
  if (argc > 1 && !strcmp(argv[1], "custom"))
    hooks.allocate = counting_malloc;
  json *docs[256] = {0};
  double total = 0;
  unsigned long names = 0;
  for (int round = 0; round < 8; round++)
    for (int d = 0; d < 256; d++) {
      delete_item(docs[d]);
      docs[d] = build(4 + d % 5, 3 + (d + round) % 7, d + round);
      total += sum(docs[d], &names);
    }
  for (int d = 0; d < 256; d++)
    delete_item(docs[d]);
  printf("%.1f %lu\n", total, names);
  return 0;
}
