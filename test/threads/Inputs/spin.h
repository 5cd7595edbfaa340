/* A spin lock of its own file, for plain-file-spin-lock.test. */
void spin_init(void);
void with_spin_lock(void (*fn)(long), long arg);
