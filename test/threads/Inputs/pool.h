/* A thread pool of its own file, for pool-in-plain-file.test and
 * wait-in-other-library.test. */
typedef void (*pool_task_fn)(void *);
void pool_start(int n);
void pool_submit(pool_task_fn f, void *arg);
void pool_wait_idle(void);
void pool_stop(void);
