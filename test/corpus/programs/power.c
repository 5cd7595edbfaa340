/* power.c - price-driven optimisation of a power distribution network.
 *
 * In the style of the Olden power benchmark: a root with an array of
 * feeders, each feeder a chain of laterals, each lateral a chain of
 * branches, each branch an array of leaves (customers).  Every round the
 * root posts a price, each leaf answers with its demand, the demands are
 * summed up the tree with line losses, and the root moves its price until
 * supply meets demand.  Shapes: four node types named through
 * `typedef struct lat *Lateral`-style pointer typedefs, arrays of child
 * pointers inside nodes (`Lateral feeders[NUM_FEEDERS]`, `Leaf
 * leaves[LEAVES_PER_BRANCH]`), a by-value `Demand` struct inside every node
 * and returned by value from the recursive compute functions, recursion
 * down `next` chains, floating-point state in the nodes.
 *
 * Usage: power [feeders [rounds]]       (default 40 40)
 */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

#define MAX_FEEDERS 64
#define LATERALS_PER_FEEDER 20
#define BRANCHES_PER_LATERAL 5
#define LEAVES_PER_BRANCH 10

typedef struct demand {
  double P;
  double Q;
} Demand;

typedef struct root *Root;
typedef struct lat *Lateral;
typedef struct br *Branch;
typedef struct leaf *Leaf;

struct CP_COMPACT leaf {
  Demand D;
  double pi_R;
  double pi_I;
};

struct CP_COMPACT br {
  Demand D;
  double alpha;
  double beta;
  double R;
  double X;
  Branch next_branch;
  Leaf leaves[LEAVES_PER_BRANCH];
};

struct CP_COMPACT lat {
  Demand D;
  double alpha;
  double beta;
  double R;
  double X;
  Lateral next_lateral;
  Branch branch;
};

struct CP_COMPACT root {
  Demand D;
  double theta_R;
  double theta_I;
  Demand last;
  double last_theta_R;
  double last_theta_I;
  int nfeeders;
  Lateral feeders[MAX_FEEDERS];
};

/* ----- build.c ----- */

static Leaf build_leaf(void)
{
  Leaf l = (Leaf)malloc(sizeof(struct leaf));

  l->D.P = 1.0;
  l->D.Q = 1.0;
  return l;
}

static Branch build_branch(int i, int j, int num)
{
  Branch b;
  int k;

  if (num == 0)
    return NULL;
  b = (Branch)malloc(sizeof(struct br));
  b->R = 0.0001 * (1 + (i + j + num) % 7);
  b->X = 0.00002 * (1 + (i * 3 + num) % 5);
  b->alpha = 0.0;
  b->beta = 0.0;
  b->next_branch = build_branch(i, j, num - 1);
  for (k = 0; k < LEAVES_PER_BRANCH; k++)
    b->leaves[k] = build_leaf();
  return b;
}

static Lateral build_lateral(int i, int num)
{
  Lateral l;

  if (num == 0)
    return NULL;
  l = (Lateral)malloc(sizeof(struct lat));
  l->next_lateral = build_lateral(i, num - 1);
  l->branch = build_branch(i * BRANCHES_PER_LATERAL, (num - 1) * BRANCHES_PER_LATERAL,
                           BRANCHES_PER_LATERAL);
  l->R = 0.00005 * (1 + (i + num) % 3);
  l->X = 0.00001 * (1 + num % 4);
  l->alpha = 0.0;
  l->beta = 0.0;
  return l;
}

static Root build_tree(int nfeeders)
{
  int i;
  Root t = (Root)malloc(sizeof(struct root));

  t->nfeeders = nfeeders;
  for (i = 0; i < nfeeders; i++)
    t->feeders[i] = build_lateral(i * LATERALS_PER_FEEDER, LATERALS_PER_FEEDER);
  t->theta_R = 0.8;
  t->theta_I = 0.16;
  return t;
}

/* ----- compute.c ----- */

/* A customer's demand at prices (pi_R, pi_I): the quantity that maximises
 * a concave utility, found by a few Newton steps from the last answer. */
static Demand optimize_node(double pi_R, double pi_I, Demand last)
{
  Demand d = last;
  int it;

  for (it = 0; it < 4; it++) {
    double g = 1.0 / (1.0 + d.P) - pi_R;       /* d utility / dP */
    double h = -1.0 / ((1.0 + d.P) * (1.0 + d.P));
    d.P -= g / h;
    if (d.P < 0.0)
      d.P = 0.0;
  }
  d.Q = pi_I > 0.01 ? 0.1 * d.P / pi_I : 10.0 * d.P;
  return d;
}

static Demand Compute_Leaf(Leaf l, double pi_R, double pi_I)
{
  l->pi_R = pi_R;
  l->pi_I = pi_I;
  l->D = optimize_node(pi_R, pi_I, l->D);
  return l->D;
}

static Demand Compute_Branch(Branch br, double theta_R, double theta_I, double pi_R, double pi_I)
{
  Demand a2, tmp;
  double new_pi_R, new_pi_I;
  double a, b, c;
  int i;

  new_pi_R = pi_R + br->alpha * (theta_R + (theta_I * br->X) / br->R);
  new_pi_I = pi_I + br->beta * (theta_I + (theta_R * br->R) / br->X);
  if (br->next_branch != NULL)
    a2 = Compute_Branch(br->next_branch, theta_R, theta_I, new_pi_R, new_pi_I);
  else
    a2.P = a2.Q = 0.0;
  for (i = 0; i < LEAVES_PER_BRANCH; i++) {
    tmp = Compute_Leaf(br->leaves[i], new_pi_R, new_pi_I);
    a2.P += tmp.P;
    a2.Q += tmp.Q;
  }
  a = br->R * br->R + br->X * br->X;
  b = 2 * br->R * br->X * a2.Q - 2 * br->X * br->X * a2.P;
  c = br->R * a2.Q - br->X * a2.P;
  c = c * c;
  br->D.P = a2.P + a * (a2.P * a2.P + a2.Q * a2.Q) * 1e-3;
  br->D.Q = a2.Q + (b + c) * 1e-6;
  br->alpha = -2 * br->R * br->D.P * 1e-3;
  br->beta = -2 * br->X * br->D.Q * 1e-3;
  return br->D;
}

static Demand Compute_Lateral(Lateral l, double theta_R, double theta_I, double pi_R, double pi_I)
{
  Demand a1, a2;
  double new_pi_R, new_pi_I;

  new_pi_R = pi_R + l->alpha * (theta_R + (theta_I * l->X) / l->R);
  new_pi_I = pi_I + l->beta * (theta_I + (theta_R * l->R) / l->X);
  if (l->next_lateral != NULL)
    a1 = Compute_Lateral(l->next_lateral, theta_R, theta_I, new_pi_R, new_pi_I);
  else
    a1.P = a1.Q = 0.0;
  a2 = Compute_Branch(l->branch, theta_R, theta_I, new_pi_R, new_pi_I);
  l->D.P = a1.P + a2.P + l->R * (a2.P * a2.P + a2.Q * a2.Q) * 1e-4;
  l->D.Q = a1.Q + a2.Q + l->X * (a2.P * a2.P + a2.Q * a2.Q) * 1e-4;
  l->alpha = -2 * l->R * l->D.P * 1e-3;
  l->beta = -2 * l->X * l->D.Q * 1e-3;
  return l->D;
}

static int Compute_Tree(Root r, int rounds)
{
  Demand a;
  int i, round;
  double supply = 600.0 * r->nfeeders;

  for (round = 0; round < rounds; round++) {
    r->D.P = r->D.Q = 0.0;
    for (i = 0; i < r->nfeeders; i++) {
      a = Compute_Lateral(r->feeders[i], r->theta_R, r->theta_I, r->theta_R, r->theta_I);
      r->D.P += a.P;
      r->D.Q += a.Q;
    }
    r->last = r->D;
    r->last_theta_R = r->theta_R;
    r->last_theta_I = r->theta_I;
    /* move the price toward balance; stop when it no longer moves */
    r->theta_R *= 1.0 + 0.5 * (r->D.P - supply) / supply;
    r->theta_I *= 1.0 + 0.5 * (r->D.Q - supply * 0.3) / (supply * 0.3);
    if (fabs(r->theta_R - r->last_theta_R) < 1e-9 && fabs(r->theta_I - r->last_theta_I) < 1e-9)
      return round + 1;
  }
  return rounds;
}

static void free_branch(Branch b)
{
  int k;

  while (b) {
    Branch next = b->next_branch;

    for (k = 0; k < LEAVES_PER_BRANCH; k++)
      free(b->leaves[k]);
    free(b);
    b = next;
  }
}

static void free_tree(Root r)
{
  int i;

  for (i = 0; i < r->nfeeders; i++) {
    Lateral l = r->feeders[i];

    while (l) {
      Lateral next = l->next_lateral;

      free_branch(l->branch);
      free(l);
      l = next;
    }
  }
  free(r);
}

int main(int argc, char *argv[])
{
  Root r;
  int nfeeders = 40, rounds = 40, used;

  if (argc > 1) nfeeders = atoi(argv[1]);
  if (argc > 2) rounds = atoi(argv[2]);
  if (nfeeders < 1 || nfeeders > MAX_FEEDERS) nfeeders = 40;
  printf("Power: %d feeders, %d leaves\n", nfeeders,
         nfeeders * LATERALS_PER_FEEDER * BRANCHES_PER_LATERAL * LEAVES_PER_BRANCH);
  r = build_tree(nfeeders);
  used = Compute_Tree(r, rounds);
  printf("rounds %d\n", used);
  printf("TR=%.6f, TI=%.6f, P0=%.4f, Q0=%.4f\n", r->theta_R, r->theta_I, r->D.P, r->D.Q);
  printf("first leaf: P=%.6f pi_R=%.6f\n", r->feeders[0]->branch->leaves[0]->D.P,
         r->feeders[0]->branch->leaves[0]->pi_R);
  free_tree(r);
  return 0;
}
