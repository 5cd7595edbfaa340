// Threads that block in libc -- pthread_mutex_lock, pthread_cond_wait,
// read on a pipe, nanosleep, pthread_join -- with no CP_NATIVE anywhere:
// the plugin calls each such function in a native region (its arguments
// evaluated first, the compact pointers live across it kept in the
// frame), so a switch that main's allocations start while the workers
// wait does not wait for them, and each worker finds its own list moved
// when it wakes.  Before, the switch waited for the blocked workers until
// COMPACTPTR_SAFEPOINT_TIMEOUT and stopped the program.  The output is the
// native build's.
// REQUIRES: plugin
// RUN: %clang %cflags -O1 -Werror %s -lpthread -o %t.native
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %t.native 3 > %t.out.native
// RUN: env COMPACTPTR_ARENA_LIMIT=2M COMPACTPTR_HIGH_WATER=40 COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 3 > %t.out 2> %t.err
// RUN: diff %t.out.native %t.out
// RUN: FileCheck %s < %t.err
// CHECK: compactptr: switch to wide mode (high-water mark) after {{[0-9]+}} allocations: moved {{[0-9]+}} objects, {{.*}} threads stopped, verified
// CHECK: compactptr: mode wide
#include <compactptr.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

struct CP_COMPACT item { long value; struct item *next; };

enum { MAXW = 8, OWN = 3000, FILL = 60000 };

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int phase;        /* 0: workers build; 1: main fills; 2: workers finish */
static int built;
static int pipes[MAXW][2];
static long results[MAXW];

static struct item *prepend(struct item *list, long v) {
  struct item *it = malloc(sizeof *it);
  it->value = v;
  it->next = list;
  return it;
}

static long total(const struct item *list) {
  long s = 0;
  for (; list; list = list->next)
    s += list->value;
  return s;
}

static void *worker(void *arg) {
  int me = (int)(long)arg;
  struct item *mine = NULL;
  for (long i = 0; i < OWN; i++)
    mine = prepend(mine, i * (me + 1));
  pthread_mutex_lock(&lock);
  built++;
  pthread_cond_broadcast(&changed);
  while (phase < 2)
    pthread_cond_wait(&changed, &lock); /* main switches meanwhile */
  pthread_mutex_unlock(&lock);
  char c = 0;
  if (read(pipes[me][0], &c, 1) != 1) /* blocks until main writes */
    return NULL;
  mine = prepend(mine, c);
  results[me] = total(mine);
  return NULL;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 2;
  if (n < 1 || n > MAXW)
    return 2;
  pthread_t t[MAXW];
  for (int i = 0; i < n; i++) {
    if (pipe(pipes[i]) != 0)
      return 1;
    pthread_create(&t[i], 0, worker, (void *)(long)i);
  }
  pthread_mutex_lock(&lock);
  while (built < n)
    pthread_cond_wait(&changed, &lock);
  phase = 1;
  pthread_mutex_unlock(&lock);
  /* The workers block in pthread_cond_wait while main fills the arena. */
  struct item *big = NULL;
  for (long i = 0; i < FILL; i++)
    big = prepend(big, i);
  pthread_mutex_lock(&lock);
  phase = 2;
  pthread_cond_broadcast(&changed);
  pthread_mutex_unlock(&lock);
  struct timespec pause = {0, 20 * 1000 * 1000};
  nanosleep(&pause, 0); /* the workers now block in read */
  for (int i = 0; i < n; i++) {
    char c = (char)('a' + i);
    if (write(pipes[i][1], &c, 1) != 1)
      return 1;
  }
  for (int i = 0; i < n; i++)
    pthread_join(t[i], 0);
  printf("main %ld\n", total(big));
  for (int i = 0; i < n; i++)
    printf("worker %d %ld\n", i, results[i]);
  return 0;
}
