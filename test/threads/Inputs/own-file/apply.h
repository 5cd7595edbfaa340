#ifndef APPLY_H
#define APPLY_H
/* Calls fn(k) (apply.c, a file without compact types). */
void apply(void (*fn)(int), int k);
#endif
