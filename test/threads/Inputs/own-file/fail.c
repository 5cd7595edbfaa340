#include "fail.h"

void check_or_jump(int ok, jmp_buf *env) {
  if (!ok)
    longjmp(*env, 1);
}
