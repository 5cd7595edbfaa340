// Switchable mode: a sizeof of a compact type added to a total (`bytes +=
// sizeof(struct node)`, memory accounting) in a function that may reach a
// safepoint keeps it as a store does: after the switch the total adds the
// wide sizes to the compact ones (a trial's count printed 1206824 bytes
// for 100000 nodes of 8 and then 16 bytes, unwarned, where `bytes = bytes
// + sizeof(struct node)` was warned).  Also a global or a field, and `-=`.
// Quiet: a pointer stepped by it (a bump pointer, refused where it
// becomes an object), a total in a function that cannot switch and that
// is used there, compact-only and wide builds (sizeof gives the compact
// size there by design, and it never changes).
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only %s 2>&1 | FileCheck --implicit-check-not=warning: %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Werror %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=wide -fsyntax-only -Werror %s
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node { int key; struct node *next; };
struct stats { size_t bytes; long nodes; };

static size_t live_bytes;

static size_t per_list(long n) {
  size_t total = 0; // no safepoint here: used at once
  while (n-- > 0)
    total += sizeof(struct node);
  return total > 4096 ? 1 : 0;
}

static void drop(struct node *n) {
  live_bytes -= sizeof *n;
  // CHECK: layout-stored-total.c:[[@LINE-1]]:{{[0-9]+}}: warning: this sizeof of compact type 'struct node' is subtracted from 'live_bytes' (a total kept across the switch adds sizes of both layouts: count the objects instead): it is the value in the layout of the moment
  free(n);
}

int main(void) {
  struct node *head = NULL;
  struct stats st = {0, 0};
  size_t bytes = 0, sum = 0;
  char *cursor = NULL;
  int i;
  for (i = 0; i < 1000; i++) {
    struct node *n = malloc(sizeof *n);
    n->key = i;
    n->next = head;
    head = n;
    bytes += sizeof(struct node);
    // CHECK: layout-stored-total.c:[[@LINE-1]]:{{[0-9]+}}: warning: this sizeof of compact type 'struct node' is added to 'bytes' (a total kept across the switch adds sizes of both layouts: count the objects instead)
    sum = sum + sizeof(struct node);
    // CHECK: layout-stored-total.c:[[@LINE-1]]:{{[0-9]+}}: warning: this sizeof of compact type 'struct node' is stored in 'sum'
    st.bytes += sizeof *n;
    // CHECK: layout-stored-total.c:[[@LINE-1]]:{{[0-9]+}}: warning: this sizeof of compact type 'struct node' is added to a total in memory
    live_bytes += sizeof *n;
    // CHECK: layout-stored-total.c:[[@LINE-1]]:{{[0-9]+}}: warning: this sizeof of compact type 'struct node' is added to 'live_bytes'
    st.nodes++;
    cursor += sizeof(struct node); // a pointer stepped: no total
  }
  printf("%zu %zu %zu %ld %zu %d %zu\n", bytes, sum, st.bytes, st.nodes,
         live_bytes, cursor != NULL, per_list(st.nodes));
  while (head) {
    struct node *next = head->next;
    drop(head);
    head = next;
  }
  return 0;
}
