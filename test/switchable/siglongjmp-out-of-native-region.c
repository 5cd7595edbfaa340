// Read with a timeout, the old way: alarm() and a siglongjmp out of a
// read() the plugin wrapped in a native region.  The handler's
// cp__signal_enter takes the thread out of the region; the jump then
// skips cp__signal_leave and cp_native_leave, so the region must end at
// the landing (cp__jump_landed), or the thread would stay counted in it:
// every allocation after would take the slow path, and the switch would
// never run (a safepoint inside a region returns at once).
// REQUIRES: plugin
// RUN: %clang %cflags -O1 %s -o %t.native
// RUN: %clang %cflags -O1 -fplugin=%plugin %s %runtime -o %t
// RUN: %t.native > %t.expect
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t > %t.out 2> %t.err
// RUN: diff %t.expect %t.out
// RUN: FileCheck %s < %t.err
// CHECK: compactptr: switch to wide mode (high-water mark) after {{[0-9]+}} allocations: {{.*}} verified
#include <compactptr.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct CP_COMPACT node {
  long v;
  struct node *next;
};

static sigjmp_buf timeout_env;
static void on_alarm(int sig) {
  (void)sig;
  siglongjmp(timeout_env, 1);
}

static int read_with_timeout(int fd, char *buf, unsigned secs) {
  if (sigsetjmp(timeout_env, 1))
    return -2;
  alarm(secs);
  int r = (int)read(fd, buf, 1);
  alarm(0);
  return r;
}

static struct node *push(struct node *l, long v) {
  struct node *x = malloc(sizeof *x);
  x->v = v;
  x->next = l;
  return x;
}

int main(void) {
  signal(SIGALRM, on_alarm);
  int fds[2];
  if (pipe(fds))
    return 1;
  struct node *l = 0;
  for (int i = 0; i < 1000; i++)
    l = push(l, i);
  char c;
  printf("read %d\n", read_with_timeout(fds[0], &c, 1)); /* nothing to read */
  for (int i = 0; i < 100000; i++)
    l = push(l, i);
  long s = 0;
  for (struct node *p = l; p; p = p->next)
    s += p->v;
  printf("sum %ld\n", s);
  return 0;
}
