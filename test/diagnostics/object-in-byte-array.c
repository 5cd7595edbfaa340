// A compact object carved out of a local or global byte array lives outside
// the arena, where no handle can name it.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
#include <compactptr.h>
#include <stdlib.h>

struct CP_COMPACT node { int key; struct node *next; };

static char pool[4096];

struct node *carve(int k) {
  char buf[64];
  struct node *a = (struct node *)(pool + k * 16); // expected-error {{memory of global array 'pool' used as a compact object of type 'struct node'; compact objects must be allocated with malloc}}
  struct node *b = (struct node *)&buf[8]; // expected-error {{memory of local array 'buf' used as a compact object}}
  (void)b;
  return a;
}

// Heap memory through void * or char * is fine.
struct node *fine(void) {
  char *raw = malloc(sizeof(struct node));
  return (struct node *)raw;
}
