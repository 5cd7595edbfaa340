/*
 * include/compactptr.h compiles cleanly under strict flags in every
 * language mode from C89: natively (clang and gcc), with the plugin loaded
 * in each build mode, and in runtime mode (what rewritten code includes).
 * This unit has no compact type, so no generated code is compiled: the
 * header alone is checked.
 * RUN: %clang -std=c89 %strict %cflags -fsyntax-only %s
 * RUN: %clang -std=c99 %strict %cflags -fsyntax-only %s
 * RUN: %clang -std=c11 %strict %cflags -fsyntax-only %s
 * RUN: %clang -std=c17 %strict %cflags -fsyntax-only %s
 * RUN: gcc -std=c89 %strict %cflags -fsyntax-only %s
 * RUN: gcc -std=c99 %strict %cflags -fsyntax-only %s
 * RUN: gcc -std=c11 %strict %cflags -fsyntax-only %s
 * RUN: gcc -std=c17 %strict %cflags -fsyntax-only %s
 * RUN: %clang -std=c89 %strict %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=switchable -c %s -o %t.o
 * RUN: %clang -std=c89 %strict %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -c %s -o %t.o
 * RUN: %clang -std=c89 %strict %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=wide -c %s -o %t.o
 * RUN: %clang -std=c11 %strict %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=switchable -c %s -o %t.o
 * RUN: %clang -std=c11 %strict %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -c %s -o %t.o
 * RUN: %clang -std=c11 %strict %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=wide -c %s -o %t.o
 * RUN: %clang -std=c89 %strict %cflags -DCOMPACTPTR_RUNTIME -DCOMPACTPTR_CHECKED_DECODE -fsyntax-only %s
 * RUN: gcc -std=c89 %strict %cflags -DCOMPACTPTR_RUNTIME -DCOMPACTPTR_CHECKED_DECODE -fsyntax-only %s
 * RUN: %clang -std=c11 %strict %cflags -DCOMPACTPTR_RUNTIME -fsyntax-only %s
 * RUN: gcc -std=c11 %strict %cflags -DCOMPACTPTR_RUNTIME -fsyntax-only %s
 */
#include <compactptr.h>

CP_SAFEPOINT void step(void);
void step(void) { cp_safepoint(); }

int main(void) {
  step();
  cp_switch_to_wide();
  return 0;
}
