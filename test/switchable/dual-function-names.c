// In the compact body of a dual function (f__cp), __func__, __FUNCTION__
// and __PRETTY_FUNCTION__ still name the user's function: a message or an
// assert's report prints what the native build prints (they printed
// `walk__cp` while the program was compact).  A program's own macro of one
// of those names is kept around the clone.
// REQUIRES: plugin
// RUN: %clang %cflags -O1 %s -o %t.native
// RUN: %t.native > %t.native.out
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %t > %t.out
// RUN: diff %t.native.out %t.out
// RUN: FileCheck %s < %t.out
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -fplugin-arg-compactptr-dump=- %s 2>&1 | FileCheck --check-prefix=DUMP %s
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

#define WHERE __FUNCTION__

struct CP_COMPACT cell { long v; struct cell *next; };

// DUMP: {{^}}#pragma push_macro("__func__")
// DUMP-NEXT: {{^}}#undef __func__
// DUMP-NEXT: {{^}}#define __func__ "walk"
// DUMP: {{^}}#define __PRETTY_FUNCTION__ "long walk(const struct cell *, int)"
// DUMP: {{^}}__attribute__((unused)) static long walk__cp(
// DUMP: {{^}}#pragma pop_macro("__PRETTY_FUNCTION__")
static long walk(const struct cell *c, int talk) {
  long s = 0;
  for (; c; c = c->next)
    s += c->v;
  if (talk)
    printf("%s %s %s %s sum=%ld\n", __func__, __FUNCTION__, __PRETTY_FUNCTION__,
           WHERE, s);
  return s;
}

int main(void) {
  struct cell *h = NULL;
  int i;
  for (i = 1; i <= 4; i++) {
    struct cell *c = malloc(sizeof *c);
    c->v = i;
    c->next = h;
    h = c;
  }
  walk(h, 1);
  printf("%s\n", __func__);
  return 0;
}
// CHECK: {{^}}walk walk long walk(const struct cell *, int) walk sum=10{{$}}
// CHECK-NEXT: {{^}}main{{$}}
