/*
 * testtypes.h - hand-written compact and wide layouts with their type
 * descriptors, as the plugin generates them, for the runtime tests.
 *
 *   node   { int key; node *next, *prev; }             wide 24, compact 12
 *   tree   { long val; tree *left, *right, *parent; int tag; }
 *                                                      wide 40, compact 24
 *   graph  { int id; graph *kids[4]; short deg; }      wide 48, compact 24
 *   pair   { node *a, *b; }                            wide 16, compact 8
 *   holder { char tag[3]; pair p[2]; double d; }       wide 48, compact 32
 *
 * Accessors pick the layout by mode, the way checked code does.
 */
#ifndef CP_TEST_TYPES_H
#define CP_TEST_TYPES_H

#define COMPACTPTR_RUNTIME 1
#include <compactptr.h>
#include <stddef.h>
#include <string.h>

struct w_node { int key; struct w_node *next, *prev; };
struct c_node {
  int key;
  cp_handle_t next, prev;
#if CP_GRANULE_SHIFT == 3
  uint32_t pad; /* compact sizes are multiples of the granule */
#endif
};
struct w_tree { long val; struct w_tree *left, *right, *parent; int tag; };
struct c_tree { long val; cp_handle_t left, right, parent; int tag; };
struct w_graph { int id; struct w_graph *kids[4]; short deg; };
struct c_graph { int id; cp_handle_t kids[4]; short deg; };
struct w_pair { struct w_node *a, *b; };
struct c_pair { cp_handle_t a, b; };
struct w_holder { char tag[3]; struct w_pair p[2]; double d; };
struct c_holder { double d; struct c_pair p[2]; char tag[3]; };

extern cp_type_desc_t node_desc, tree_desc, graph_desc, pair_desc, holder_desc;

#define FIELD(name, ct, wt, f, kind, count, size, target)                      \
  {name, offsetof(ct, f), offsetof(wt, f), kind, count, size, target}
#define DESC(var, nm, ct, wt, fields)                                          \
  cp_type_desc_t var = {CP_ABI_VERSION, CP_GRANULE_SHIFT, CP_BUILD_SWITCHABLE, \
                        nm, sizeof(ct), _Alignof(ct), sizeof(wt),              \
                        _Alignof(wt), sizeof fields / sizeof fields[0],        \
                        fields, &cp__module, NULL}

/* Define the descriptors in exactly one file per test program. */
#ifdef CP_TEST_DEFINE_TYPES
CP_DEFINE_MODULE();
static const cp_field_desc_t node_fields[] = {
    FIELD("key", struct c_node, struct w_node, key, CP_FIELD_BYTES, 1, 4, NULL),
    FIELD("next", struct c_node, struct w_node, next, CP_FIELD_HANDLE, 1, 0, &node_desc),
    FIELD("prev", struct c_node, struct w_node, prev, CP_FIELD_HANDLE, 1, 0, &node_desc),
};
static const cp_field_desc_t tree_fields[] = {
    FIELD("val", struct c_tree, struct w_tree, val, CP_FIELD_BYTES, 1, 8, NULL),
    FIELD("left", struct c_tree, struct w_tree, left, CP_FIELD_HANDLE, 1, 0, &tree_desc),
    FIELD("right", struct c_tree, struct w_tree, right, CP_FIELD_HANDLE, 1, 0, &tree_desc),
    FIELD("parent", struct c_tree, struct w_tree, parent, CP_FIELD_HANDLE, 1, 0, &tree_desc),
    FIELD("tag", struct c_tree, struct w_tree, tag, CP_FIELD_BYTES, 1, 4, NULL),
};
static const cp_field_desc_t graph_fields[] = {
    FIELD("id", struct c_graph, struct w_graph, id, CP_FIELD_BYTES, 1, 4, NULL),
    FIELD("kids", struct c_graph, struct w_graph, kids, CP_FIELD_HANDLE, 4, 0, &graph_desc),
    FIELD("deg", struct c_graph, struct w_graph, deg, CP_FIELD_BYTES, 1, 2, NULL),
};
static const cp_field_desc_t pair_fields[] = {
    FIELD("a", struct c_pair, struct w_pair, a, CP_FIELD_HANDLE, 1, 0, &node_desc),
    FIELD("b", struct c_pair, struct w_pair, b, CP_FIELD_HANDLE, 1, 0, &node_desc),
};
static const cp_field_desc_t holder_fields[] = {
    FIELD("d", struct c_holder, struct w_holder, d, CP_FIELD_BYTES, 1, 8, NULL),
    FIELD("p", struct c_holder, struct w_holder, p, CP_FIELD_STRUCT, 2, 0, &pair_desc),
    FIELD("tag", struct c_holder, struct w_holder, tag, CP_FIELD_BYTES, 1, 3, NULL),
};
DESC(node_desc, "node", struct c_node, struct w_node, node_fields);
DESC(tree_desc, "tree", struct c_tree, struct w_tree, tree_fields);
DESC(graph_desc, "graph", struct c_graph, struct w_graph, graph_fields);
DESC(pair_desc, "pair", struct c_pair, struct w_pair, pair_fields);
DESC(holder_desc, "holder", struct c_holder, struct w_holder, holder_fields);
CP_REGISTER_TYPE(node_desc);
CP_REGISTER_TYPE(tree_desc);
CP_REGISTER_TYPE(graph_desc);
CP_REGISTER_TYPE(pair_desc);
CP_REGISTER_TYPE(holder_desc);
#endif

/* Generic accessors through a descriptor's field table: field `f`, element
 * `j`, in the layout of the current mode. */
static inline void *link_get(void *obj, const cp_type_desc_t *d, unsigned f,
                             unsigned j) {
  const cp_field_desc_t *fd = &d->fields[f];
  if (cp_is_compact())
    return cp_decode(((cp_handle_t *)((char *)obj + fd->compact_offset))[j]);
  return ((void **)((char *)obj + fd->wide_offset))[j];
}
static inline void link_set(void *obj, const cp_type_desc_t *d, unsigned f,
                            unsigned j, void *target) {
  const cp_field_desc_t *fd = &d->fields[f];
  if (cp_is_compact())
    ((cp_handle_t *)((char *)obj + fd->compact_offset))[j] = cp_encode(target);
  else
    ((void **)((char *)obj + fd->wide_offset))[j] = target;
}
static inline void *field_addr(void *obj, const cp_type_desc_t *d, unsigned f) {
  const cp_field_desc_t *fd = &d->fields[f];
  return (char *)obj + (cp_is_compact() ? fd->compact_offset : fd->wide_offset);
}
static inline size_t obj_stride(const cp_type_desc_t *d) {
  return cp_is_compact() ? d->compact_size : d->wide_size;
}
#define NODE_KEY(p) (*(int *)field_addr((p), &node_desc, 0))
#define NODE_NEXT(p) link_get((p), &node_desc, 1, 0)
#define NODE_PREV(p) link_get((p), &node_desc, 2, 0)
#define SET_NEXT(p, q) link_set((p), &node_desc, 1, 0, (q))
#define SET_PREV(p, q) link_set((p), &node_desc, 2, 0, (q))

#endif
