// A thread blocked in getc on stdin holds stdin's lock, outside any
// native region (a call per character is no blocking call the plugin
// wraps; fgets is), when the switch comes: the switch gives up after
// COMPACTPTR_SAFEPOINT_TIMEOUT and stops the program with its one-line
// message.  The fatal path flushed every stream first (fflush(NULL)),
// which waited for that lock: the process hung with nothing printed.
// It now flushes only stdout and stderr, where their locks are free.
// REQUIRES: plugin
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// stdin is a FIFO this shell holds open for writing and never writes: the
// reader blocks for good.
// RUN: rm -f %t.fifo && mkfifo %t.fifo
// RUN: sh -c 'exec 3<>%t.fifo; env COMPACTPTR_ARENA_LIMIT=4M COMPACTPTR_SAFEPOINT_TIMEOUT=500ms timeout 15 %t <&3 > %t.out 2> %t.err; echo $? > %t.rc'
// RUN: grep -qx 70 %t.rc
// RUN: FileCheck --check-prefix=OUT %s < %t.out
// RUN: FileCheck --check-prefix=ERR %s < %t.err
// OUT: built
// ERR: compactptr: cannot switch to wide mode {{.*}} did not stop at a safepoint within 500 ms
#include <compactptr.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct CP_COMPACT node {
  long v;
  struct node *next;
};

/* It reads a node after the character, so it runs rewritten code while it
 * waits (a thread that touched nothing compact would count as stopped
 * there: outside rewritten code). */
static void *reader(void *arg) {
  struct node *first = arg;
  int c = getc(stdin);
  if (c != EOF)
    printf("read %c %ld\n", c, first->v);
  return NULL;
}

int main(void) {
  pthread_t t;
  struct node *first = malloc(sizeof *first);
  first->v = -1;
  first->next = NULL;
  pthread_create(&t, NULL, reader, first);
  usleep(100000);
  /* Buffered, not yet written: the fatal path must still get it out. */
  printf("built\n");
  struct node *head = NULL;
  for (long i = 0; i < 300000; i++) {
    struct node *n = malloc(sizeof *n);
    n->v = i;
    n->next = head;
    head = n;
  }
  long sum = 0;
  for (struct node *n = head; n; n = n->next)
    sum += n->v;
  printf("sum %ld\n", sum);
  return 0;
}
