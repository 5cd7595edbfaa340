/* testutil.h - shared helpers for the runtime unit tests (cmocka). */
#ifndef CP_TESTUTIL_H
#define CP_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* Runs fn in a child process and checks that it stops the way the runtime's
 * fatal path does: exit status 70 and `needle` in what it wrote to stderr. */
static inline void expect_fatal(void (*fn)(void *), void *arg,
                                const char *needle) {
  int fds[2];
  assert_int_equal(pipe(fds), 0);
  fflush(NULL);
  pid_t pid = fork();
  assert_true(pid >= 0);
  if (pid == 0) {
    close(fds[0]);
    dup2(fds[1], 2);
    fn(arg);
    _exit(0);
  }
  close(fds[1]);
  char buf[4096];
  size_t n = 0;
  ssize_t r;
  while (n < sizeof buf - 1 && (r = read(fds[0], buf + n, sizeof buf - 1 - n)) > 0)
    n += (size_t)r;
  buf[n] = 0;
  close(fds[0]);
  int status;
  assert_int_equal(waitpid(pid, &status, 0), pid);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 70 || !strstr(buf, needle) ||
      strncmp(buf, "compactptr: ", 12) != 0) {
    fprintf(stderr, "expected fatal error containing '%s'; got status %d, "
            "stderr: %s\n", needle, status, buf);
    fail();
  }
}

/* A double free (or a free of a slot on the free list that was never handed
 * out) stops the program at the free under COMPACTPTR_DEBUG=1 with
 * `precise` in the message; otherwise, for slots of 8 bytes or more, at
 * the allocation that takes the slot off the free list a second time (fn
 * must allocate after the bad free). */
extern int cp__debug;
static inline void expect_bad_free(void (*fn)(void *), void *arg,
                                   const char *precise) {
  expect_fatal(fn, arg, cp__debug ? precise : "which is not free");
}

/* xorshift64*: deterministic, seed printed by each test that uses it. */
static inline uint64_t rng_next(uint64_t *s) {
  uint64_t x = *s;
  x ^= x >> 12;
  x ^= x << 25;
  x ^= x >> 27;
  *s = x;
  return x * 0x2545F4914F6CDD1Dull;
}
static inline uint32_t rng_below(uint64_t *s, uint32_t n) {
  return (uint32_t)((rng_next(s) >> 32) % n);
}

#endif
