// Threads that use a global of compact type for the first time at once.
// Its address is used as a compact pointer, so the plugin keeps it in the
// compact heap, allocated by a getter at its first use; two first uses
// at once each allocated an object and went on writing to their own, and
// one thread's list was lost (a wrong count, exit 0).  Globals are now
// allocated before main, too.  The race is narrow: the program runs
// itself 100 times (the old getter lost a list in 14 to 48 runs of 100).
// RUN: %clang %cflags -O2 -Werror %s -lpthread -o %t.native
// RUN: %clang %cflags -O2 -Werror -fplugin=%plugin %s %runtime -o %t -lpthread
// RUN: %t.native > %t.native.out
// RUN: %t | diff %t.native.out -
// RUN: %clang %cflags -O2 -Werror -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only %s %runtime -o %t.compact -lpthread
// RUN: %t.compact | diff %t.native.out -
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 %t | diff %t.native.out -
#include <compactptr.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { THREADS = 4, NODES = 1000 };

struct CP_COMPACT node {
  long key;
  struct node *next;
};
struct CP_COMPACT slot {
  struct node *head;
  long count;
};
static struct slot slots[THREADS];
static struct slot tally = {NULL, 100};
static atomic_int arrived;

static void *worker(void *arg) {
  long id = (long)arg;
  atomic_fetch_add(&arrived, 1);
  while (atomic_load(&arrived) < THREADS)
    ;
  struct slot *s = &slots[id];
  for (long i = 0; i < NODES; i++) {
    struct node *n = malloc(sizeof *n);
    n->key = i;
    n->next = s->head;
    s->head = n;
    s->count++;
  }
  return NULL;
}

static int once(void) {
  pthread_t t[THREADS];
  for (long i = 0; i < THREADS; i++)
    pthread_create(&t[i], NULL, worker, (void *)i);
  for (int i = 0; i < THREADS; i++)
    pthread_join(t[i], NULL);
  long walked = 0;
  for (int i = 0; i < THREADS; i++)
    for (struct node *p = slots[i].head; p; p = p->next)
      walked++;
  struct slot *g = &tally;
  printf("count %ld walked %ld tally %ld\n",
         slots[0].count + slots[THREADS - 1].count, walked, g->count);
  return 0;
}

/* Runs the program again as "once" and reads its line. */
static int run_once(const char *self, char *line, size_t size) {
  int fd[2];
  if (pipe(fd) != 0)
    return -1;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fd[1], 1);
    execl(self, self, "once", (char *)NULL);
    _exit(127);
  }
  close(fd[1]);
  ssize_t n = read(fd[0], line, size - 1);
  close(fd[0]);
  int status;
  waitpid(pid, &status, 0);
  line[n > 0 ? n : 0] = 0;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

int main(int argc, char **argv) {
  if (argc > 1 && strcmp(argv[1], "once") == 0)
    return once();
  enum { RUNS = 100 };
  int right = 0;
  for (int i = 0; i < RUNS; i++) {
    char line[128];
    if (run_once("/proc/self/exe", line, sizeof line) == 0 &&
        strcmp(line, "count 2000 walked 4000 tally 100\n") == 0)
      right++;
    else
      printf("run %d: %s", i, line);
  }
  printf("%d of %d runs right\n", right, RUNS);
  return 0;
}
