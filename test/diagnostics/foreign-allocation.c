// libc's aligned allocators hand out memory outside the compact heap: an
// object of compact type from them can be neither freed by the runtime
// (cp_free stops the program: a foreign pointer) nor moved by the switch
// (switchable code reads it in the wide layout afterwards, and crashed).
// So they are refused for compact objects in every mode, whichever way
// the memory reaches its type: the result converted (implicitly or by a
// cast), or posix_memalign's out-parameter.  A bucket table is compact by
// inference (it holds node pointers), so it is refused too.  Memory of
// other types from them is left alone.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=wide -fsyntax-only -Xclang -verify %s
#include <compactptr.h>
#include <malloc.h>
#include <stdlib.h>

struct CP_COMPACT node { int key; struct node *next; };
struct bucket { struct node *head; int n; };

int main(void) {
  struct node *a = aligned_alloc(16, sizeof *a); // expected-error {{this 'aligned_alloc' allocates 'struct node' outside the compact heap: the runtime can neither free such an object nor move it at the switch; allocate it with malloc or calloc (a compact object is aligned to its type, not more)}}
  struct bucket *t = (struct bucket *)memalign(64, 8 * sizeof *t); // expected-error {{this 'memalign' allocates 'struct bucket' outside the compact heap}}
  struct bucket *u;
  if (posix_memalign((void **)&u, 64, 8 * sizeof *u)) // expected-error {{this 'posix_memalign' allocates 'struct bucket' outside the compact heap}}
    return 1;
  double *d = aligned_alloc(64, 8 * sizeof *d); // not a compact type
  void *raw;
  if (posix_memalign(&raw, 64, 256)) // bytes, not a compact type
    return 1;
  a->next = 0;
  t->head = u->head = 0;
  free(d);
  free(raw);
  return 0;
}
