// A byte offset into a compact object written as a number is an offset in
// the wide layout: in the compact layout the fields are elsewhere, and
// `*(int *)((char *)o + 16)` read another field (natively 42; compact-only
// printed garbage and exited 0).  Refused in every mode; an offset that
// says what it measures (offsetof, sizeof) is rewritten for each layout,
// zero is the object itself, and an offset computed at run time is the
// program's own.  sizeof of anything else (`sizeof(void *)`) is a number
// too.  Within a field, or one past it, the bytes are the field's own.
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=wide -fsyntax-only -Xclang -verify %s
#include <compactptr.h>
#include <stddef.h>

struct CP_COMPACT obj {
  struct obj *next;
  struct obj *prev;
  int v;
  char tag[8];
};

#define FIELD_AT(p, off) ((char *)(p) + (off))

int *numbers(struct obj *o) {
  int *a = (int *)((char *)o + 16); // expected-error {{byte offset 16 in a 'struct obj' is written as a number, an offset in the wide layout; in the compact layout the fields are at other offsets, so this reaches other bytes; name the field (&p->field) or use offsetof(struct obj, field)}}
  char b = ((char *)o)[8];          // expected-error {{byte offset 8 in a 'struct obj'}}
  int *c = (int *)(2 * 8 + (unsigned char *)o); // expected-error {{byte offset 16 in a 'struct obj'}}
  int *d = (int *)FIELD_AT(o, 16);  // expected-error {{byte offset 16 in a 'struct obj'}}
  struct obj *e = (struct obj *)((char *)&o->v - 16); // expected-error {{byte offset -16 in a 'struct obj'}}
  int *f = (int *)((char *)o + sizeof(void *)); // expected-error {{byte offset 8 in a 'struct obj'}}
  int *g = (int *)((char *)(void *)o + 8);      // expected-error {{byte offset 8 in a 'struct obj'}}
  return b ? a : c ? c : d ? d : f ? f : g ? g : &e->v;
}

int *named(struct obj *o, size_t i) {
  int *a = (int *)((char *)o + offsetof(struct obj, v));
  char *b = (char *)o + sizeof *o;       // just past the object
  char *c = (char *)o + 0;
  char *d = (char *)o + i;               // the program's own offset
  char *f = (char *)&o->v + 2;           // a byte of the field itself
  char *g = (char *)&o->v + sizeof(int); // one past the field
  char *h = (char *)&o->tag[2] + 1;      // inside an array field
  (void)g, (void)h;
  struct obj *e = (struct obj *)((char *)&o->v - offsetof(struct obj, v));
  return b == c && d == f ? a : &e->v;
}
