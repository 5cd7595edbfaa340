#ifndef FAIL_H
#define FAIL_H
#include <setjmp.h>
/* An error path of its own file: longjmp to the caller's recovery point. */
void check_or_jump(int ok, jmp_buf *env);
#endif
