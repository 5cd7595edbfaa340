// Switchable mode: links into an array of compact objects rebased after a
// realloc moved it, by a difference with the address realloc was handed
// (mcf's idiom, `a[i].link = a + (a[i].link - old)`).  A switch between
// the realloc and the difference translates neither that address nor the
// links (they name freed memory), and the difference then counts
// compact-layout bytes in wide elements: a trial's sum came out as
// garbage, exit 0.  Warned at the difference; quiet where the local is
// the realloc's result or was assigned again, and in compact-only builds,
// which never switch.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Xclang -verify=co %s
// co-no-diagnostics
#include <compactptr.h>
#include <stddef.h>
#include <stdlib.h>

struct CP_COMPACT node {
  long key;
  struct node *link;
};

struct node *grow_copy(struct node *arr, int n) {
  struct node *old = arr;
  arr = realloc(arr, 2 * n * sizeof *arr);
  for (int i = 0; i < n; i++)
    arr[i].link = arr + (arr[i].link - old); // expected-warning {{difference with 'old', which holds the address handed to 'realloc' on line 25: rebasing links into the array it moved goes wrong when the switch to wide mode comes between the two (at a poll or an allocation): the switch translates neither 'old' nor links into the memory it freed, and their difference then counts compact-layout bytes in wide elements; keep indices (`i = p - arr`) before the call and rebuild the links from them, or build the program compact-only, which never switches [-Wcompactptr-realloc-rebase]}}
  return arr;
}

struct node *grow_new(struct node *arr, int n) {
  struct node *bigger = realloc(arr, 2 * n * sizeof *arr);
  for (int i = 0; i < n; i++) {
    // expected-warning@+1 {{difference with 'arr', which holds the address handed to 'realloc' on line 32}}
    ptrdiff_t k = ((char *)bigger[i].link - (char *)arr) / 16;
    bigger[i].link = bigger + k;
  }
  return bigger;
}

// Quiet: indices kept before the call; the realloc's own result; a local
// assigned again after the call.
struct node *grow_by_index(struct node *arr, int n) {
  int *at = malloc(n * sizeof *at);
  for (int i = 0; i < n; i++)
    at[i] = (int)(arr[i].link - arr);
  arr = realloc(arr, 2 * n * sizeof *arr);
  for (int i = 0; i < n; i++)
    arr[i].link = arr + at[i];
  free(at);
  return arr;
}

ptrdiff_t span(struct node *arr, int n) {
  struct node *old = arr;
  arr = realloc(arr, 2 * n * sizeof *arr);
  old = arr;
  return (arr + n) - old;
}

// Quiet: a copy of a local given another value before the realloc.
ptrdiff_t copy_of_old_value(struct node *a, struct node *p, int n) {
  struct node *b = a;
  a = malloc(n * sizeof *a);
  a = realloc(a, 2 * n * sizeof *a);
  return p - b;
}
