/*
 * Without the plugin, compactptr.h leaves the program plain C: CP_COMPACT
 * and CP_SAFEPOINT are empty and cp_safepoint() is a no-op, in C89 too, with
 * clang and gcc, and nothing needs the runtime at link time.
 * RUN: %clang -std=c89 -pedantic -Wall -Wextra -Werror %cflags %s -o %t && %t | FileCheck %s
 * RUN: %clang -std=c17 -Wall -Wextra -Werror %cflags %s -o %t && %t | FileCheck %s
 * RUN: gcc -std=c89 -pedantic -Wall -Wextra -Werror %cflags %s -o %t && %t | FileCheck %s
 * CHECK: 16 ok
 */
#include <compactptr.h>
#include <stdio.h>

struct CP_COMPACT node {
  int key;
  struct node *next;
};

CP_SAFEPOINT void step(void);
void step(void) { cp_safepoint(); }

int main(void) {
  struct node n;
  n.key = 1;
  n.next = &n;
  step();
  cp_switch_to_wide();
  printf("%d %s\n", (int)sizeof(struct node), n.next == &n ? "ok" : "bad");
  return 0;
}
