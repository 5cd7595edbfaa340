// A pipeline stage blocked in write() on a full pipe while the switch
// comes: write (send, a FIFO's open, fgets on a pipe...) is a blocking call
// the plugin wraps in a native region, so the switch runs while it
// waits.  Before, the writer was a running thread that never reached a
// safepoint: the switch waited COMPACTPTR_SAFEPOINT_TIMEOUT and stopped
// the program (exit 70, every run).  The writer keeps a list of its own
// across the call, read after it.
// REQUIRES: plugin
// RUN: %clang %cflags -O1 %s -lpthread -o %t.native
// RUN: %clang %cflags -O1 -fplugin=%plugin %s %runtime -o %t
// RUN: %t.native > %t.expect
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 COMPACTPTR_SAFEPOINT_TIMEOUT=2000 %t > %t.out 2> %t.err
// RUN: diff %t.expect %t.out
// RUN: grep -q "switch to wide mode (high-water mark).*2 threads stopped, verified" %t.err
#include <compactptr.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct CP_COMPACT rec {
  long v;
  struct rec *next;
};

static int fds[2];

static void *writer(void *arg) {
  struct rec *mine = NULL;
  for (long i = 0; i < 100; i++) {
    struct rec *r = malloc(sizeof *r);
    r->v = i;
    r->next = mine;
    mine = r;
  }
  char block[4096] = {0};
  long sent = 0;
  for (int i = 0; i < 64; i++) // 256 KiB: the pipe fills long before
    sent += write(fds[1], block, sizeof block);
  close(fds[1]);
  long s = 0;
  for (struct rec *r = mine; r; r = r->next)
    s += r->v;
  printf("writer sent %ld, list %ld\n", sent, s);
  return arg;
}

int main(void) {
  if (pipe(fds))
    return 1;
  pthread_t t;
  pthread_create(&t, NULL, writer, NULL);
  usleep(100000); // the writer blocks on the full pipe
  struct rec *head = NULL;
  for (long i = 0; i < 100000; i++) { // the switch happens in here
    struct rec *r = malloc(sizeof *r);
    r->v = i;
    r->next = head;
    head = r;
  }
  char buf[4096];
  long got = 0, n;
  while ((n = read(fds[0], buf, sizeof buf)) > 0)
    got += n;
  pthread_join(t, NULL);
  long s = 0;
  for (struct rec *r = head; r; r = r->next)
    s += r->v;
  printf("main read %ld, list %ld\n", got, s);
  return 0;
}
