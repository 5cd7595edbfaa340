/* A spin lock and a start gate of their own file, which declares no
 * compact type: the holder of the lock allocates compact nodes (in
 * spinlock-users.c), so a thread spinning here waits for one that may be
 * parked for the switch. */
#include <sched.h>
#include <stdatomic.h>

static atomic_flag flag = ATOMIC_FLAG_INIT;
static volatile int gate;

void spin_lock(void) {
  while (atomic_flag_test_and_set_explicit(&flag, memory_order_acquire))
    sched_yield();
}

void spin_unlock(void) { atomic_flag_clear_explicit(&flag, memory_order_release); }

void wait_gate(void) {
  while (!gate)
    ;
}

void open_gate(void) { gate = 1; }
