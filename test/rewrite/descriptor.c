// Each compact type gets a descriptor at the end of the main file, in the
// compactptr_types section; offsets and sizes come from the C compiler.
// RUN: %rewrite %s -- %cflags | FileCheck --match-full-lines %s
// RUN: %rewrite --mode=wide %s -- %cflags | FileCheck --check-prefix=WIDE %s
#include <compactptr.h>

struct CP_COMPACT node { int key; struct node *next; struct node *kids[2]; };

// CHECK: /* compactptr: type descriptors (mode compact-only) */
// CHECK-NEXT: static const cp_field_desc_t cp__fields_node[] = {
// CHECK-NEXT:   {"key", __builtin_offsetof(struct cp__c_node, key), __builtin_offsetof(struct node, key), CP_FIELD_BYTES, 1, sizeof(((struct node *)0)->key), 0},
// CHECK-NEXT:   {"next", __builtin_offsetof(struct cp__c_node, next), __builtin_offsetof(struct node, next), CP_FIELD_HANDLE, 1, 0, &cp__desc_node},
// CHECK-NEXT:   {"kids", __builtin_offsetof(struct cp__c_node, kids), __builtin_offsetof(struct node, kids), CP_FIELD_HANDLE, 2, 0, &cp__desc_node},
// CHECK-NEXT: };
// CHECK-NEXT: static cp_type_desc_t cp__desc_node = {CP_ABI_VERSION, CP_GRANULE_SHIFT, CP_BUILD_COMPACT_ONLY, "node", sizeof(struct cp__c_node), __alignof__(struct cp__c_node), sizeof(struct node), __alignof__(struct node), 3, cp__fields_node, &cp__module, 0};
// CHECK-NEXT: CP_REGISTER_TYPE(cp__desc_node);
// CHECK-NEXT: CP_DEFINE_MODULE();
// WIDE: {{^}}static cp_type_desc_t cp__desc_node = {CP_ABI_VERSION, CP_GRANULE_SHIFT, CP_BUILD_WIDE, "node"
