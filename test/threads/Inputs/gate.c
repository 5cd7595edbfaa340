/* A gate the visitor of a compact walk passes, and a lock taken through
 * a byte pointer: waits of a file that declares no compact type. */
#include "gate.h"
#include <pthread.h>

static pthread_mutex_t gate = PTHREAD_MUTEX_INITIALIZER;

void gate_close(void) { pthread_mutex_lock(&gate); }
void gate_open(void) { pthread_mutex_unlock(&gate); }

/* The first key waits at the gate, called back under the walk. */
void gate_pass(long key) {
  if (key == 0) {
    pthread_mutex_lock(&gate);
    pthread_mutex_unlock(&gate);
  }
}

void lock_bytes(void *mutex) { pthread_mutex_lock(mutex); }
void unlock_bytes(void *mutex) { pthread_mutex_unlock(mutex); }
