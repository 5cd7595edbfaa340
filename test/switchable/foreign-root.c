// A root of a compact type that holds an object outside the compact heap
// at the switch: an object from an allocation hook (a call the plugin
// cannot route) is in the compact layout, and the wide code after the
// switch would read it in the wide one (it printed "22 0" for "11 22").
// The switch stops with one line naming the root instead.  A sentinel
// (a small integer, a poison value, an unmapped address, the address of a
// global used as a marker) is left as it is.
// RUN: %clang %cflags -O1 %s -o %t.native
// RUN: %clang %cflags -O1 -fplugin=%plugin -fplugin-arg-compactptr-Wno-compactptr-foreign-object %s %runtime -o %t
// RUN: %t.native > %t.expected && %t | diff %t.expected -
// RUN: %t.native sentinel > %t.expected-sentinel
// RUN: env COMPACTPTR_ARENA_LIMIT=1M %t sentinel | diff %t.expected-sentinel -
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_STATS=1 %t sentinel 2>&1 >/dev/null | FileCheck --check-prefix=SENTINEL %s
// RUN: env COMPACTPTR_ARENA_LIMIT=1M not %t 2>&1 | FileCheck %s
// CHECK: compactptr: the switch to wide mode found the root 'cfg', a pointer to 'item', holding 0x{{[0-9a-f]+}}, an object outside the compact heap: the runtime did not allocate it (an allocation hook or a wrapper in another file: declare it CP_ALLOCATOR{{.*}}
// CHECK-NOT: 22 0
// SENTINEL: compactptr: switch to wide mode
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT item { struct item *next; int v, w; };

// A hook other than malloc (with malloc the object would be the runtime's:
// switchable/allocation-hook.c).
static void *bytes(size_t n) { return memset(malloc(n), 0, n); }
struct hooks { void *(*allocate)(size_t); };
static struct hooks hooks = { bytes };
static char marker;

int main(int argc, char **argv) {
  int sentinel = argc > 1 && strcmp(argv[1], "sentinel") == 0;
  struct item *cfg = NULL, *tomb = (struct item *)1, *mark = (struct item *)&marker;
  struct item *poison = (struct item *)0xdead000000000100ULL, *beef = (struct item *)0xdeadbeefUL;
  if (!sentinel) {
    cfg = (struct item *)hooks.allocate(sizeof(struct item));
    cfg->next = NULL;
    cfg->v = 11;
    cfg->w = 22;
  }
  struct item *head = NULL;
  for (int i = 0; i < 100000; i++) {
    struct item *n = malloc(sizeof *n);
    n->v = i;
    n->w = -i;
    n->next = head;
    head = n;
  }
  long sum = 0;
  for (struct item *n = head; n; n = n->next)
    sum += n->v + n->w * 2;
  if (cfg)
    printf("%d %d\n", cfg->v, cfg->w);
  printf("%ld %d %d %d %d\n", sum, tomb == (struct item *)1, mark == (struct item *)&marker,
         poison == (struct item *)0xdead000000000100ULL, beef == (struct item *)0xdeadbeefUL);
  return 0;
}
