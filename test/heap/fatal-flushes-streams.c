// A fatal runtime error (exit 70) must not lose what the program had
// buffered in streams it opened itself: every stream is flushed first.
// RUN: rm -f %t.log
// RUN: %clang %cflags %s %runtime -o %t
// RUN: env COMPACTPTR_ARENA_LIMIT=256K not %t %t.log 2>&1 | FileCheck %s --check-prefix=ERR
// RUN: FileCheck %s --check-prefix=LOG < %t.log
// ERR: compactptr: the compact arena is exhausted
// LOG: started
// LOG-NEXT: allocating
#define COMPACTPTR_RUNTIME 1
#include <compactptr.h>
#include <stdio.h>
CP_DEFINE_MODULE();
static const cp_field_desc_t f[] = {{"v", 0, 0, CP_FIELD_BYTES, 1, 16, 0}};
static cp_type_desc_t blob = {CP_ABI_VERSION, CP_GRANULE_SHIFT, CP_BUILD_COMPACT_ONLY,
                              "blob", 16, 4, 16, 4, 1, f, &cp__module, 0};
CP_REGISTER_TYPE(blob);
int main(int argc, char **argv) {
  FILE *log = fopen(argc > 1 ? argv[1] : "/dev/null", "w");
  if (!log)
    return 1;
  /* Fully buffered: these lines are still in the buffer at the fatal. */
  fprintf(log, "started\n");
  fprintf(log, "allocating\n");
  for (;;)
    cp_alloc(&blob);
}
