/* sparse.c - an orthogonally linked sparse matrix and Gauss-Seidel.
 *
 * In the style of Kundert's Sparse package and the circuit simulators
 * built on it (SPICE): matrix elements are linked both along their row
 * and along their column; the matrix frame holds arrays of row heads,
 * column heads and diagonal pointers; every allocation goes through an
 * ALLOC macro over a project-wide tmalloc() that returns `char *`;
 * elements are inserted into sorted rows through a pointer to the
 * previous link (`ElementPtr *LastAddr`); upper-case accessor macros and
 * FOR_EACH macros hide the fields.  The driver assembles a 2-d Poisson
 * matrix plus random couplings, multiplies it with a vector, transposes
 * it by relinking, and runs Gauss-Seidel sweeps.  Shapes: an allocation
 * wrapper returning `char *` behind a macro, arrays of node pointers
 * allocated through it, pointer-to-pointer insertion, nested accessor
 * macros, a FREE macro that is a block statement.
 *
 * Usage: sparse [grid [sweeps]]      (default 150 20)
 */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

typedef struct CP_COMPACT MatrixElement *ElementPtr;
struct CP_COMPACT MatrixElement {
  double Real;
  int Row;
  int Col;
  ElementPtr NextInRow;
  ElementPtr NextInCol;
};

typedef struct MatrixFrame {
  int Size;
  long Elements;
  ElementPtr *FirstInRow;
  ElementPtr *FirstInCol;
  ElementPtr *Diag;
} *MatrixPtr;

/* the project's allocator, as every module of the simulator uses it */
static long Allocated;
static char *tmalloc(unsigned size)
{
  char *p = calloc(1, size);

  if (p == NULL) {
    fprintf(stderr, "tmalloc: out of memory (%u bytes)\n", size);
    exit(1);
  }
  Allocated++;
  return p;
}

static void txfree(char *p)
{
  free(p);
}

#define ALLOC(type, number) ((type *)tmalloc((unsigned)(sizeof(type) * (number))))
#define FREE(ptr) { if ((ptr) != NULL) txfree((char *)(ptr)); (ptr) = NULL; }

#define ROW(e) ((e)->Row)
#define COL(e) ((e)->Col)
#define VALUE(e) ((e)->Real)
#define NEXT_IN_ROW(e) ((e)->NextInRow)
#define NEXT_IN_COL(e) ((e)->NextInCol)
#define FOR_EACH_IN_ROW(e, m, r) for ((e) = (m)->FirstInRow[r]; (e) != NULL; (e) = NEXT_IN_ROW(e))
#define FOR_EACH_IN_COL(e, m, c) for ((e) = (m)->FirstInCol[c]; (e) != NULL; (e) = NEXT_IN_COL(e))
#define IS_DIAG(e) (ROW(e) == COL(e))

static MatrixPtr spCreate(int size)
{
  MatrixPtr m = ALLOC(struct MatrixFrame, 1);

  m->Size = size;
  m->Elements = 0;
  m->FirstInRow = ALLOC(ElementPtr, size + 1);
  m->FirstInCol = ALLOC(ElementPtr, size + 1);
  m->Diag = ALLOC(ElementPtr, size + 1);
  return m;
}

/* find or create element (row, col) and return it */
static ElementPtr spGetElement(MatrixPtr m, int row, int col)
{
  ElementPtr *LastAddr, pElement, pNew;

  LastAddr = &m->FirstInRow[row];
  while ((pElement = *LastAddr) != NULL && COL(pElement) < col)
    LastAddr = &NEXT_IN_ROW(pElement);
  if (pElement != NULL && COL(pElement) == col)
    return pElement;
  pNew = ALLOC(struct MatrixElement, 1);
  ROW(pNew) = row;
  COL(pNew) = col;
  VALUE(pNew) = 0.0;
  NEXT_IN_ROW(pNew) = pElement;
  *LastAddr = pNew;
  /* column lists: unsorted until spLinkCols */
  NEXT_IN_COL(pNew) = m->FirstInCol[col];
  m->FirstInCol[col] = pNew;
  if (row == col)
    m->Diag[row] = pNew;
  m->Elements++;
  return pNew;
}

/* rebuild every column list in row order: walk rows backwards, push */
static void spLinkCols(MatrixPtr m)
{
  ElementPtr e;
  int r;

  for (r = 1; r <= m->Size; r++)
    m->FirstInCol[r] = NULL;
  for (r = m->Size; r >= 1; r--)
    FOR_EACH_IN_ROW(e, m, r) {
      NEXT_IN_COL(e) = m->FirstInCol[COL(e)];
      m->FirstInCol[COL(e)] = e;
    }
}

static void spMultiply(MatrixPtr m, const double *x, double *y)
{
  ElementPtr e;
  int r;

  for (r = 1; r <= m->Size; r++) {
    double sum = 0.0;

    FOR_EACH_IN_ROW(e, m, r)
      sum += VALUE(e) * x[COL(e)];
    y[r] = sum;
  }
}

/* transpose in place by swapping the roles of the two link sets */
static void spTranspose(MatrixPtr m)
{
  ElementPtr e, *tmp;
  int r, t;

  for (r = 1; r <= m->Size; r++)
    for (e = m->FirstInRow[r]; e != NULL; e = NEXT_IN_COL(e)) {
      ElementPtr n = NEXT_IN_ROW(e);

      NEXT_IN_ROW(e) = NEXT_IN_COL(e);
      NEXT_IN_COL(e) = n;
      t = ROW(e);
      ROW(e) = COL(e);
      COL(e) = t;
    }
  tmp = m->FirstInRow;
  m->FirstInRow = m->FirstInCol;
  m->FirstInCol = tmp;
}

static double spGaussSeidel(MatrixPtr m, const double *b, double *x, int sweeps)
{
  ElementPtr e;
  int s, r;
  double resid = 0.0;

  for (s = 0; s < sweeps; s++) {
    resid = 0.0;
    for (r = 1; r <= m->Size; r++) {
      double sum = b[r], d = VALUE(m->Diag[r]);

      FOR_EACH_IN_ROW(e, m, r)
        if (!IS_DIAG(e))
          sum -= VALUE(e) * x[COL(e)];
      resid += fabs(sum / d - x[r]);
      x[r] = sum / d;
    }
  }
  return resid;
}

static void spDestroy(MatrixPtr m)
{
  int r;

  for (r = 1; r <= m->Size; r++) {
    ElementPtr e = m->FirstInRow[r], n;

    for (; e != NULL; e = n) {
      n = NEXT_IN_ROW(e);
      FREE(e);
    }
  }
  FREE(m->FirstInRow);
  FREE(m->FirstInCol);
  FREE(m->Diag);
  FREE(m);
}

int main(int argc, char *argv[])
{
  int g = argc > 1 ? atoi(argv[1]) : 150, sweeps = argc > 2 ? atoi(argv[2]) : 20;
  int n, i, j, r;
  MatrixPtr m;
  double *x, *y, *b, resid, s1 = 0, s2 = 0;
  unsigned seed = 1;

  if (g < 2) g = 2;
  n = g * g;
  m = spCreate(n);
  for (i = 0; i < g; i++)
    for (j = 0; j < g; j++) {
      r = i * g + j + 1;
      VALUE(spGetElement(m, r, r)) += 4.5;
      if (j > 0) VALUE(spGetElement(m, r, r - 1)) -= 1.0;
      if (j < g - 1) VALUE(spGetElement(m, r, r + 1)) -= 1.0;
      if (i > 0) VALUE(spGetElement(m, r, r - g)) -= 1.0;
      if (i < g - 1) VALUE(spGetElement(m, r, r + g)) -= 1.0;
      seed = seed * 1103515245u + 12345u;
      if (seed % 5 == 0) {                     /* a random weak coupling */
        int c = 1 + (int)((seed >> 8) % (unsigned)n);
        VALUE(spGetElement(m, r, c)) += 0.01;
      }
    }
  spLinkCols(m);
  x = ALLOC(double, n + 1);
  y = ALLOC(double, n + 1);
  b = ALLOC(double, n + 1);
  for (r = 1; r <= n; r++)
    x[r] = (double)(r % 17) / 17.0;
  spMultiply(m, x, y);
  for (r = 1; r <= n; r++)
    s1 += y[r] * r;
  spTranspose(m);
  spMultiply(m, x, y);
  for (r = 1; r <= n; r++) {
    s2 += y[r] * r;
    b[r] = 1.0;
    x[r] = 0.0;
  }
  spTranspose(m);
  resid = spGaussSeidel(m, b, x, sweeps);
  printf("size %d, %ld elements, %ld allocations\n", n, m->Elements, Allocated);
  printf("Ax: %.6f  A'x: %.6f\n", s1, s2);
  printf("gauss-seidel: last change %.6e, x[1] %.8f, x[mid] %.8f\n", resid, x[1], x[n / 2]);
  spDestroy(m);
  FREE(x);
  FREE(y);
  FREE(b);
  return 0;
}
