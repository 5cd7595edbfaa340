/* Waits of a file that declares no compact type, for plain-file-waits.test. */
typedef void (*waits_job_fn)(long);
void waits_start(int workers, waits_job_fn job);
void waits_round(long first, long count);
void waits_stop(void);
void waits_semantics(void);
