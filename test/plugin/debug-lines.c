// Rewritten code keeps the user's line numbers in -g debug info and in
// diagnostics of the outer compile.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -g -S -emit-llvm %s -o - | FileCheck %s
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Wall %s 2>&1 | FileCheck --check-prefix=WARN %s
#include <compactptr.h>

struct CP_COMPACT node { int key; struct node *next; };

int second_key(struct node *p) {
  int unused;
  return p->next->key;
}
// CHECK: define {{.*}} @second_key({{.*}} !dbg [[SP:![0-9]+]]
// CHECK: !DIFile(filename: "{{.*}}debug-lines.c"
// CHECK: [[SP]] = distinct !DISubprogram(name: "second_key", {{.*}}line: 10
// CHECK: !DILocation(line: 12,
// WARN: debug-lines.c:11:7: warning: unused variable 'unused'
// WARN-NOT: warning:
