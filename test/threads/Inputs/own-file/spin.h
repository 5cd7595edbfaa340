#ifndef SPIN_H
#define SPIN_H
/* A test-and-set lock of its own file. */
void spin_lock(int *l);
void spin_unlock(int *l);
#endif
