/* A main without compact types (the plugin leaves its file as it is): it
 * hands the tasks of a rewritten file to a pool built without the plugin
 * and waits in pool_wait_idle() while the workers allocate and switch. */
#include <stdio.h>
#include "pool.h"
void task(void *);
extern unsigned long res[4];
int main(void) {
  struct pool *p = pool_create(2);
  for (long t = 0; t < 4; t++)
    pool_submit(p, task, (void *)t);
  pool_wait_idle(p);
  pool_destroy(p);
  for (int t = 0; t < 4; t++)
    printf("%d %lu\n", t, res[t]);
  return 0;
}
