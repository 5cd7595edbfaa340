/* Links the installed runtime and allocates through a hand-written
 * descriptor: prints the mode before and after a forced switch. */
#define COMPACTPTR_RUNTIME 1
#include <compactptr.h>
#include <stdio.h>

struct cnode { int key; cp_handle_t next; };
CP_DEFINE_MODULE();
static const cp_field_desc_t fields[] = {
    {"key", 0, 0, CP_FIELD_BYTES, 1, 4, NULL},
    {"next", 4, 8, CP_FIELD_HANDLE, 1, 0, NULL}};
static cp_type_desc_t node = {CP_ABI_VERSION, CP_GRANULE_SHIFT, CP_BUILD_SWITCHABLE,
                              "node", 8, 4, 16, 8, 2, fields, &cp__module, NULL};
CP_REGISTER_TYPE(node);

int main(void) {
  static void *root;
  cp_root_register(&root, 1);
  root = cp_alloc(&node);
  ((struct cnode *)root)->key = 42;
  printf("%s", cp_is_compact() ? "compact" : "wide");
  cp_switch_to_wide();
  printf(" -> %s key=%d\n", cp_is_compact() ? "compact" : "wide", *(int *)root);
  return 0;
}
