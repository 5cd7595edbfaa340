/* Iterator macros whose loop header is the macro and whose body is the
 * user's code after it, as list_for_each, SLIST_FOREACH and hash-table
 * walkers are written: bodies that allocate (in main, where the switch
 * can happen at the allocation), declare compact-pointer locals, nest
 * another iterator, and iterate over a field of the current element
 * (`FOR_KIDS(k, p)`); <sys/queue.h>'s SLIST with its own macros.
 * Usage: iterators [n] (default 3000).  Prints checksums. */
#include <compactptr.h>
#include <sys/queue.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT dir {
  int id;
  struct dir *next;      /* siblings */
  struct dir *kids;      /* first child */
  SLIST_ENTRY(dir) all;  /* every directory, newest first */
};
SLIST_HEAD(dirlist, dir);

#define FOR_SIBLINGS(d, first) for ((d) = (first); (d) != NULL; (d) = (d)->next)
#define FOR_KIDS(k, parent) FOR_SIBLINGS(k, (parent)->kids)
#define FOR_RANGE(i, n) for ((i) = 0; (i) < (n); (i)++)

static struct dirlist everything = SLIST_HEAD_INITIALIZER(everything);

static struct dir *mkdir_(int id, struct dir *parent) {
  struct dir *d = malloc(sizeof *d);
  d->id = id;
  d->kids = NULL;
  d->next = parent ? parent->kids : NULL;
  if (parent)
    parent->kids = d;
  SLIST_INSERT_HEAD(&everything, d, all);
  return d;
}

static long weigh(struct dir *d) {
  struct dir *k;
  long w = d->id;
  FOR_KIDS(k, d)
    w += weigh(k);
  return w;
}

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 3000, i, made = 1;
  struct dir *root = mkdir_(0, NULL), *d, *k;
#ifdef SWITCH_MIDWAY
  int switched = 0;
#endif
  FOR_RANGE(i, 8)
    mkdir_(made++, root);
  /* Every directory of the first level gets children, allocated in the
   * loop body: each allocation is a safepoint in switchable mode. */
  FOR_KIDS(d, root) {
    struct dir *last = NULL;
    FOR_RANGE(i, n / 8) {
      last = mkdir_(made++, d);
      if (i % 5 == 0)
        mkdir_(made++, last);
    }
#ifdef SWITCH_MIDWAY
    if (!switched++)
      cp_switch_to_wide();
#endif
  }
  long kids2 = 0, ids = 0;
  FOR_KIDS(d, root)
    FOR_KIDS(k, d) {
      kids2++;
      ids += k->id % 97;
    }
  long all = 0, sum = 0;
  SLIST_FOREACH(d, &everything, all) {
    all++;
    sum += d->id;
  }
  /* Take the newest half off the SLIST and mark them (they stay in the tree). */
  while (all > made / 2) {
    struct dir *first = SLIST_FIRST(&everything);
    SLIST_REMOVE_HEAD(&everything, all);
    first->id = -1;
    all--;
  }
  printf("made %d, weight %ld, second level %ld (ids %ld), listed %ld (sum %ld), kept %ld\n",
         made, weigh(root), kids2, ids, all + made - made / 2, sum, all);
  return 0;
}
