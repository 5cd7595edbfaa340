/* A helper of its own file that calls back: no compact type here. */
#include "apply.h"

void apply(void (*fn)(int), int k) { fn(k); }
