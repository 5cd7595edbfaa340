// Globals, file statics and static locals that hold compact pointers, or wide values of
// compact types, get root descriptors in the compactptr_roots section (the
// switch translates them).  Extern declarations and plain data do not.  A
// global of compact type with external linkage lives in the compact heap
// (Boxing.cpp): the root is its pointer.
// RUN: %rewrite --main-only %s -- %cflags > %t.c
// RUN: FileCheck --match-full-lines %s < %t.c
// RUN: %clang %cflags -Wall -Werror -c %t.c -o %t.o
#include <compactptr.h>

struct CP_COMPACT node { int key; struct node *next; };
struct list { struct node *head; int n; };

struct node *g_head;
static struct node *s_slots[8];
struct list g_list;
static struct list s_list;
extern struct node *elsewhere;
int plain;

struct node *cached(void) {
  static struct node *cache;
  return cache;
}
// CHECK: static struct node *cache; static const cp_root_desc_t cp__root_cache = {(void *)&cache, CP_ROOT_POINTER, 1, &cp__desc_node, "cache"}; CP_REGISTER_ROOT(cp__root_cache);

// CHECK: static const cp_root_desc_t cp__root_g_head = {(void *)&g_head, CP_ROOT_POINTER, 1, &cp__desc_node, "g_head"};
// CHECK-NEXT: CP_REGISTER_ROOT(cp__root_g_head);
// CHECK-NEXT: static const cp_root_desc_t cp__root_s_slots = {(void *)&s_slots, CP_ROOT_POINTER, 8, &cp__desc_node, "s_slots"};
// CHECK-NEXT: CP_REGISTER_ROOT(cp__root_s_slots);
// CHECK-NEXT: static const cp_root_desc_t cp__root_g_list = {(void *)&cp__box_g_list, CP_ROOT_POINTER, 1, &cp__desc_list, "g_list"};
// CHECK-NEXT: CP_REGISTER_ROOT(cp__root_g_list);
// CHECK-NEXT: static const cp_root_desc_t cp__root_s_list = {(void *)&s_list, CP_ROOT_VALUE, 1, &cp__desc_list, "s_list"};
// CHECK-NEXT: CP_REGISTER_ROOT(cp__root_s_list);
// CHECK-NEXT: CP_DEFINE_MODULE();
