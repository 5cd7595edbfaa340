#include <stdio.h>
#include "node.h"
static struct node *kept; /* a global root of the program's own module */
int main(void) {
  struct node *head = NULL;
  long i, s = 0;
  for (i = 0; i < 200000; i++) {
    head = push(head, i); /* only the library allocates */
    if (i == 5)
      kept = head;
  }
  for (; head; head = head->next)
    s += head->v;
  printf("%ld %ld\n", s, kept->v);
  return 0;
}
