/* A one-file program over a compact list: prints the list's length and sum,
 * and how big a node is in the layout this build uses. */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT item {
  int value;
  struct item *next;
};

int main(void) {
  struct item *head = NULL, *p;
  long sum = 0;
  int i, n = 0;
  for (i = 1; i <= 1000; i++) {
    p = malloc(sizeof *p);
    p->value = i;
    p->next = head;
    head = p;
  }
  for (p = head; p; p = p->next) {
    sum += p->value;
    n++;
  }
  printf("items=%d sum=%ld node=%d\n", n, sum, (int)sizeof(struct item));
  return 0;
}
