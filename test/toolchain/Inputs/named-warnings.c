#include <compactptr.h>
#include <stdint.h>
#include <stdlib.h>

struct CP_COMPACT node { int key; struct node *next; };

static void *wrap(void) { return calloc(1, 16); }

uintptr_t h(struct node *p) { return (uintptr_t)p->next; }
struct node *mk(void) { return wrap(); }
