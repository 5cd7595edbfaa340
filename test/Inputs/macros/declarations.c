/* Macros that declare variables: a statement macro whose local is
 * initialised from fields, a push macro that allocates into its own local,
 * a GNU statement expression with a local, and iterator macros that
 * declare their cursor in the for loop (`for (struct node *x = ...)`) with
 * the body after the macro and inside it.  Each initialiser reads through
 * compact pointers, so it must be printed rewritten.
 * Usage: declarations (no arguments).  Prints checksums. */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT node {
  struct node *next;
  int a, b;
};

#define ADD_AB(p, acc) do { int sum_ = (p)->a + (p)->b; (acc) += sum_; } while (0)
#define PUSH(head, x) do { struct node *n_ = malloc(sizeof *n_); n_->a = (x); n_->b = 2 * (x); n_->next = (head); (head) = n_; } while (0)
#define SECOND_A(p) __extension__({ struct node *s_ = (p)->next; s_ ? s_->a : -1; })
#define EACH(x, head) for (struct node *x = (head); x; x = x->next)
#define COUNT(head, out) do { int c_ = 0; for (struct node *q_ = (head); q_; q_ = q_->next) c_++; (out) = c_; } while (0)

/* COUNT's loop cannot allocate: in main it would get one poll in front
 * of the expansion (test/Inputs/macros/statements.c); here, in a
 * function of the dual form, none. */
static int count_all(struct node *h) {
  int n;
  COUNT(h, n);
  return n;
}

static long sum_all(struct node *h) {
  long s = 0;
  for (; h; h = h->next)
    ADD_AB(h, s);
  return s;
}

int main(void) {
  struct node *head = NULL;
  int i, count = 0;
  long s = 0;
  for (i = 1; i <= 500; i++) {
    PUSH(head, i);
#ifdef SWITCH_MIDWAY
    if (i == 250)
      cp_switch_to_wide();
#endif
  }
  EACH(x, head)
    s += x->a - x->b;
  count = count_all(head);
  printf("sum %ld, diff %ld, second %d, count %d\n", sum_all(head), s,
         SECOND_A(head), count);
  while (head) {
    struct node *n = head->next;
    free(head);
    head = n;
  }
  return 0;
}
