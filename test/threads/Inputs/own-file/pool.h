#ifndef POOL_H
#define POOL_H
struct pool;
struct pool *pool_create(int nthreads);
void pool_submit(struct pool *p, void (*fn)(void *), void *arg);
void pool_wait_idle(struct pool *p);
void pool_destroy(struct pool *p);
#endif
