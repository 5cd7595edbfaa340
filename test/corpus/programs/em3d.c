/* em3d.c - electromagnetic wave propagation on an irregular bipartite graph.
 *
 * In the style of the em3d kernel (Split-C, later Olden): E nodes and H
 * nodes, each node keeps a malloc'd array of pointers to the nodes it
 * feeds, and every node collects pointers to the *value fields* of the
 * nodes that feed it (`double **from_values`, filled with `&other->value`)
 * with one coefficient each.  Each step recomputes all E values from H
 * values and then all H values from E values.  Shapes: node tables built
 * by a helper (`node_t **make_table`), a struct of tables of tables
 * (`node_t **e_table[PROCS]`, `node_t ***`), a recursive do_all that takes
 * a function parameter, lists through `next`, interior pointers to plain
 * fields of nodes kept in ordinary heap arrays.
 *
 * Usage: em3d [nodes [degree [iterations]]]     (default 40000 10 10)
 */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <assert.h>

#define PROCS 4
#define chatting printf

typedef struct CP_COMPACT node_t {
  double value;
  int from_count;
  int from_length;
  struct node_t *next;
  struct node_t **to_nodes;   /* the nodes this one feeds */
  double **from_values;       /* &value of the nodes that feed this one */
  double *coeffs;
} node_t;

typedef struct table {
  node_t **e_table[PROCS];
  node_t **h_table[PROCS];
} table_t;

typedef struct graph {
  node_t *e_nodes[PROCS];
  node_t *h_nodes[PROCS];
} graph_t;

int n_nodes = 40000, d_nodes = 10, iters = 10;
static unsigned long rng_state;

static void init_random(unsigned long seed) { rng_state = seed * 2654435761UL + 1; }

static unsigned long gen_next(void)
{
  rng_state = rng_state * 6364136223846793005UL + 1442695040888963407UL;
  return rng_state >> 33;
}

static int gen_number(int range) { return (int)(gen_next() % (unsigned long)range); }

static double gen_uniform_double(void) { return (double)gen_next() / 2147483648.0; }

static int check_percent(int percent) { return gen_number(100) < percent; }

static node_t **make_table(int size)
{
  node_t **retval = (node_t **)malloc(size * sizeof(node_t *));
  assert(retval);
  return retval;
}

static void fill_table(node_t **node_table, int size)
{
  node_t *cur_node, *prev_node;
  int i;

  prev_node = (node_t *)malloc(sizeof(node_t));
  node_table[0] = prev_node;
  prev_node->value = gen_uniform_double();
  prev_node->from_count = 0;
  for (i = 1; i < size; i++) {
    cur_node = (node_t *)malloc(sizeof(node_t));
    cur_node->value = gen_uniform_double();
    cur_node->from_count = 0;
    node_table[i] = cur_node;
    prev_node->next = cur_node;
    prev_node = cur_node;
  }
  prev_node->next = NULL;
}

static void make_neighbors(node_t *nodelist, node_t **table[], int tablesz,
                           int degree, int percent_local, int id)
{
  node_t *cur_node;

  for (cur_node = nodelist; cur_node; cur_node = cur_node->next) {
    int j, k;

    cur_node->to_nodes = (node_t **)malloc(degree * sizeof(node_t *));
    for (j = 0; j < degree; j++) {
      node_t *other_node;

      do {
        int dest_proc, number;

        number = gen_number(tablesz);
        if (check_percent(percent_local))
          dest_proc = id;
        else
          dest_proc = (id + 1 + gen_number(PROCS - 1)) % PROCS;
        other_node = table[dest_proc][number];
        for (k = 0; k < j; k++)
          if (other_node == cur_node->to_nodes[k])
            break;
      } while (k < j);
      cur_node->to_nodes[j] = other_node;
      ++other_node->from_count;
    }
  }
}

static void update_from_coeffs(node_t *nodelist)
{
  node_t *cur_node;

  for (cur_node = nodelist; cur_node; cur_node = cur_node->next) {
    int from_count = cur_node->from_count < 1 ? 1 : cur_node->from_count;

    cur_node->from_values = (double **)malloc(from_count * sizeof(double *));
    cur_node->coeffs = (double *)malloc(from_count * sizeof(double));
    cur_node->from_length = 0;
  }
}

static void fill_from_fields(node_t *nodelist, int degree)
{
  node_t *cur_node;

  for (cur_node = nodelist; cur_node; cur_node = cur_node->next) {
    int j;

    for (j = 0; j < degree; j++) {
      node_t *other_node = cur_node->to_nodes[j];
      int count = (other_node->from_length)++;

      other_node->from_values[count] = &cur_node->value;
      other_node->coeffs[count] = gen_uniform_double() / degree;
    }
  }
}

static void make_tables(table_t *table, int groupname)
{
  init_random(793 * (groupname + 1));
  table->h_table[groupname] = make_table(n_nodes / PROCS);
  fill_table(table->h_table[groupname], n_nodes / PROCS);
  table->e_table[groupname] = make_table(n_nodes / PROCS);
  fill_table(table->e_table[groupname], n_nodes / PROCS);
}

static void make_all_neighbors(table_t *table, int groupname)
{
  init_random(39 * (groupname + 1));
  make_neighbors(table->h_table[groupname][0], table->e_table, n_nodes / PROCS,
                 d_nodes, 75, groupname);
  make_neighbors(table->e_table[groupname][0], table->h_table, n_nodes / PROCS,
                 d_nodes, 75, groupname);
}

static void update_all_from_coeffs(table_t *table, int groupname)
{
  update_from_coeffs(table->h_table[groupname][0]);
  update_from_coeffs(table->e_table[groupname][0]);
}

static void fill_all_from_fields(table_t *table, int groupname)
{
  init_random(17 * (groupname + 1));
  fill_from_fields(table->h_table[groupname][0], d_nodes);
  fill_from_fields(table->e_table[groupname][0], d_nodes);
}

static void do_all(table_t *table, int groupname, int nproc,
                   void func(table_t *, int))
{
  if (nproc > 1) {
    do_all(table, groupname + nproc / 2, nproc / 2, func);
    do_all(table, groupname, nproc / 2, func);
  } else {
    func(table, groupname);
  }
}

static graph_t *initialize_graph(void)
{
  table_t *table = (table_t *)malloc(sizeof(table_t));
  graph_t *retval = (graph_t *)malloc(sizeof(graph_t));
  node_t ***tables[2];
  int i, t;

  do_all(table, 0, PROCS, make_tables);
  do_all(table, 0, PROCS, make_all_neighbors);
  do_all(table, 0, PROCS, update_all_from_coeffs);
  do_all(table, 0, PROCS, fill_all_from_fields);
  for (i = 0; i < PROCS; i++) {
    retval->e_nodes[i] = table->e_table[i][0];
    retval->h_nodes[i] = table->h_table[i][0];
  }
  tables[0] = table->e_table;
  tables[1] = table->h_table;
  for (t = 0; t < 2; t++)
    for (i = 0; i < PROCS; i++)
      free(tables[t][i]);
  free(table);
  return retval;
}

static void compute_nodes(node_t *nodelist)
{
  int i;

  for (; nodelist; nodelist = nodelist->next) {
    double cur_value = nodelist->value;
    int from_count = nodelist->from_count;
    double **from_values = nodelist->from_values;
    double *coeffs = nodelist->coeffs;

    for (i = 0; i < from_count; i++)
      cur_value -= coeffs[i] * *from_values[i];
    nodelist->value = cur_value;
  }
}

static double sum_list(node_t *list)
{
  double s = 0;
  int k = 0;

  for (; list; list = list->next)
    s += list->value * (1 + (k++ % 3));
  return s;
}

static void free_list(node_t *list)
{
  while (list) {
    node_t *next = list->next;

    free(list->to_nodes);
    free(list->from_values);
    free(list->coeffs);
    free(list);
    list = next;
  }
}

int main(int argc, char *argv[])
{
  graph_t *graph;
  int i, p;

  if (argc > 1) n_nodes = atoi(argv[1]);
  if (argc > 2) d_nodes = atoi(argv[2]);
  if (argc > 3) iters = atoi(argv[3]);
  if (n_nodes < PROCS * (d_nodes + 1)) {
    fprintf(stderr, "em3d: too few nodes for degree %d\n", d_nodes);
    return 1;
  }
  chatting("EM3D: %d nodes, degree %d, %d iterations\n", n_nodes, d_nodes, iters);
  graph = initialize_graph();
  for (i = 0; i < iters; i++) {
    for (p = 0; p < PROCS; p++)
      compute_nodes(graph->e_nodes[p]);
    for (p = 0; p < PROCS; p++)
      compute_nodes(graph->h_nodes[p]);
    if (i % 5 == 4) {
      double e = 0, h = 0;

      for (p = 0; p < PROCS; p++) {
        e += sum_list(graph->e_nodes[p]);
        h += sum_list(graph->h_nodes[p]);
      }
      chatting("iteration %d: e %.6e h %.6e\n", i + 1, e, h);
    }
  }
  for (p = 0; p < PROCS; p++) {
    free_list(graph->e_nodes[p]);
    free_list(graph->h_nodes[p]);
  }
  free(graph);
  return 0;
}
