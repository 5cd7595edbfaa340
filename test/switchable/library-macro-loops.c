// Loops a library's statement macros bring into main, in the manner of
// utarray: a push that doubles its capacity in a loop and then calls the
// element's copy function through a pointer, a free that calls the
// destructor of each element through a pointer.  The text of such a loop
// is the header's, with no place for a poll.  The doubling loop cannot
// allocate: its poll goes in front of the whole expansion, though the
// expansion allocates (a switch that becomes pending inside it waits only
// for the loop to end).  The destructor loop calls code that may allocate:
// it gets no poll, and a warning says a switch that becomes pending there
// waits for the next safepoint.  Both were refused ("cannot insert a
// safepoint poll"), so utarray could not be used in main.  Runs with a
// switch while main's loop pushes, and with the destructors allocating.
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// RUN: %rewrite -mode=switchable %s -- %cflags | FileCheck %s
// RUN: %clang %cflags -O1 %s -o %t.native && %t.native > %t.expected
// RUN: %clang %cflags -O1 -Wno-unknown-warning-option -fplugin=%plugin -fplugin-arg-compactptr-Wno-compactptr-unpolled-loop %s %runtime -o %t
// RUN: %t | diff %t.expected -
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_HIGH_WATER=20 COMPACTPTR_STATS=1 %t 2>%t.stats | diff %t.expected -
// RUN: FileCheck --check-prefix=STATS %s < %t.stats
// RUN: env COMPACTPTR_ARENA_LIMIT=2M COMPACTPTR_HIGH_WATER=60 COMPACTPTR_VERIFY=1 %t | diff %t.expected -
// STATS: compactptr: switch to wide mode (high-water mark) after {{[0-9]+}} allocations: moved {{[0-9]+}} objects
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  size_t sz;
  void (*copy)(void *dst, const void *src);
  void (*dtor)(void *elt);
} vec_icd;
typedef struct {
  unsigned i, n;
  vec_icd icd;
  char *d;
} vec;

#define VEC_NEW(a, icdp)                                                       \
  do {                                                                         \
    (a) = malloc(sizeof(vec));                                                 \
    (a)->i = (a)->n = 0;                                                       \
    (a)->icd = *(icdp);                                                        \
    (a)->d = NULL;                                                             \
  } while (0)
#define VEC_RESERVE(a, by)                                                     \
  do {                                                                         \
    if ((a)->i + (by) > (a)->n) {                                              \
      char *t_;                                                                \
      while ((a)->i + (by) > (a)->n) {                                         \
        (a)->n = (a)->n ? 2 * (a)->n : 8;                                      \
      }                                                                        \
      t_ = realloc((a)->d, (a)->n * (a)->icd.sz);                              \
      if (!t_)                                                                 \
        abort();                                                               \
      (a)->d = t_;                                                             \
    }                                                                          \
  } while (0)
#define VEC_PUSH(a, p)                                                         \
  do {                                                                         \
    VEC_RESERVE(a, 1);                                                         \
    if ((a)->icd.copy)                                                         \
      (a)->icd.copy((a)->d + (a)->icd.sz * (a)->i++, p);                       \
    else                                                                       \
      memcpy((a)->d + (a)->icd.sz * (a)->i++, p, (a)->icd.sz);                 \
  } while (0)
#define VEC_FREE(a)                                                            \
  do {                                                                         \
    if ((a)->icd.dtor) {                                                       \
      unsigned k_;                                                             \
      for (k_ = 0; k_ < (a)->i; k_++)                                          \
        (a)->icd.dtor((a)->d + k_ * (a)->icd.sz);                              \
    }                                                                          \
    free((a)->d);                                                              \
    free(a);                                                                   \
  } while (0)

struct CP_COMPACT node {
  int key;
  struct node *next;
};
static struct node *gone; /* what the destructors saw, newest first */

static void copy_name(void *dst, const void *src) {
  *(char **)dst = strdup(*(char *const *)src);
}
static void free_name(void *elt) {
  struct node *n = malloc(sizeof *n);
  n->key = (int)strlen(*(char **)elt);
  n->next = gone;
  gone = n;
  free(*(char **)elt);
}

int main(void) {
  vec_icd ints = {sizeof(int), NULL, NULL};
  vec_icd names = {sizeof(char *), copy_name, free_name};
  vec *keys, *labels;
  struct node *head = NULL;
  long sum = 0;
  VEC_NEW(keys, &ints);
  VEC_NEW(labels, &names);
  for (int i = 0; i < 40000; i++) {
    struct node *n = malloc(sizeof *n);
    char buf[16];
    char *p = buf;
    n->key = i;
    n->next = head;
    head = n;
    VEC_PUSH(keys, &i);
    snprintf(buf, sizeof buf, "n%d", i % 1000);
    VEC_PUSH(labels, &p);
  }
  for (unsigned k = 0; k < keys->i; k++)
    sum += ((int *)keys->d)[k];
  for (struct node *n = head; n; n = n->next)
    sum -= n->key;
  VEC_FREE(keys); // expected-warning {{no safepoint poll can go in this loop of main: its body comes from macro 'VEC_FREE'}}
  VEC_FREE(labels); // expected-warning {{no safepoint poll can go in this loop of main: its body comes from macro 'VEC_FREE', and it calls code that may allocate; a switch that becomes pending in it where none is legal (under a compact body, in code the plugin cannot see) waits for the next safepoint (should the arena run out first, the program stops saying so): write the loop outside the macro, or call cp_safepoint() in its body [-Wcompactptr-unpolled-loop]}}
  for (struct node *n = gone; n; n = n->next)
    sum += n->key;
  printf("%ld %s\n", sum, head ? "built" : "empty");
  return 0;
}
// The doubling loop: one poll in front of each push (whose expansion is
// spelled out: it saves `head` around the copy function's call).
// CHECK: {{^}}    { if (cp__safepoint_due()) { {{.*}} cp_safepoint_slow(); {{.*}} } CP__QUIET_BEGIN do { do { if ((keys)->i + (1) > (keys)->n) {
// CHECK: {{^}}    { if (cp__safepoint_due()) { {{.*}} cp_safepoint_slow(); {{.*}} } CP__QUIET_BEGIN do { do { if ((labels)->i + (1) > (labels)->n) {
