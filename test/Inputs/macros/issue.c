/* The reduced case of macro-wrapped accesses that used to be refused:
 * statement macros, accessor macros on handle and plain fields, a macro
 * inside a macro, calls and allocations in macro arguments.  Prints "1 2".
 * Built with -DSWITCH_MIDWAY (switchable mode), it switches to wide mode
 * half way. */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
struct CP_COMPACT node { long key; struct node *next; };
#define NEXT(P) ((*(P)).next)
#define KEY(P)  ((*(P)).key)
#define LAST(P) (NEXT(P) == NULL)
#define NEW(h, v) { h = mk(v); }
#define TRY(exp, ok) { (exp); if (!(ok)) exit(1); }
#define check(num, a) if (!(a)) { printf("Assertion failure:%d\n", num); exit(-1); }
static struct node *mk(long v) { struct node *n = malloc(sizeof *n); n->key = v; n->next = 0; return n; }
static struct node *find(struct node *h, long k) { for (; h; h = h->next) if (h->key == k) return h; return 0; }
int main(void) {
  struct node *a, *b;
  NEW(a, 1);                                   
  TRY(b = (struct node *)malloc(sizeof(struct node)), b != NULL);   
#ifdef SWITCH_MIDWAY
  cp_switch_to_wide(); /* the switch, between the two halves */
#endif
  NEXT(a) = b; NEXT(b) = NULL;                 
  KEY(b) = 2;                                  
  check(3, !find(a, 7));                       
  printf("%d %ld\n", LAST(b), KEY(NEXT(a)));   
  return 0;
}
