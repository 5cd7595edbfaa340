#ifndef GATE_H
#define GATE_H
/* A gate of its own file (no compact type, no compactptr.h): callers of
 * gate_pass wait until gate_open; gate_wait_for waits until n callers are
 * waiting. */
struct gate;
struct gate *gate_new(void);
void gate_pass(struct gate *g);
void gate_wait_for(struct gate *g, int n);
void gate_open(struct gate *g);
void gate_free(struct gate *g);
/* Runs fn(arg) on a thread started with libc's pthread_create, and joins
 * it. */
void gate_thread(void (*fn)(void *), void *arg);
#endif
