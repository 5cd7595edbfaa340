// Array bounds are printed as the user spelled them: a bound whose value
// depends on the layout -- a compact object read (variably modified
// types), a compact pointer stepped, the sizeof or offsetof of a compact
// struct -- would keep its wide value (a garbage length, or a buffer sized
// for a wide object and then filled with a compact one).  Refused in the
// modes with handles; wide mode keeps the layout.  A bound computed into a
// local first, or one that only compares compact pointers, is fine.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify=err %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Xclang -verify=err %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=wide -fsyntax-only -Xclang -verify=ok %s
// ok-no-diagnostics
#include <compactptr.h>
#include <stddef.h>
#include <string.h>

struct CP_COMPACT rec {
  int tag;
  struct rec *next;
  int len;
};

static char buf[4096];
static char pool[4 * sizeof(struct rec)]; // err-error-re {{this array bound depends on the compact layout {{.*}}; give the array the struct as its element type (struct T v[4]) or allocate the buffer (malloc(4 * sizeof(struct T)))}}

size_t sizes(struct rec *p, struct rec *q) {
  size_t n = (size_t)p->len;
  char fine[n];                      // a local bound: rewritten where it is read
  char test[1 + (p == q)];           // a comparison: the same in both layouts
  char copy[sizeof *p];              // err-error {{this array bound depends on the compact layout}}
  char span[q - p];                  // err-error {{this array bound depends on the compact layout}}
  char inner[({ int k = p->len; k; })]; // err-error {{this array bound depends on the compact layout}}
  char name[p->len];                 // err-error-re {{this array bound depends on the compact layout {{.*}}; compute it into a local first (size_t n = p->len; char v[n];)}}
  char (*row)[p->next->len] = (void *)buf; // err-error {{this array bound depends on the compact layout}}
  memset(fine, 0, sizeof fine);
  memset(name, 0, sizeof name);
  return sizeof fine + sizeof name + sizeof *row + sizeof test + sizeof copy +
         sizeof span + sizeof inner +
         sizeof(char[p->len]);       // err-error {{this array bound depends on the compact layout}}
}
