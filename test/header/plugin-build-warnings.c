/*
 * With the plugin, compactptr.h declares the runtime interface; the warnings
 * -Weverything finds in it (padding in descriptors, the linker's __start_
 * and __stop_ section symbols, slow paths marked unused) are the header's
 * choices, so none reaches a program built with -Weverything -Werror.  This
 * file raises none of its own, and the rewritten code raises none either.
 * REQUIRES: plugin
 * RUN: %clang -Weverything -Werror %cflags -fplugin=%plugin -c %s -o %t.o
 * RUN: %clang -Weverything -Werror %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -c %s -o %t.o
 */
#include <compactptr.h>
#include <stdlib.h>

struct CP_COMPACT node {
  struct node *next;
  long key;
};

long sum_list(long n);
long sum_list(long n) {
  struct node *head = NULL;
  long s = 0;
  for (long i = 0; i < n; i++) {
    struct node *p = malloc(sizeof *p);
    if (!p)
      abort();
    p->key = i;
    p->next = head;
    head = p;
  }
  while (head) {
    struct node *next = head->next;
    s += head->key;
    free(head);
    head = next;
  }
  return s;
}
