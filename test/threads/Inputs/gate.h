/* Waits of a file without compact types, for plain-file-wait-refused.test. */
void gate_close(void);
void gate_open(void);
void gate_pass(long key);
void lock_bytes(void *mutex);
void unlock_bytes(void *mutex);
