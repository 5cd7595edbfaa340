// A static local of a compact type (here compact by inference: it holds a
// compact pointer) handed as `void *` to a function that turns it back
// into a compact pointer (a thread's start routine, a visitor): a static
// local is not boxed, so the function would read its wide layout as the
// compact one (the totals came back 0).  Refused at the address; the same
// variable at file scope is boxed.  A byte address that only a byte
// function sees (memset, fwrite) is fine.
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify=expected,sw %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Xclang -verify %s
#include <compactptr.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

struct CP_COMPACT node {
  struct node *next;
  long v;
};
struct targ {
  struct node *keep;
  long total;
};

static void *work(void *arg) {
  struct targ *ta = arg;
  for (struct node *n = ta->keep; n; n = n->next)
    ta->total += n->v;
  return NULL;
}

static struct targ at_file_scope;

long run(void) {
  static struct targ once;
  pthread_t t;
  memset(&once, 0, sizeof once);
  fwrite(&once, sizeof once, 1, stdout); // sw-warning {{the bytes of 'once', which holds a compact pointer, are written by 'fwrite' to a file, pipe or socket}}
  pthread_create(&t, NULL, work, &once); // expected-error {{the address of static local 'once' may be turned back into a compact pointer by the code it is handed to, but a static local stays in wide layout; declare it at file scope}}
  pthread_join(t, NULL);
  pthread_create(&t, NULL, work, &at_file_scope);
  pthread_join(t, NULL);
  return once.total + at_file_scope.total;
}
