/* A program that sets a feature-test macro before its first include, as
 * programs built with _GNU_SOURCE (or configure's config.h) do: the GNU
 * strerror_r returns the message, the POSIX one an int.  The plugin puts
 * compactptr.h at the top of the file it compiles; if that read
 * <features.h> before the program's #define, strerror_r would be the POSIX
 * one and the program would print "(null)" with no diagnostic. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <compactptr.h>

struct CP_COMPACT node {
  int err;
  struct node *next;
};

int main(void) {
  struct node *head = NULL;
  int codes[] = {ENOENT, EACCES, EEXIST};
  for (long i = 0; i < 60000; i++) {
    struct node *n = malloc(sizeof *n);
    n->err = codes[i % 3];
    n->next = head;
    head = n;
  }
  char buf[128];
  /* strchrnul and the GNU strerror_r exist only with _GNU_SOURCE. */
  const char *msg = strerror_r(head->err, buf, sizeof buf);
  printf("first: %s\n", msg ? msg : "(null)");
  printf("end: %s\n", strchrnul("a=b", '='));
  long n = 0;
  for (struct node *p = head; p; p = p->next)
    n += strerror_r(p->err, buf, sizeof buf)[0];
  printf("sum: %ld\n", n);
  while (head) {
    struct node *next = head->next;
    free(head);
    head = next;
  }
  return 0;
}
