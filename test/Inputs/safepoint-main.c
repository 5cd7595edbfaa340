/* A program that touches the runtime only through a safepoint: the
 * runtime's start-up still parses (and rejects) malformed knobs before
 * main runs. */
#define COMPACTPTR_RUNTIME 1
#include <compactptr.h>
int main(void) {
  cp_safepoint();
  return 0;
}
