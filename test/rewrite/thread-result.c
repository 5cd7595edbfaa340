// Switchable mode: a compact pointer a thread ends with is wrapped in
// cp_thread_result (a start routine's return, pthread_exit's argument in
// any function), so the runtime keeps it until pthread_join; a `void *`
// local a result is joined into and used only as a compact pointer is a
// frame root of no type.  A result that is an integer, and a `void *`
// local also used as one, are left alone.
// RUN: %rewrite --main-only --mode=switchable %s -- %cflags > %t.c
// RUN: FileCheck --match-full-lines %s < %t.c
// RUN: %clang %cflags -Wall -Werror %t.c %runtime -o %t -lpthread && %t | FileCheck --check-prefix=OUT %s
#include <compactptr.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node { long v; struct node *next; };

static struct node *list(long n) {
  struct node *h = NULL;
  for (long i = 1; i <= n; i++) {
    struct node *x = malloc(sizeof *x);
    x->v = i;
    x->next = h;
    h = x;
  }
  return h;
}

static void done(struct node *h) { pthread_exit(h); }
// CHECK: static void done(struct node *h) { pthread_exit(cp_thread_result(h)); }

static void *build(void *arg) {
  struct node *h = list((long)arg);
  if ((long)arg > 100)
    done(h);
  return h;
  // CHECK: {{.*}}return cp_thread_result(h);{{.*}}
}

static void *count(void *arg) {
  long n = 0;
  for (struct node *x = arg; x; x = x->next)
    n++;
  return (void *)n;
  // CHECK: {{ *}}return (void *)n;
}

int main(void) {
  pthread_t a, b, c;
  void *ra, *rb, *rc;
  // CHECK: void *ra = 0, *rb = 0, *rc;{{.*}}cp__root(&cp__rt{{[0-9]+}}[0], (void *)&ra, CP_ROOT_POINTER, 1, 0, "ra"), cp__root(&cp__rt{{[0-9]+}}[1], (void *)&rb, CP_ROOT_POINTER, 1, 0, "rb"), cp__frame(&cp__fr{{[0-9]+}}, 2, cp__rt{{[0-9]+}}));
  if (pthread_create(&a, NULL, build, (void *)10) ||
      pthread_create(&b, NULL, build, (void *)200) ||
      pthread_join(a, &ra) || pthread_join(b, &rb))
    return 1;
  struct node *la = ra, *lb = rb;
  if (pthread_create(&c, NULL, count, lb) || pthread_join(c, &rc))
    return 1;
  printf("%ld %ld %ld\n", la->v, lb->v, (long)rc);
  // OUT: 10 200 200
  return 0;
}
