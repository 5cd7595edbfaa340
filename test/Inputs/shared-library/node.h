#include <compactptr.h>
struct CP_COMPACT node { long v; struct node *next; };
struct node *push(struct node *head, long v);
