/* barneshut.c - a 2-d Barnes-Hut n-body simulation.
 *
 * In the style of Barnes' tree code as packaged in the Olden bh benchmark:
 * a NODE "base class" whose fields (type, mass, pos) open both BODY and
 * CELL, with pointers converted between nodeptr, bodyptr and cellptr by
 * casts; upper-case accessor macros (Type(x), Mass(x), Subp(x), Next(x))
 * over every field; vector macros that expand to block statements; a free
 * list of cells reused every step; the root and the free list as globals;
 * bodies allocated as one array and walked with a pointer.  Every step
 * rebuilds the tree, computes centres of mass recursively, computes the
 * acceleration of each body by walking the tree with the opening
 * criterion, and advances positions with a leapfrog step.
 *
 * Usage: barneshut [bodies [steps]]       (default 20000 3)
 */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#define NDIM 2
#define NSUB (1 << NDIM)
typedef double real;
typedef real vector[NDIM];

#define CLRV(v) { int _i; for (_i = 0; _i < NDIM; _i++) (v)[_i] = 0.0; }
#define SETV(v, u) { int _i; for (_i = 0; _i < NDIM; _i++) (v)[_i] = (u)[_i]; }
#define ADDV(v, u, w) { int _i; for (_i = 0; _i < NDIM; _i++) (v)[_i] = (u)[_i] + (w)[_i]; }
#define SUBV(v, u, w) { int _i; for (_i = 0; _i < NDIM; _i++) (v)[_i] = (u)[_i] - (w)[_i]; }
#define MULVS(v, u, s) { int _i; for (_i = 0; _i < NDIM; _i++) (v)[_i] = (u)[_i] * (s); }
#define DOTVP(s, v, u) { int _i; (s) = 0.0; for (_i = 0; _i < NDIM; _i++) (s) += (v)[_i] * (u)[_i]; }

/* NODE: the fields common to BODY and CELL */
typedef struct CP_COMPACT node {
  short type;
  real mass;
  vector pos;
} node, *nodeptr;

#define Type(x) ((x)->type)
#define Mass(x) ((x)->mass)
#define Pos(x) ((x)->pos)

#define BODY 01
typedef struct CP_COMPACT bnode *bodyptr;
typedef struct CP_COMPACT bnode {
  short type;
  real mass;
  vector pos;
  vector vel;
  vector acc;
  real phi;
  bodyptr next;
} body;

#define Vel(x) ((x)->vel)
#define Acc(x) ((x)->acc)
#define Phi(x) ((x)->phi)
#define Next(x) ((x)->next)

#define CELL 02
typedef struct CP_COMPACT cnode *cellptr;
typedef struct CP_COMPACT cnode {
  short type;
  real mass;
  vector pos;
  nodeptr subp[NSUB];
  cellptr next;              /* free list link */
} cell;

#define Subp(x) ((x)->subp)
#define FL_Next(x) ((x)->next)

#define eps 0.05
#define tol 0.7
#define dtime 0.0125

nodeptr root;                 /* the tree */
static cellptr freecell;      /* cells of the last step */
static real rmin[NDIM], rsize;
static long ncells, nlive;

static cellptr makecell(void)
{
  cellptr c;
  int i;

  if (freecell == NULL) {
    c = (cellptr)malloc(sizeof(cell));
    ncells++;
  } else {
    c = freecell;
    freecell = FL_Next(c);
  }
  Type(c) = CELL;
  for (i = 0; i < NSUB; i++)
    Subp(c)[i] = NULL;
  nlive++;
  return c;
}

static void freetree(nodeptr p)
{
  int i;

  if (p == NULL || Type(p) == BODY)
    return;
  for (i = 0; i < NSUB; i++)
    freetree(Subp((cellptr)p)[i]);
  FL_Next((cellptr)p) = freecell;
  freecell = (cellptr)p;
  nlive--;
}

static int subindex(real *pos, real *mid)
{
  int i, k = 0;

  for (i = 0; i < NDIM; i++)
    if (pos[i] >= mid[i])
      k |= 1 << i;
  return k;
}

static void loadtree(bodyptr p)
{
  cellptr c = (cellptr)root;
  vector mid;
  real half = rsize / 2;
  int i;

  for (i = 0; i < NDIM; i++)
    mid[i] = rmin[i] + half;
  for (;;) {
    int k = subindex(Pos(p), mid);
    nodeptr q = Subp(c)[k];

    half /= 2;
    if (q == NULL) {
      Subp(c)[k] = (nodeptr)p;
      return;
    }
    if (Type(q) == BODY) {
      /* split: a new cell holds the old body, then descend into it */
      cellptr n = makecell();
      bodyptr b = (bodyptr)q;

      for (i = 0; i < NDIM; i++)
        mid[i] += (k >> i & 1) ? half : -half;
      Subp(n)[subindex(Pos(b), mid)] = q;
      Subp(c)[k] = (nodeptr)n;
      c = n;
      for (i = 0; i < NDIM; i++)   /* undo: the loop below recomputes */
        mid[i] -= (k >> i & 1) ? half : -half;
      q = (nodeptr)n;
    }
    for (i = 0; i < NDIM; i++)
      mid[i] += (k >> i & 1) ? half : -half;
    c = (cellptr)q;
  }
}

/* hackcofm: mass and centre of mass of every cell, bottom up */
static real hackcofm(nodeptr q)
{
  int i;
  vector tmpv, cm;
  real m = 0;

  if (Type(q) == BODY)
    return Mass(q);
  CLRV(cm);
  for (i = 0; i < NSUB; i++) {
    nodeptr r = Subp((cellptr)q)[i];

    if (r != NULL) {
      real rm = hackcofm(r);

      m += rm;
      MULVS(tmpv, Pos(r), rm);
      ADDV(cm, cm, tmpv);
    }
  }
  Mass(q) = m;
  MULVS(Pos(q), cm, 1.0 / m);
  return m;
}

static void gravsub(bodyptr p, nodeptr q)
{
  vector dr, ai;
  real drsq, drabs, phii, mor3;

  SUBV(dr, Pos(q), Pos(p));
  DOTVP(drsq, dr, dr);
  drsq += eps * eps;
  drabs = sqrt(drsq);
  phii = Mass(q) / drabs;
  Phi(p) -= phii;
  mor3 = phii / drsq;
  MULVS(ai, dr, mor3);
  ADDV(Acc(p), Acc(p), ai);
}

static void walksub(bodyptr p, nodeptr q, real dsq)
{
  int i;

  if (q == (nodeptr)p)
    return;
  if (Type(q) == CELL) {
    vector dr;
    real drsq;

    SUBV(dr, Pos(q), Pos(p));
    DOTVP(drsq, dr, dr);
    if (tol * tol * drsq < dsq) {
      for (i = 0; i < NSUB; i++)
        if (Subp((cellptr)q)[i] != NULL)
          walksub(p, Subp((cellptr)q)[i], dsq / 4);
      return;
    }
  }
  gravsub(p, q);
}

static void stepsystem(bodyptr bodytab, int nbody)
{
  bodyptr p;
  int i;

  freetree(root);
  root = (nodeptr)makecell();
  for (p = bodytab; p < bodytab + nbody; p++)
    loadtree(p);
  hackcofm(root);
  for (p = bodytab; p < bodytab + nbody; p++) {
    CLRV(Acc(p));
    Phi(p) = 0.0;
    walksub(p, root, rsize * rsize);
  }
  for (p = bodytab; p < bodytab + nbody; p++) {
    vector dv, dx;

    MULVS(dv, Acc(p), dtime);
    ADDV(Vel(p), Vel(p), dv);
    MULVS(dx, Vel(p), dtime);
    ADDV(Pos(p), Pos(p), dx);
    for (i = 0; i < NDIM; i++) {    /* stay in the box: reflect */
      if (Pos(p)[i] < rmin[i]) { Pos(p)[i] = 2 * rmin[i] - Pos(p)[i]; Vel(p)[i] = -Vel(p)[i]; }
      if (Pos(p)[i] >= rmin[i] + rsize) { Pos(p)[i] = 2 * (rmin[i] + rsize) - Pos(p)[i] - 1e-9; Vel(p)[i] = -Vel(p)[i]; }
    }
  }
}

static unsigned long rstate = 123456789;
static real xrand(real lo, real hi)
{
  rstate = rstate * 1103515245 + 12345;
  return lo + (hi - lo) * (real)((rstate >> 8) % 1000003) / 1000003.0;
}

static bodyptr testdata(int nbody)
{
  bodyptr bodytab = (bodyptr)malloc(nbody * sizeof(body)), p;

  for (p = bodytab; p < bodytab + nbody; p++) {
    real r = xrand(0.05, 0.95), a = xrand(0.0, 6.2831853);

    Type(p) = BODY;
    Mass(p) = 1.0 / nbody;
    Pos(p)[0] = r * cos(a);
    Pos(p)[1] = r * sin(a);
    Vel(p)[0] = -0.3 * Pos(p)[1];
    Vel(p)[1] = 0.3 * Pos(p)[0];
    Next(p) = p + 1 < bodytab + nbody ? p + 1 : NULL;
  }
  return bodytab;
}

int main(int argc, char *argv[])
{
  bodyptr bodytab, p;
  int nbody = 20000, nsteps = 3, i;
  real ke = 0, pe = 0;
  vector cm;

  if (argc > 1) nbody = atoi(argv[1]);
  if (argc > 2) nsteps = atoi(argv[2]);
  if (nbody < 2) nbody = 2;
  rmin[0] = rmin[1] = -2.0;
  rsize = 4.0;
  bodytab = testdata(nbody);
  for (i = 0; i < nsteps; i++)
    stepsystem(bodytab, nbody);
  CLRV(cm);
  for (p = bodytab; p != NULL; p = Next(p)) {
    real v2;
    vector t;

    DOTVP(v2, Vel(p), Vel(p));
    ke += 0.5 * Mass(p) * v2;
    pe += 0.5 * Mass(p) * Phi(p);
    MULVS(t, Pos(p), Mass(p));
    ADDV(cm, cm, t);
  }
  printf("bodies %d steps %d cells %ld (%ld live)\n", nbody, nsteps, ncells, nlive);
  printf("ke %.8f pe %.8f cm %.8f %.8f\n", ke, pe, cm[0], cm[1]);
  printf("root mass %.6f\n", Mass(root));
  freetree(root);
  while (freecell) {
    cellptr c = freecell;

    freecell = FL_Next(c);
    free(c);
  }
  root = NULL;
  free(bodytab);
  return 0;
}
