/* A list built by the program and summed by a library it opens. */
#include <compactptr.h>
struct CP_COMPACT item {
  long value;
  struct item *next;
};
