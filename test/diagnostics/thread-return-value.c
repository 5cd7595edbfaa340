// Switchable mode: a compact pointer returned by a thread's start routine
// reaches the joiner through pthread_join, from memory of libc's own.
// Where <compactptr.h> gives pthread_join and pthread_exit the runtime's
// assembler names (the default), the runtime keeps such a result as a root
// until the join (threads/thread-result-after-switch.c): nothing to say.
// Built with -DCOMPACTPTR_NO_THREAD_HOOK, they are libc's, and the switch
// does not see the result between the thread's end and the join: flagged
// (void-escape), as a pointer that pthread_setspecific keeps is; so is
// pthread_exit's argument.  A start routine that returns something else,
// a function of the same shape that starts no thread, a thread's argument
// and compact-only mode are not flagged.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Werror %s
// RUN: %clang %cflags -DCOMPACTPTR_NO_THREAD_HOOK -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -DCOMPACTPTR_NO_THREAD_HOOK -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Werror %s
#include <compactptr.h>
#include <pthread.h>
#include <stdlib.h>

struct CP_COMPACT node {
  long v;
  struct node *next;
};

static struct node *build(long n) {
  struct node *h = NULL;
  for (long i = 0; i < n; i++) {
    struct node *x = malloc(sizeof *x);
    x->v = i;
    x->next = h;
    h = x;
  }
  return h;
}

static void *builder(void *arg) {
  struct node *h = build((long)arg);
  return h; // expected-warning {{a compact pointer to 'struct node' is returned as 'void *' by thread start routine 'builder', and pthread_join hands it over from memory the switch does not see}}
}

static void *exiter(void *arg) {
  struct node *h = build((long)arg);
  pthread_exit(h); // expected-warning {{a compact pointer to 'struct node' is passed as 'void *' to 'pthread_exit', which keeps it after it returns}}
}

static void *counter(void *arg) {
  struct node *h = arg;
  long n = 0;
  for (; h; h = h->next)
    n++;
  return (void *)n;
}

/* The same shape, but no thread runs it. */
static void *first(struct node *h) { return h; }

int main(void) {
  pthread_t a, b, c;
  void *r;
  struct node *list = build(10);
  if (pthread_create(&a, NULL, builder, (void *)100L) ||
      pthread_create(&b, NULL, &counter, list) ||
      pthread_create(&c, NULL, exiter, (void *)5L))
    return 1;
  pthread_join(a, &r);
  pthread_join(b, NULL);
  pthread_join(c, &r);
  return first(list) != (void *)list;
}
