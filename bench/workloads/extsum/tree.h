/* tree.h - shared by main.c and sum.c of the extsum workload: the node
 * type and the summing function, defined in sum.c. */
#ifndef EXTSUM_TREE_H
#define EXTSUM_TREE_H

#include <compactptr.h>

struct CP_COMPACT tree {
  long val;
  struct tree *left, *right;
};

/* The sum of the values of the tree at t.  Declared pure (it reads the
 * tree and writes nothing), so a caller may fold repeated calls with the
 * same argument into one, as it may for any pure function of another
 * translation unit. */
long tree_sum(const struct tree *t) __attribute__((pure));

#endif
