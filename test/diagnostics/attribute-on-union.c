// `compact` applies to structs only.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
#include <compactptr.h>

union CP_COMPACT u { // expected-error {{'compact' applies to structs, not unions}}
  int i;
  long l;
};

int x CP_COMPACT; // expected-warning {{'compact' attribute only applies to structs}}
