// The user's action is preserved: -c, -S, -emit-llvm, -fsyntax-only, -MD.
// REQUIRES: plugin
// RUN: rm -rf %t && mkdir -p %t
// RUN: %clang %cflags -fplugin=%plugin -c %s -o %t/a.o && llvm-nm %t/a.o | FileCheck --check-prefix=OBJ %s
// RUN: %clang %cflags -fplugin=%plugin -S %s -o %t/a.s && FileCheck --check-prefix=ASM %s < %t/a.s
// RUN: %clang %cflags -fplugin=%plugin -S -emit-llvm %s -o %t/a.ll && FileCheck --check-prefix=IR %s < %t/a.ll
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only %s
// RUN: %clang %cflags -fplugin=%plugin -c -MD -MF %t/a.d %s -o %t/b.o && FileCheck --check-prefix=DEP %s < %t/a.d
#include <compactptr.h>
#include <stdlib.h>

struct CP_COMPACT node { int key; struct node *next; };

struct node *make(void) { return malloc(sizeof(struct node)); }

// OBJ: d cp__desc_node
// An allocation site is a safepoint in switchable mode (the default).
// OBJ: U cp_try_alloc
// ASM: .section compactptr_types
// IR: @cp__desc_node = internal global %struct.cp_type_desc
// IR: call ptr @cp_alloc_safepoint(ptr noundef @cp__desc_node)
// DEP: actions.c
// DEP: compactptr.h
