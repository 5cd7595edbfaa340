// The compact size: pointers to compact types become 4-byte handles (also
// in arrays), a nested compact struct takes its compact size, other fields
// keep theirs, fields are ordered by alignment (largest first) and the
// struct is aligned to at least 4 bytes, as passes/Layout.cpp does.
// RUN: compactptr-advise %s -- %cflags | FileCheck %s
#include <stdlib.h>

// Wide: 4 + pad 4 + 4 * 8 + 2 * 8 = 56.  Compact: doubles first (16), then
// n and the four handles (4 + 16) = 36, rounded to 8-byte alignment: 40.
struct quad {
  int n;
  struct quad *kids[4];
  double x, y;
};

// Holds a compact struct by value: it is compact too, and its size uses
// the nested struct's compact layout.  A pointer to a struct that is not
// compact (struct name is never allocated) stays 8 bytes:
// wide 56 + 8 + 8 = 72; compact 40 + 8 + 4 = 52, rounded to 56.
struct name { char s[16]; };
struct pair {
  struct quad q;
  struct pair *next;
  struct name *label;
};

// Two chars and a handle: 24 bytes wide, 1 + 1 + 4 = 6 compact, rounded to
// 8 at the 4-byte minimum alignment.
struct tiny {
  char a;
  struct tiny *next;
  char b;
};

struct quad *mq(void) { return malloc(sizeof(struct quad)); }
struct pair *mp(void) { return malloc(sizeof(struct pair)); }
struct tiny *mt(void) { return malloc(sizeof(struct tiny)); }

// Ranked by score, ties by name.
// CHECK: struct pair: clean
// CHECK: size: 72 bytes wide, 56 bytes compact, 16 saved per object
// CHECK: struct quad: clean
// CHECK: size: 56 bytes wide, 40 bytes compact, 16 saved per object
// CHECK: struct tiny: clean
// CHECK: size: 24 bytes wide, 8 bytes compact, 16 saved per object
