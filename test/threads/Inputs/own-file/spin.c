/* A spin lock of its own file: no compact type here.  A waiter spins
 * while the holder allocates (and may switch). */
#include "spin.h"
#include <sched.h>

void spin_lock(int *l) {
  while (__atomic_exchange_n(l, 1, __ATOMIC_ACQUIRE))
    while (__atomic_load_n(l, __ATOMIC_RELAXED))
      sched_yield();
}

void spin_unlock(int *l) { __atomic_store_n(l, 0, __ATOMIC_RELEASE); }
