/* A header with compact types: rewritten too, its warnings still the user's. */
#include <compactptr.h>
struct CP_COMPACT node { int key; unsigned u; struct node *next; };
static int first_key(struct node *p) { int unused_in_header; return p->key; }
