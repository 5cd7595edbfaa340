// A struct that points to a compact type, or holds one by value, is itself
// compact (inferred), without an annotation.
// RUN: %rewrite %s -- %cflags | FileCheck --match-full-lines %s
#include <compactptr.h>

struct CP_COMPACT node { int key; struct node *next; };
struct list { struct node *head; long count; };   // points to a compact type
struct pair { struct list l; int tag; };          // holds one by value
struct plain { int a; long b; };                  // neither: untouched

// CHECK: struct list { struct node *head; long count; }; struct cp__c_list { cp_handle_t head; long count; } {{.*}}
// CHECK: struct pair { struct list l; int tag; }; struct cp__c_pair { struct cp__c_list l; int tag; } {{.*}}
// CHECK: struct plain { int a; long b; };                  // neither: untouched

long count(struct list *l) { return l->count; }
// CHECK: long count(struct list *l) { return (((struct cp__c_list *)(l))->count); }
// CHECK: static cp_type_desc_t cp__desc_list = {CP_ABI_VERSION, CP_GRANULE_SHIFT, CP_BUILD_COMPACT_ONLY, "list", sizeof(struct cp__c_list), __alignof__(struct cp__c_list), sizeof(struct list), __alignof__(struct list), 2, cp__fields_list, &cp__module, 0};
