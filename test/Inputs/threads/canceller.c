/* Built without the plugin: a thread the runtime never knows, which
 * cancels a thread a moment after the program says go (cancel-during-
 * switch.c says so just before it starts the switch), then sends it
 * signals whose handler uses 32 KiB of stack: a thread that lands from
 * its cancellation while the switch holds it must wait where such a
 * handler's frame cannot reach the shadow-stack frames the switch walks. */
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>

static pthread_t victim;
static int go;
static volatile long handled;

static void burn(int sig) {
  volatile char buf[32768];
  memset((char *)buf, 0x41, sizeof buf); /* a wild pointer, read as one */
  handled += buf[sig] != 0;
}

static void *canceller(void *arg) {
  long delay_us = (long)arg;
  while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE)) {
    struct timespec ts = {0, 100000};
    nanosleep(&ts, 0);
  }
  struct timespec d = {delay_us / 1000000, (delay_us % 1000000) * 1000};
  nanosleep(&d, 0);
  pthread_cancel(victim);
  struct timespec land = {0, 300000}; /* the cancellation lands first */
  nanosleep(&land, 0);
  for (int i = 0; i < 4000; i++) {
    if (pthread_kill(victim, SIGUSR1) != 0)
      break;
    struct timespec ts = {0, 20000};
    nanosleep(&ts, 0);
  }
  return 0;
}

pthread_t start_canceller(pthread_t v, long delay_us) {
  pthread_t c;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = burn;
  sa.sa_flags = SA_RESTART;
  sigaction(SIGUSR1, &sa, 0);
  victim = v;
  pthread_create(&c, 0, canceller, (void *)delay_us);
  return c;
}

void canceller_go(void) { __atomic_store_n(&go, 1, __ATOMIC_RELEASE); }
