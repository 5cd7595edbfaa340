// An array of compact structs whose elements' addresses are used as
// compact pointers lives in the compact heap as one heap array: the
// declarator becomes a pointer to the array (a root), the getter
// allocates it at its first use with cp_alloc_array, and uses read it in
// compact layout through a pointer to an array of the compact struct, so
// `sizeof` and indexing agree with each other in every layout.  A static
// initializer is stored element by element (elements it leaves out stay
// zero: the heap array is allocated zeroed).
// RUN: %rewrite --mode=compact-only --main-only %s -- %cflags > %t.c
// RUN: FileCheck --match-full-lines %s < %t.c
// RUN: %clang %cflags -Wall -Werror -c %t.c -o %t.o
#include <compactptr.h>

struct CP_COMPACT cell { struct cell *next; int w; };

static struct cell grid[2][3];
// CHECK: static struct cell (*cp__box_grid)[2][3]; static __typeof__(cp__box_grid) cp__box_init_grid(void); static __inline__ __attribute__((unused)) __typeof__(cp__box_grid) cp__box_get_grid(void) { __typeof__(cp__box_grid) cp__p = cp__box_grid; return __builtin_expect(cp__p != 0, 1) ? cp__p : cp__box_init_grid(); }
struct cell ring[4] = {{&ring[1], 1}, {0, 0}, {&ring[0], 3}};
// CHECK: struct cell (*cp__box_ring)[4]; {{.*}}

unsigned long cells(void) { return sizeof grid / sizeof grid[0][0]; }
// CHECK: unsigned long cells(void) { return sizeof((*(__typeof__(struct cp__c_cell (*)[2][3]))(cp__box_get_grid()))) / sizeof((((*(__typeof__(struct cp__c_cell (*)[2][3]))(cp__box_get_grid()))[0])[0])); }

struct cell *at(int r, int c) { return &grid[r][c]; }
// CHECK: struct cell *at(int r, int c) { return ((struct cell *)(&(((*(__typeof__(struct cp__c_cell (*)[2][3]))(cp__box_get_grid()))[r])[c]))); }

// CHECK: static __typeof__(cp__box_grid) cp__box_init_grid(void) { __typeof__(struct cell (*)[2][3]) cp__b = (__typeof__(struct cell (*)[2][3]))cp_alloc_array(&cp__desc_cell, 6); cp__box_grid = cp__b; return cp__b; }
// CHECK: __typeof__(cp__box_ring) cp__box_init_ring(void) { __typeof__(struct cell (*)[4]) cp__b = (__typeof__(struct cell (*)[4]))cp_alloc_array(&cp__desc_cell, 4); cp__box_ring = cp__b; __extension__({ cp__store_cell(&((struct cp__c_cell *)(void *)cp__b)[0], (struct cell){{.*}}); cp__store_cell(&((struct cp__c_cell *)(void *)cp__b)[1], (struct cell){0, 0}); cp__store_cell(&((struct cp__c_cell *)(void *)cp__b)[2], (struct cell){{.*}}); (void)0; }); return cp__b; }
