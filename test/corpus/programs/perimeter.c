/* perimeter.c - perimeter of a region stored as a region quadtree.
 *
 * In the style of the Olden perimeter benchmark (after Samet's algorithm):
 * a quadtree whose nodes know their colour, which child of their parent
 * they are, and their parent; the perimeter of the black region is found
 * by asking, for every black leaf, for its equal-or-greater neighbour on
 * each side, which walks up through parent pointers and back down through
 * the mirrored child.  Shapes: enum fields, five pointers per node with a
 * parent back-link, `typedef struct quad_struct *QuadTree`, a recursive
 * builder taking the parent, switch statements picking a child pointer,
 * and a brute-force pixel count that checks the result.
 *
 * Usage: perimeter [levels]     (default 12: a 4096 x 4096 image)
 */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

typedef enum { black, white, grey } Color;
typedef enum { northwest, northeast, southwest, southeast } ChildType;
typedef enum { north, east, south, west } Direction;

typedef struct CP_COMPACT quad_struct {
  Color color;
  ChildType childtype;
  struct quad_struct *nw;
  struct quad_struct *ne;
  struct quad_struct *sw;
  struct quad_struct *se;
  struct quad_struct *parent;
} quad_struct, *QuadTree;

static long R_out2, R_in2;    /* squared radii (in half-pixel units) of the ring */
static int center;            /* centre of the image, half-pixel units */

/* Is pixel (x, y) in the ring?  Pixel centres are at odd half-pixels. */
static int pixel_black(int x, int y)
{
  long dx = 2L * x + 1 - center, dy = 2L * y + 1 - center;
  long d2 = dx * dx + dy * dy;

  return d2 <= R_out2 && d2 > R_in2;
}

static long dist2_near(long lo, long hi)  /* nearest |c - t| over t in [lo,hi] */
{
  if (center < lo) return (lo - center) * (lo - center);
  if (center > hi) return (center - hi) * (center - hi);
  return 0;
}

static long dist2_far(long lo, long hi)
{
  long a = lo - center, b = hi - center;

  a = a < 0 ? -a : a;
  b = b < 0 ? -b : b;
  return a > b ? a * a : b * b;
}

/* black: every pixel of the block is in the ring; white: none; grey: mixed */
static Color CheckOutside(int x, int y, int size)
{
  long lox = 2L * x + 1, hix = 2L * (x + size - 1) + 1;
  long loy = 2L * y + 1, hiy = 2L * (y + size - 1) + 1;
  long nearest = dist2_near(lox, hix) + dist2_near(loy, hiy);
  long farthest = dist2_far(lox, hix) + dist2_far(loy, hiy);

  if (size == 1)
    return pixel_black(x, y) ? black : white;
  if (nearest > R_out2 || farthest <= R_in2)
    return white;
  if (farthest <= R_out2 && nearest > R_in2)
    return black;
  return grey;
}

static QuadTree MakeTree(int size, int x, int y, QuadTree parent, ChildType ct)
{
  QuadTree retval;

  retval = (QuadTree)malloc(sizeof(quad_struct));
  retval->parent = parent;
  retval->childtype = ct;
  retval->color = CheckOutside(x, y, size);
  if (retval->color == grey) {
    int half = size / 2;

    retval->nw = MakeTree(half, x, y, retval, northwest);
    retval->ne = MakeTree(half, x + half, y, retval, northeast);
    retval->sw = MakeTree(half, x, y + half, retval, southwest);
    retval->se = MakeTree(half, x + half, y + half, retval, southeast);
  } else {
    retval->nw = retval->ne = retval->sw = retval->se = NULL;
  }
  return retval;
}

static int adj(Direction d, ChildType ct)
{
  switch (d) {
  case north: return ct == northwest || ct == northeast;
  case east:  return ct == northeast || ct == southeast;
  case south: return ct == southwest || ct == southeast;
  case west:  return ct == northwest || ct == southwest;
  }
  return 0;
}

static ChildType reflect(Direction d, ChildType ct)
{
  if (d == west || d == east) {
    switch (ct) {
    case northwest: return northeast;
    case northeast: return northwest;
    case southeast: return southwest;
    case southwest: return southeast;
    }
  }
  switch (ct) {
  case northwest: return southwest;
  case northeast: return southeast;
  case southeast: return northeast;
  case southwest: return northwest;
  }
  return ct;
}

static QuadTree child(QuadTree tree, ChildType ct)
{
  switch (ct) {
  case northeast: return tree->ne;
  case northwest: return tree->nw;
  case southeast: return tree->se;
  case southwest: return tree->sw;
  }
  return NULL;
}

static QuadTree gtequal_adj_neighbor(QuadTree tree, Direction d)
{
  QuadTree q, parent;
  ChildType ct;

  parent = tree->parent;
  ct = tree->childtype;
  if (parent != NULL && adj(d, ct))
    q = gtequal_adj_neighbor(parent, d);
  else
    q = parent;
  if (q && q->color == grey)
    return child(q, reflect(d, ct));
  return q;
}

static int sum_adjacent(QuadTree p, ChildType q1, ChildType q2, int size)
{
  if (p->color == grey)
    return sum_adjacent(child(p, q1), q1, q2, size / 2) +
           sum_adjacent(child(p, q2), q1, q2, size / 2);
  if (p->color == white)
    return size;
  return 0;
}

static int perimeter(QuadTree tree, int size)
{
  int retval = 0;
  QuadTree neighbor;

  if (tree->color == grey) {
    int half = size / 2;

    retval += perimeter(tree->sw, half);
    retval += perimeter(tree->se, half);
    retval += perimeter(tree->ne, half);
    retval += perimeter(tree->nw, half);
  } else if (tree->color == black) {
    neighbor = gtequal_adj_neighbor(tree, north);
    if (neighbor == NULL || neighbor->color == white) retval += size;
    else if (neighbor->color == grey) retval += sum_adjacent(neighbor, southeast, southwest, size);
    neighbor = gtequal_adj_neighbor(tree, east);
    if (neighbor == NULL || neighbor->color == white) retval += size;
    else if (neighbor->color == grey) retval += sum_adjacent(neighbor, southwest, northwest, size);
    neighbor = gtequal_adj_neighbor(tree, south);
    if (neighbor == NULL || neighbor->color == white) retval += size;
    else if (neighbor->color == grey) retval += sum_adjacent(neighbor, northwest, northeast, size);
    neighbor = gtequal_adj_neighbor(tree, west);
    if (neighbor == NULL || neighbor->color == white) retval += size;
    else if (neighbor->color == grey) retval += sum_adjacent(neighbor, northeast, southeast, size);
  }
  return retval;
}

static int CountTree(QuadTree tree, int *leaves)
{
  if (tree->color != grey) {
    ++*leaves;
    return 1;
  }
  return 1 + CountTree(tree->nw, leaves) + CountTree(tree->ne, leaves) +
         CountTree(tree->sw, leaves) + CountTree(tree->se, leaves);
}

static void FreeTree(QuadTree tree)
{
  if (tree->color == grey) {
    FreeTree(tree->nw);
    FreeTree(tree->ne);
    FreeTree(tree->sw);
    FreeTree(tree->se);
  }
  free(tree);
}

static long brute_perimeter(int size)
{
  long p = 0;
  int x, y;

  for (y = 0; y < size; y++)
    for (x = 0; x < size; x++)
      if (pixel_black(x, y))
        p += (x == 0 || !pixel_black(x - 1, y)) + (x == size - 1 || !pixel_black(x + 1, y)) +
             (y == 0 || !pixel_black(x, y - 1)) + (y == size - 1 || !pixel_black(x, y + 1));
  return p;
}

int main(int argc, char *argv[])
{
  QuadTree tree;
  int level = 12, size, count, leaves = 0;

  if (argc > 1)
    level = atoi(argv[1]);
  if (level < 2 || level > 14)
    level = 12;
  size = 1 << level;
  center = size;                       /* the middle, in half pixels */
  R_out2 = (long)(size * 0.9) * (long)(size * 0.9);
  R_in2 = (long)(size * 0.35) * (long)(size * 0.35);
  printf("Perimeter with %d levels (%d x %d)\n", level, size, size);
  tree = MakeTree(size, 0, 0, NULL, southeast);
  count = CountTree(tree, &leaves);
  printf("# nodes = %d, # leaves = %d\n", count, leaves);
  printf("perimeter = %d\n", perimeter(tree, size));
  printf("brute force = %ld\n", brute_perimeter(size));
  FreeTree(tree);
  return 0;
}
