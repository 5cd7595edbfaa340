/* A pthread spin lock around a callback, in a file that declares no
 * compact type: the holder allocates, the others spin in
 * pthread_spin_lock meanwhile. */
#include "spin.h"
#include <pthread.h>

static pthread_spinlock_t lock;

void spin_init(void) { pthread_spin_init(&lock, PTHREAD_PROCESS_PRIVATE); }

void with_spin_lock(void (*fn)(long), long arg) {
  pthread_spin_lock(&lock);
  fn(arg);
  pthread_spin_unlock(&lock);
}
