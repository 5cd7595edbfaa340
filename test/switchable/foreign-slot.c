// The address of a handle field of a foreign object: cJSON-style hooks
// other than malloc allocate the object outside the compact heap, in the
// compact layout, and `*link = n` through `link = &obj->child` took its
// 4-byte field for an 8-byte native slot (cp__slot_store decides by
// address): the next read decoded half a pointer and crashed (SIGSEGV),
// compact-only and switchable alike.  Taking such an address now stops
// the program with one line naming the type.  With malloc as the hook,
// the same code matches native, across the switch too; `&p->next` with p
// NULL, taken before p is tested, is no error, and offsetof written by
// hand, `(size_t)&((item *)0)->next`, stays a constant for a static
// initializer (it failed to compile compact-only).
// REQUIRES: plugin
// RUN: %clang %cflags -O1 %s -o %t.native
// RUN: %clang %cflags -O1 -fplugin=%plugin -fplugin-arg-compactptr-Wno-compactptr-foreign-object %s %runtime -o %t
// RUN: %clang %cflags -O1 -fplugin=%plugin -fplugin-arg-compactptr-Wno-compactptr-foreign-object -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.co
// RUN: %t.native > %t.expect
// RUN: %t | diff %t.expect -
// RUN: %t.co | diff %t.expect -
// RUN: env COMPACTPTR_ARENA_LIMIT=128K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: grep -q 'switch to wide mode' %t.err
// RUN: not %t custom 2>&1 | FileCheck --check-prefix=CUSTOM %s
// RUN: not %t.co custom 2>&1 | FileCheck --check-prefix=CUSTOM %s
// CUSTOM: compactptr: the address 0x{{[0-9a-f]+}} of a compact pointer field is taken, but its 'item' object is not in the compact arena
// CUSTOM-NOT: total
#include <compactptr.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct CP_COMPACT item {
  struct item *next, *child;
  int v;
} item;

struct hooks {
  void *(*allocate)(size_t);
};
static void *zeroed(size_t n) { return memset(malloc(n), 0, n); }
static struct hooks hooks = {malloc};

static item *make(int v) {
  item *i = (item *)hooks.allocate(sizeof(item));
  memset(i, 0, sizeof *i);
  i->v = v;
  return i;
}

/* Children appended through a pointer to the last link, as a parser that
 * builds its lists in order does. */
static item *build(int n) {
  item *root = make(0);
  item **link = &root->child;
  for (int k = 1; k <= n; k++) {
    *link = make(k);
    link = &(*link)->next;
  }
  return root;
}

#define offset_by_hand(T, m) ((size_t)&((T *)0)->m)
static const size_t next_at = offset_by_hand(item, next);

int main(int argc, char **argv) {
  if (argc > 1 && !strcmp(argv[1], "custom"))
    hooks.allocate = zeroed;
  long total = (long)next_at; /* 0 in both layouts */
  item *keep[200];
  for (int round = 0; round < 200; round++)
    keep[round] = build(50 + round % 7);
  for (int round = 0; round < 200; round++) {
    item *root = keep[round];
    /* The cursor's link is taken before the cursor is tested. */
    item **after;
    for (item *c = root->child;; c = *after) {
      after = &c->next;
      if (!c)
        break;
      total += c->v;
    }
    while (root->child) {
      item *c = root->child;
      root->child = c->next;
      free(c);
    }
    free(root);
  }
  printf("total %ld\n", total);
  return 0;
}
