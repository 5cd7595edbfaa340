// A thread blocks in `read(c->fd, buf, n)` where `c` is a compact object
// and `buf` a local array: the descriptor is an int, copied before the
// call, so the call hands the kernel no memory of the compact heap and
// runs in a native region (its arguments are evaluated before the region
// is entered).  The switch runs while it blocks.  (It was taken for a
// call handed a compact object: blocking-on-object was warned, the call
// got no native region, and the switch waited for it until the program
// stopped after COMPACTPTR_SAFEPOINT_TIMEOUT, 8 runs of 10.)
// REQUIRES: plugin
// RUN: %clang %cflags -O1 -Werror %s -lpthread -o %t.native
// RUN: %t.native > %t.expect
// RUN: FileCheck %s < %t.expect
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_STATS=1 COMPACTPTR_VERIFY=1 COMPACTPTR_SAFEPOINT_TIMEOUT=5000 %t 2> %t.err | diff %t.expect -
// RUN: grep -q 'switch to wide mode' %t.err
// CHECK: nodes 200000 sum 19999900000, read 11 bytes
#include <compactptr.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct CP_COMPACT conn {
  struct conn *next;
  int fd;
  long bytes, messages;
};

struct CP_COMPACT node {
  struct node *next;
  long v;
};

static void *reader(void *arg) {
  struct conn *c = arg;
  char buf[64];
  ssize_t n;
  while ((n = read(c->fd, buf, sizeof buf)) > 0) {
    c->bytes += n;
    c->messages++;
  }
  return NULL;
}

int main(void) {
  int p[2];
  if (pipe(p) != 0)
    return 1;
  struct conn *c = malloc(sizeof *c);
  c->next = NULL;
  c->fd = p[0];
  c->bytes = c->messages = 0;
  pthread_t t;
  pthread_create(&t, NULL, reader, c);
  if (write(p[1], "hello", 5) != 5)
    return 1;
  struct node *head = NULL;
  for (int i = 0; i < 200000; i++) {
    struct node *n = malloc(sizeof *n);
    n->v = i;
    n->next = head;
    head = n;
  }
  long sum = 0, count = 0;
  for (struct node *n = head; n; n = n->next)
    sum += n->v, count++;
  usleep(10000);
  if (write(p[1], "world!", 6) != 6)
    return 1;
  close(p[1]);
  pthread_join(t, NULL);
  printf("nodes %ld sum %ld, read %ld bytes\n", count, sum, c->bytes);
  return 0;
}
