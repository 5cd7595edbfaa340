/* Built without the plugin: a thread the runtime never knows, which
 * cancels a thread a moment after the program says go (cancel-during-
 * switch.c says so just before it starts the switch). */
#include <pthread.h>
#include <time.h>

static pthread_t victim;
static int go;

static void *canceller(void *arg) {
  long delay_us = (long)arg;
  while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE)) {
    struct timespec ts = {0, 100000};
    nanosleep(&ts, 0);
  }
  struct timespec d = {delay_us / 1000000, (delay_us % 1000000) * 1000};
  nanosleep(&d, 0);
  pthread_cancel(victim);
  return 0;
}

pthread_t start_canceller(pthread_t v, long delay_us) {
  pthread_t c;
  victim = v;
  pthread_create(&c, 0, canceller, (void *)delay_us);
  return c;
}

void canceller_go(void) { __atomic_store_n(&go, 1, __ATOMIC_RELEASE); }
