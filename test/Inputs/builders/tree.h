/* The builder of other-tu.c, declared as any C header would: no
 * annotation on the function. */
#include <compactptr.h>
struct CP_COMPACT tree { int val; struct tree *left, *right; };
struct tree *build(int depth);
/* A leaf of value val (cell.c). */
struct tree *tree_new(int val);
