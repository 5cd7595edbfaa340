// A variable in the compact heap whose initializer a macro writes
// (`static LIST_HEAD(name);`, the list head pointing at itself): the
// initializer list is printed from the expansion into the function that
// stores it at the first use, as a compound literal -- not wrapped in
// parentheses, which would make `({ ... })` a statement expression.
// RUN: %rewrite --mode=compact-only --main-only %s -- %cflags > %t.c
// RUN: FileCheck --match-full-lines %s < %t.c
// RUN: %clang %cflags -Wall -Werror -c %t.c -o %t.o
#include <compactptr.h>

struct CP_COMPACT list_head { struct list_head *next, *prev; };
#define LIST_HEAD_INIT(name) { &(name), &(name) }
#define LIST_HEAD(name) struct list_head name = LIST_HEAD_INIT(name)

static LIST_HEAD(active);

int empty(void) { return active.next == &active; }

// CHECK: static __typeof__(cp__box_active) cp__box_init_active(void) { struct list_head * cp__b = (struct list_head *)cp_alloc(&cp__desc_list_head); cp__box_active = cp__b; cp__store_list_head((struct cp__c_list_head *)(void *)cp__b, (struct list_head){((struct list_head *)(&(*(struct cp__c_list_head *)(cp__box_get_active())))), ((struct list_head *)(&(*(struct cp__c_list_head *)(cp__box_get_active()))))}); return cp__b; }
