/* quadtree.c - region quadtree of a disk image and its perimeter (after
 * Olden perimeter, Samet's neighbour-finding algorithm).
 *
 * Builds the quadtree of a 2^levels x 2^levels binary image holding a disk
 * (the top levels first, then the grey squares below them from a loop in
 * main, so allocation is spread over many iterations of main), then
 * computes the perimeter of the black region `passes` times: for each
 * black leaf and each side, find the equal-or-larger neighbour by climbing
 * parent links and descending the mirrored path, then add the side length
 * (white or outside neighbour) or the white leaves along the shared side
 * (grey neighbour).  Self-check: the perimeter equals the one counted
 * directly from the image's row intervals, and the leaf counts agree.
 *
 * Node: 48 bytes native (4 children + parent + 2 ints; malloc chunk 64),
 * 28 bytes compact.
 * Usage: quadtree [levels] [passes]   defaults: 14 10 (quick); full: 19 25
 * Output: "ok quadtree nodes=... perimeter=..." or "FAIL ..." with exit 1. */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

enum { WHITE, BLACK, GREY };
enum { NW, NE, SW, SE };
enum { NORTH, EAST, SOUTH, WEST };

struct CP_COMPACT quad {
  int color;
  int childtype;
  struct quad *child[4];
  struct quad *parent;
};

static long long cx2, cy2, r2x4; /* doubled centre, (2r)^2 */
static long nodes, black_leaves, white_leaves;
static long leaf_visits; /* a side effect, so passes are not folded */

/* Colour of the square [x, x+size) x [y, y+size) of pixels (pixel centres
 * at x+0.5): BLACK if every centre is in the disk, WHITE if none, else
 * GREY. */
static int classify(long long x, long long y, long long size) {
  long long x0 = 2 * x + 1, x1 = 2 * (x + size) - 1;
  long long y0 = 2 * y + 1, y1 = 2 * (y + size) - 1;
  long long nx = cx2 < x0 ? x0 : cx2 > x1 ? x1 : cx2;
  long long ny = cy2 < y0 ? y0 : cy2 > y1 ? y1 : cy2;
  long long fx = cx2 - x0 > x1 - cx2 ? cx2 - x0 : x1 - cx2;
  long long fy = cy2 - y0 > y1 - cy2 ? cy2 - y0 : y1 - cy2;
  if ((nx - cx2) * (nx - cx2) + (ny - cy2) * (ny - cy2) > r2x4) return WHITE;
  if (fx * fx + fy * fy <= r2x4) return BLACK;
  return GREY;
}

static struct quad *build(long long x, long long y, long long size,
                          struct quad *parent, int ct) {
  struct quad *q = malloc(sizeof(struct quad));
  int c = size == 1 ? (classify(x, y, 1) == BLACK ? BLACK : WHITE)
                    : classify(x, y, size);
  if (!q) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  nodes++;
  q->color = c;
  q->childtype = ct;
  q->parent = parent;
  if (c == GREY) {
    long long h = size / 2;
    q->child[NW] = build(x, y, h, q, NW);
    q->child[NE] = build(x + h, y, h, q, NE);
    q->child[SW] = build(x, y + h, h, q, SW);
    q->child[SE] = build(x + h, y + h, h, q, SE);
  } else {
    q->child[NW] = q->child[NE] = q->child[SW] = q->child[SE] = NULL;
    if (c == BLACK) black_leaves++;
    else white_leaves++;
  }
  return q;
}

/* Like build(), but stops at depth `stop`: a grey node there gets no
 * children yet and is recorded in tasks[] (with its square) for main to
 * fill in. */
static struct quad **tasks;
static long long (*task_sq)[3];
static long ntasks;

static struct quad *build_top(long long x, long long y, long long size,
                              struct quad *parent, int ct, int depth, int stop) {
  struct quad *q;
  long long h = size / 2;
  if (depth == stop || size == 1) return build(x, y, size, parent, ct);
  q = malloc(sizeof(struct quad));
  if (!q) {
    fprintf(stderr, "out of memory\n");
    exit(2);
  }
  nodes++;
  q->color = classify(x, y, size);
  q->childtype = ct;
  q->parent = parent;
  q->child[NW] = q->child[NE] = q->child[SW] = q->child[SE] = NULL;
  if (q->color == GREY && depth + 1 == stop) {
    tasks[ntasks] = q;
    task_sq[ntasks][0] = x;
    task_sq[ntasks][1] = y;
    task_sq[ntasks][2] = size;
    ntasks++;
  } else if (q->color == GREY) {
    q->child[NW] = build_top(x, y, h, q, NW, depth + 1, stop);
    q->child[NE] = build_top(x + h, y, h, q, NE, depth + 1, stop);
    q->child[SW] = build_top(x, y + h, h, q, SW, depth + 1, stop);
    q->child[SE] = build_top(x + h, y + h, h, q, SE, depth + 1, stop);
  } else if (q->color == BLACK) {
    black_leaves++;
  } else {
    white_leaves++;
  }
  return q;
}

static int adj(int dir, int ct) {
  switch (dir) {
  case NORTH: return ct == NW || ct == NE;
  case SOUTH: return ct == SW || ct == SE;
  case EAST: return ct == NE || ct == SE;
  default: return ct == NW || ct == SW;
  }
}

static int reflect(int dir, int ct) {
  if (dir == NORTH || dir == SOUTH) return ct ^ 2; /* NW<->SW, NE<->SE */
  return ct ^ 1;                                  /* NW<->NE, SW<->SE */
}

static struct quad *gtequal_adj_neighbor(struct quad *q, int dir) {
  struct quad *n, *parent = q->parent;
  if (parent && adj(dir, q->childtype)) n = gtequal_adj_neighbor(parent, dir);
  else n = parent;
  if (n && n->color == GREY) return n->child[reflect(dir, q->childtype)];
  return n;
}

static long long sum_adjacent(const struct quad *q, int q1, int q2,
                              long long size) {
  if (q->color == GREY)
    return sum_adjacent(q->child[q1], q1, q2, size / 2) +
           sum_adjacent(q->child[q2], q1, q2, size / 2);
  return q->color == WHITE ? size : 0;
}

/* The neighbour's quadrants that touch a node on side `dir` of it. */
static const int facing[4][2] = {{SW, SE}, {NW, SW}, {NW, NE}, {NE, SE}};

static long long perimeter(struct quad *q, long long size) {
  long long p = 0;
  int d;
  if (q->color == GREY) {
    for (d = 0; d < 4; d++) p += perimeter(q->child[d], size / 2);
    return p;
  }
  leaf_visits++;
  if (q->color == WHITE) return 0;
  for (d = 0; d < 4; d++) {
    struct quad *n = gtequal_adj_neighbor(q, d);
    if (!n || n->color == WHITE) p += size;
    else if (n->color == GREY)
      p += sum_adjacent(n, facing[d][0], facing[d][1], size);
  }
  return p;
}

static long long isqrt(long long v) { /* floor(sqrt(v)), v >= 0 */
  long long r = v, y;
  if (v < 2) return v;
  y = (r + 1) / 2;
  while (y < r) {
    r = y;
    y = (r + v / r) / 2;
  }
  return r;
}

/* Black pixels of row y: [*lo, *hi). */
static void row_interval(long long y, long long side, long long *lo,
                         long long *hi) {
  long long dy = 2 * y + 1 - cy2, rem = r2x4 - dy * dy, a, x;
  *lo = *hi = 0;
  if (rem < 0) return;
  a = isqrt(rem);
  /* black iff |2x+1-cx2| <= a */
  x = (cx2 - a) / 2;
  while (x > 0 && 2 * (x - 1) + 1 >= cx2 - a) x--;
  while (2 * x + 1 < cx2 - a) x++;
  *lo = x < 0 ? 0 : x;
  x = (cx2 + a - 1) / 2;
  while (2 * (x + 1) + 1 <= cx2 + a) x++;
  while (2 * x + 1 > cx2 + a) x--;
  *hi = x + 1 > side ? side : x + 1;
  if (*hi < *lo) *hi = *lo;
}

static long long direct_perimeter(long long side) {
  long long y, plo = 0, phi = 0, p = 0;
  for (y = 0; y <= side; y++) {
    long long lo = 0, hi = 0, ov;
    if (y < side) row_interval(y, side, &lo, &hi);
    if (hi > lo) p += 2; /* left and right edges of the row's run */
    ov = (hi < phi ? hi : phi) - (lo > plo ? lo : plo);
    if (ov < 0) ov = 0;
    p += (hi - lo) + (phi - plo) - 2 * ov; /* horizontal edges */
    plo = lo;
    phi = hi;
  }
  return p;
}

static void destroy(struct quad *q) {
  int k;
  if (q->color == GREY)
    for (k = 0; k < 4; k++) destroy(q->child[k]);
  free(q);
}

int main(int argc, char **argv) {
  int levels = argc > 1 ? atoi(argv[1]) : 14;
  int passes = argc > 2 ? atoi(argv[2]) : 10, i;
  long long side, p = 0, expect;
  struct quad *root;
  if (levels < 2 || levels > 24 || passes < 1) {
    fprintf(stderr, "usage: quadtree [levels 2..24] [passes]\n");
    return 2;
  }
  side = 1LL << levels;
  /* an off-centre disk that crosses the image's top edge */
  cx2 = side + side / 7;
  cy2 = side / 3;
  r2x4 = (side * 7 / 10) * (side * 7 / 10);
  { /* the top levels first, then the grey squares below them from a loop
     * in main, so allocation is spread over many iterations of main */
    int stop = levels > 5 ? 4 : 1;
    long t, maxtasks = 1L << (2 * (stop - 1));
    tasks = malloc((size_t)maxtasks * sizeof(struct quad *));
    task_sq = malloc((size_t)maxtasks * sizeof *task_sq);
    if (!tasks || !task_sq) return 2;
    root = build_top(0, 0, side, NULL, 0, 0, stop);
    for (t = 0; t < ntasks; t++) {
      struct quad *q = tasks[t];
      long long x = task_sq[t][0], y = task_sq[t][1], h = task_sq[t][2] / 2;
      q->child[NW] = build(x, y, h, q, NW);
      q->child[NE] = build(x + h, y, h, q, NE);
      q->child[SW] = build(x, y + h, h, q, SW);
      q->child[SE] = build(x + h, y + h, h, q, SE);
    }
    free(tasks);
    free(task_sq);
  }
  expect = direct_perimeter(side);
  for (i = 0; i < passes; i++) {
    p = perimeter(root, side);
    if (p != expect) {
      printf("FAIL quadtree pass=%d perimeter=%lld expected=%lld\n", i, p,
             expect);
      return 1;
    }
  }
  if (black_leaves + white_leaves != nodes - (nodes - 1) / 4 ||
      leaf_visits != (long)passes * (black_leaves + white_leaves)) {
    printf("FAIL quadtree leaves=%ld nodes=%ld\n", black_leaves + white_leaves,
           nodes);
    return 1;
  }
  destroy(root);
  printf("ok quadtree nodes=%ld black=%ld white=%ld perimeter=%lld\n", nodes,
         black_leaves, white_leaves, p);
  return 0;
}
