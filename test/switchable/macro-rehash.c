// A statement macro that declares its cursors and allocates before the
// loop that assigns them (uthash's bucket expansion): the cursors hold
// nothing the switch must see at the macro's calloc nor at its free, so
// they need no root and the macro builds unchanged.  The table doubles
// eleven times while 40,000 nodes go in; the runs switch while it grows
// (the bucket arrays are compact objects by inference, so the switch can
// come at the macro's own calloc) and match the native build.  uthash's
// own form declares the new bucket array bare and assigns it the calloc's
// result (`struct bucket *nb_; ... nb_ = calloc(...)`): it holds nothing
// at that calloc either (it had been refused: "cannot register 'nb_' as a
// root: it is declared by macro"), also where it sizes the calloc itself
// (`sizeof *nb_`, never evaluated); every other doubling uses that form.
// REQUIRES: plugin
// RUN: %clang %cflags -O1 %s -o %t.native
// RUN: %clang %cflags -O1 -Werror -fplugin=%plugin %s %runtime -o %t
// RUN: %t.native > %t.expect
// RUN: %t | diff %t.expect -
// RUN: env COMPACTPTR_ARENA_LIMIT=256K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: grep -q 'switch to wide mode' %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=640K COMPACTPTR_VERIFY=1 COMPACTPTR_STATS=1 %t 2> %t.err | diff %t.expect -
// RUN: grep -q 'switch to wide mode' %t.err
// RUN: env COMPACTPTR_ARENA_LIMIT=1M COMPACTPTR_VERIFY=1 %t | diff %t.expect -
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  unsigned key;
  struct node *next;
};
struct bucket { // compact by inference: it holds a compact pointer
  struct node *head;
  unsigned count;
};
struct table {
  struct bucket *b;
  unsigned n;
};

#define TABLE_EXPAND(t)                                                        \
  do {                                                                         \
    struct node *p_, *nx_;                                                     \
    unsigned n2_ = 2 * (t)->n;                                                 \
    struct bucket *nb_ = calloc(n2_, sizeof(struct bucket));                   \
    for (unsigned i_ = 0; i_ < (t)->n; i_++)                                   \
      for (p_ = (t)->b[i_].head; p_; p_ = nx_) {                               \
        unsigned h_ = (p_->key * 2654435761u) & (n2_ - 1);                     \
        nx_ = p_->next;                                                        \
        p_->next = nb_[h_].head;                                               \
        nb_[h_].head = p_;                                                     \
        nb_[h_].count++;                                                       \
      }                                                                        \
    free((t)->b);                                                              \
    (t)->b = nb_;                                                              \
    (t)->n = n2_;                                                              \
  } while (0)

#define TABLE_EXPAND_BARE(t)                                                   \
  do {                                                                         \
    struct node *p_, *nx_;                                                     \
    struct bucket *nb_;                                                        \
    unsigned n2_, i_;                                                          \
    n2_ = 2 * (t)->n;                                                          \
    nb_ = calloc(n2_, sizeof *nb_);                                            \
    for (i_ = 0; i_ < (t)->n; i_++)                                            \
      for (p_ = (t)->b[i_].head; p_; p_ = nx_) {                               \
        unsigned h_ = (p_->key * 2654435761u) & (n2_ - 1);                     \
        nx_ = p_->next;                                                        \
        p_->next = nb_[h_].head;                                               \
        nb_[h_].head = p_;                                                     \
        nb_[h_].count++;                                                       \
      }                                                                        \
    free((t)->b);                                                              \
    (t)->b = nb_;                                                              \
    (t)->n = n2_;                                                              \
  } while (0)

int main(void) {
  struct table t = {calloc(8, sizeof(struct bucket)), 8};
  unsigned long sum = 0;
  for (unsigned k = 0; k < 40000; k++) {
    struct node *x = malloc(sizeof *x);
    x->key = k * 7919u;
    unsigned h = (x->key * 2654435761u) & (t.n - 1);
    x->next = t.b[h].head;
    t.b[h].head = x;
    if (++t.b[h].count > 4) {
      if (t.n & 0x5555)
        TABLE_EXPAND(&t);
      else
        TABLE_EXPAND_BARE(&t);
    }
  }
  for (unsigned i = 0; i < t.n; i++) {
    unsigned long c = 0;
    for (struct node *p = t.b[i].head; p; p = p->next)
      c += p->key % 1000;
    sum = sum * 31 + c + t.b[i].count;
  }
  printf("%u buckets, sum %lu\n", t.n, sum);
  return 0;
}
