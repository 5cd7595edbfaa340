#include <compactptr.h>
#include <stdint.h>
#include <stdlib.h>

struct CP_COMPACT node { int key; struct node *next; };

void *wrap(void); /* defined in another file: the plugin cannot see its memory */

uintptr_t h(struct node *p) { return (uintptr_t)p->next; }
struct node *mk(void) { return wrap(); }
