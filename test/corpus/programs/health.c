/* health.c - a hierarchical health-care simulation.
 *
 * In the style of the Olden health benchmark: a 4-ary tree of villages,
 * each with a hospital whose patient queues are doubly linked lists with a
 * header node embedded *by value* in the hospital (`struct List waiting`),
 * so list links point into the middle of a village object.  Every time
 * step each village may generate a patient; patients wait, are assessed,
 * are treated or are sent up to the parent village's hospital.  Shapes:
 * header nodes embedded in heap objects and passed as `&v->hosp.waiting`,
 * an array of child pointers (`forward[4]`), a back pointer, list helper
 * functions that allocate and free list cells, a Park-Miller random number
 * generator seeded per village, results returned by value from recursion,
 * globals for the parameters.
 *
 * Usage: health [levels [time]]        (default 6 250)
 */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

#define IA 16807
#define IM 2147483647
#define AM (1.0 / IM)
#define IQ 127773
#define IR 2836
#define MASK 123459876

struct Results {
  long total_patients;
  long total_time;
  long total_hosps;
};

struct CP_COMPACT Patient {
  int hosps_visited;
  int time;
  int time_left;
  struct Village *home_village;
};

struct CP_COMPACT List {
  struct List *forward;
  struct Patient *patient;
  struct List *back;
};

struct Hosp {
  int personnel;
  int free_personnel;
  int num_waiting_patients;
  struct List waiting;
  struct List assess;
  struct List inside;
  struct List up;
};

struct CP_COMPACT Village {
  struct Village *forward[4];
  struct Village *back;
  struct List returned;
  struct Hosp hosp;
  int label;
  long seed;
};

int max_level = 6;
long max_time = 250;
long seed0 = 42;

static float my_rand(long *idum)
{
  long k;
  float answer;

  *idum ^= MASK;
  k = *idum / IQ;
  *idum = IA * (*idum - k * IQ) - IR * k;
  *idum ^= MASK;
  if (*idum < 0)
    *idum += IM;
  answer = (float)(AM * *idum);
  return answer;
}

/* list.c of the original: append at the tail, remove by patient */
static void addList(struct List *list, struct Patient *patient)
{
  struct List *b;

  while (list != NULL) {
    b = list;
    list = list->forward;
  }
  list = (struct List *)malloc(sizeof(struct List));
  list->patient = patient;
  list->forward = NULL;
  list->back = b;
  b->forward = list;
}

static void removeList(struct List *list, struct Patient *patient)
{
  struct List *l1, *l2;

  while (list != NULL && patient != list->patient)
    list = list->forward;
  if (list == NULL)
    return;
  l1 = list->back;
  l2 = list->forward;
  l1->forward = l2;
  if (l2 != NULL)
    l2->back = l1;
  free(list);
}

static struct Village *alloc_tree(int level, int label, struct Village *back)
{
  struct Village *new;
  int i;

  if (level == 0)
    return NULL;
  new = (struct Village *)malloc(sizeof(struct Village));
  for (i = 3; i >= 0; i--)
    new->forward[i] = alloc_tree(level - 1, label * 4 + i + 1, new);
  new->back = back;
  new->label = label;
  new->seed = label * (IQ + seed0);
  new->hosp.personnel = (int)(1 << (level - 1));
  new->hosp.free_personnel = new->hosp.personnel;
  new->hosp.num_waiting_patients = 0;
  new->hosp.assess.forward = NULL;
  new->hosp.waiting.forward = NULL;
  new->hosp.inside.forward = NULL;
  new->hosp.up.forward = NULL;
  new->returned.forward = NULL;
  return new;
}

static void put_in_hosp(struct Hosp *hosp, struct Patient *patient)
{
  patient->hosps_visited++;
  if (hosp->free_personnel > 0) {
    hosp->free_personnel--;
    addList(&hosp->assess, patient);
    patient->time_left = 3;
    patient->time += 3;
  } else {
    addList(&hosp->waiting, patient);
  }
}

static struct Patient *generate_patient(struct Village *village)
{
  long seed = village->seed;
  float rand = my_rand(&seed);
  struct Patient *patient;

  village->seed = seed;
  if (rand > 0.666) {
    patient = (struct Patient *)malloc(sizeof(struct Patient));
    patient->hosps_visited = 0;
    patient->time = 0;
    patient->time_left = 0;
    patient->home_village = village;
    return patient;
  }
  return NULL;
}

static void check_patients_inside(struct Village *village, struct List *list)
{
  struct List *p;

  for (p = list->forward; p != NULL;) {
    struct Patient *patient = p->patient;

    p = p->forward;
    patient->time_left--;
    if (patient->time_left == 0) {
      village->hosp.free_personnel++;
      removeList(&village->hosp.inside, patient);
      addList(&village->returned, patient);
    }
  }
}

static struct List *check_patients_assess(struct Village *village, struct List *list)
{
  struct List *p;
  long seed;
  float rand;

  for (p = list->forward; p != NULL;) {
    struct Patient *patient = p->patient;

    p = p->forward;
    patient->time_left--;
    if (patient->time_left == 0) {
      seed = village->seed;
      rand = my_rand(&seed);
      village->seed = seed;
      if (rand > 0.1 || village->label == 0) {
        removeList(&village->hosp.assess, patient);
        addList(&village->hosp.inside, patient);
        patient->time_left = 10;
        patient->time += 10;
      } else {
        village->hosp.free_personnel++;
        removeList(&village->hosp.assess, patient);
        addList(&village->hosp.up, patient);
      }
    }
  }
  return &village->hosp.up;
}

static void check_patients_waiting(struct Village *village, struct List *list)
{
  struct List *p;

  for (p = list->forward; p != NULL;) {
    struct Patient *patient = p->patient;

    p = p->forward;
    if (village->hosp.free_personnel > 0) {
      village->hosp.free_personnel--;
      patient->time_left = 3;
      patient->time += 3;
      removeList(&village->hosp.waiting, patient);
      addList(&village->hosp.assess, patient);
    } else {
      patient->time++;
    }
  }
}

static struct List *sim(struct Village *village)
{
  struct List *val[4];
  struct Patient *patient;
  struct List *l, *up;
  int i;

  if (village == NULL)
    return NULL;
  for (i = 3; i >= 0; i--)
    val[i] = sim(village->forward[i]);
  for (i = 3; i >= 0; i--) {
    struct List *lst = val[i];

    if (lst == NULL)
      continue;
    for (l = lst->forward; l != NULL;) {
      patient = l->patient;
      l = l->forward;
      removeList(lst, patient);
      put_in_hosp(&village->hosp, patient);
    }
  }
  check_patients_inside(village, &village->hosp.inside);
  up = check_patients_assess(village, &village->hosp.assess);
  check_patients_waiting(village, &village->hosp.waiting);
  if ((patient = generate_patient(village)) != NULL)
    put_in_hosp(&village->hosp, patient);
  return up;
}

static struct Results get_results(struct Village *village)
{
  struct Results r, fval;
  struct List *l;
  int i;

  r.total_patients = r.total_time = r.total_hosps = 0;
  if (village == NULL)
    return r;
  for (i = 3; i >= 0; i--) {
    fval = get_results(village->forward[i]);
    r.total_patients += fval.total_patients;
    r.total_time += fval.total_time;
    r.total_hosps += fval.total_hosps;
  }
  for (l = village->returned.forward; l != NULL; l = l->forward) {
    r.total_patients++;
    r.total_time += l->patient->time;
    r.total_hosps += l->patient->hosps_visited;
  }
  return r;
}

static void free_list(struct List *head, int with_patients)
{
  struct List *l = head->forward, *n;

  for (; l != NULL; l = n) {
    n = l->forward;
    if (with_patients)
      free(l->patient);
    free(l);
  }
  head->forward = NULL;
}

static void free_tree(struct Village *v)
{
  int i;

  if (v == NULL)
    return;
  for (i = 0; i < 4; i++)
    free_tree(v->forward[i]);
  free_list(&v->returned, 1);
  free_list(&v->hosp.waiting, 1);
  free_list(&v->hosp.assess, 1);
  free_list(&v->hosp.inside, 1);
  free_list(&v->hosp.up, 1);
  free(v);
}

int main(int argc, char *argv[])
{
  struct Results results;
  struct Village *top;
  long i;

  if (argc > 1) max_level = atoi(argv[1]);
  if (argc > 2) max_time = atol(argv[2]);
  printf("Columbian Health Care Simulator: %d levels, %ld steps\n", max_level, max_time);
  top = alloc_tree(max_level, 0, NULL);
  for (i = 0; i < max_time; i++) {
    if (i % 50 == 0)
      printf("%ld\n", i);
    sim(top);
  }
  results = get_results(top);
  printf("# of people treated:              %ld people\n", results.total_patients);
  printf("Average length of stay (x1000):   %ld time units\n",
         results.total_patients ? results.total_time * 1000 / results.total_patients : 0);
  printf("Average # of hospitals visited (x1000): %ld\n",
         results.total_patients ? results.total_hosps * 1000 / results.total_patients : 0);
  free_tree(top);
  return 0;
}
