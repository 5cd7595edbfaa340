// compact-only: a root array whose every use the plugin sees (a file-static
// or local `T **` only indexed, tested, allocated and freed) holds 4-byte
// handles; any other use keeps it a root array of native pointers.  Both
// builds print what the native build prints.
// RUN: %rewrite --main-only %s -- %cflags > %t.c
// RUN: FileCheck --match-full-lines %s < %t.c
// RUN: %clang %cflags -Wall -Werror %t.c %runtime -o %t && %t > %t.out
// RUN: %clang %cflags -O2 %s -o %t.native && %t.native > %t.native.out
// RUN: diff %t.native.out %t.out
// RUN: FileCheck --check-prefix=OUT %s < %t.out
// RUN: %clang %cflags -O2 -fplugin=%plugin %s %runtime -o %t.plugin && %t.plugin | diff %t.native.out -
// Switchable mode keeps every root array native (the switch widens them).
// RUN: %rewrite --mode=switchable --main-only %s -- %cflags | FileCheck --check-prefix=SW %s
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node { unsigned key; struct node *next; };

static struct node **table;
// CHECK: static cp_handle_t *table;
// SW: static struct node **table;
static unsigned nbuckets;

static void put(unsigned key) {
  struct node *n = malloc(sizeof(struct node));
  n->key = key;
  n->next = table[key % nbuckets];
  // CHECK: cp__sth_known(&(((struct cp__c_node *)(n))->next), ((struct node *)cp_decode((table[key % nbuckets]))));
  table[key % nbuckets] = n;
  // CHECK: cp__sth_known(&(table[key % nbuckets]), n);
}

static unsigned long sum_chains(void) {
  unsigned long s = 0;
  for (unsigned i = 0; i < nbuckets; i++)
    for (struct node *n = table[i]; n; n = n->next)
      s += n->key * (i + 1);
  return s;
}

// Passed to a function: it stays a root array of native pointers.
static unsigned count(struct node **v, unsigned n) {
  unsigned c = 0;
  for (unsigned i = 0; i < n; i++)
    c += v[i] != NULL;
  return c;
}

struct node **exported;
// CHECK: struct node **exported;

int main(void) {
  nbuckets = 64;
  table = malloc(nbuckets * sizeof(struct node *));
  // CHECK: table = ((void *)malloc((unsigned long)(nbuckets) * sizeof(cp_handle_t)));
  if (!table)
    return 1;
  for (unsigned i = 0; i < nbuckets; i++)
    table[i] = NULL;
  for (unsigned k = 0; k < 1000; k++)
    put(k * 2654435761u >> 7);
  if (table != NULL && table[3] == NULL)
    puts("bucket 3 empty");

  // A local, with its size measured through itself.
  struct node **firsts = calloc(nbuckets, sizeof *firsts);
  // CHECK: cp_handle_t *firsts = ((void *)calloc((unsigned long)(nbuckets), sizeof(cp_handle_t)));
  for (unsigned i = 0; i < nbuckets; i++)
    firsts[i] = table[i];
  unsigned heads = 0;
  for (unsigned i = 0; i < nbuckets; i++)
    if (firsts[i])
      heads++;

  // A cast written on the allocation goes; a truth test is fine.
  struct node **casted = (struct node **)calloc(nbuckets, sizeof(struct node *));
  // CHECK: cp_handle_t *casted = ((void *)calloc((unsigned long)(nbuckets), sizeof(cp_handle_t)));
  if (casted)
    for (unsigned i = 0; casted && i < nbuckets; i++)
      casted[i] = firsts[nbuckets - 1 - i];
  heads += casted[0] != NULL;

  // Handed to a function, its address taken, resized, or dereferenced;
  // the assignment's value kept, a declarator in parentheses: native
  // pointers.
  struct node **chained, **kept = chained = malloc(2 * sizeof(struct node *));
  // CHECK: struct node **chained, **kept = chained = ((void *)cp_root_array_alloc((unsigned long)(2)));
  struct node *(*paren) = malloc(2 * sizeof(struct node *));
  // CHECK: struct node *(*paren) = ((void *)cp_root_array_alloc((unsigned long)(2)));
  // An element in an operand that is not evaluated (not rewritten there).
  struct node **measured = malloc(2 * sizeof(struct node *));
  // CHECK: struct node **measured = ((void *)cp_root_array_alloc((unsigned long)(2)));
  measured[0] = measured[1] = table[2];
  heads += (unsigned)(sizeof measured[0]->key / sizeof(unsigned));
  kept[0] = kept[1] = paren[0] = paren[1] = table[1];
  struct node **passed = malloc(nbuckets * sizeof(struct node *));
  // CHECK: struct node **passed = ((void *)cp_root_array_alloc((unsigned long)(nbuckets)));
  struct node **addr = malloc(4 * sizeof(struct node *));
  // CHECK: struct node **addr = ((void *)cp_root_array_alloc((unsigned long)(4)));
  struct node **grown = malloc(2 * sizeof(struct node *));
  // CHECK: struct node **grown = ((void *)cp_root_array_alloc((unsigned long)(2)));
  struct node **deref = malloc(1 * sizeof(struct node *));
  // CHECK: struct node **deref = ((void *)cp_root_array_alloc((unsigned long)(1)));
  struct node **two = malloc(sizeof(struct node *)), **three = NULL;
  // CHECK: struct node **two = ((void *)cp_root_array_alloc(1)), **three = NULL;
  exported = malloc(2 * sizeof(struct node *));
  for (unsigned i = 0; i < nbuckets; i++)
    passed[i] = i % 3 ? table[i] : NULL;
  struct node **pp = &addr[1];
  *pp = table[5];
  addr[0] = addr[2] = addr[3] = NULL;
  grown[0] = grown[1] = table[7];
  grown = realloc(grown, 3 * sizeof(struct node *));
  grown[2] = NULL;
  *deref = table[9];
  two[0] = table[11];
  three = two;
  exported[0] = exported[1] = table[13];
  printf("chains %lu heads %u passed %u addr %u grown %u deref %u two %u exported %u kept %u\n",
         sum_chains(), heads, count(passed, nbuckets), addr[1]->key,
         grown[0]->key + grown[1]->key, deref[0]->key, three[0]->key, exported[1]->key,
         count(chained, 2) + count(paren, 2));
  // OUT: chains {{[0-9]+}} heads {{[0-9]+}} passed {{[0-9]+}} addr {{[0-9]+}} grown {{[0-9]+}} deref {{[0-9]+}} two {{[0-9]+}} exported {{[0-9]+}} kept 4

  for (unsigned i = 0; i < nbuckets; i++)
    while (table[i]) {
      struct node *n = table[i];
      table[i] = n->next;
      free(n);
    }
  free(table);
  // CHECK: free(table);
  table = NULL;
  free(firsts);
  free(passed);
  // CHECK: cp_root_array_free((void **)(passed));
  free(addr);
  free(grown);
  free(deref);
  free(two);
  free(exported);
  free(casted);
  free(kept);
  free(paren);
  free(measured);
  return 0;
}
