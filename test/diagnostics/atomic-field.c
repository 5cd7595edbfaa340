// An _Atomic compact pointer cannot be a field: a handle cannot be loaded
// and stored atomically as the pointer it stands for.  In a compact struct
// it is refused in every mode.  In a plain struct (a lock-free stack's
// head) it would hold a native pointer where the switch never looks: the
// struct is compact by inference in switchable mode, so it is refused
// there too; without a switch the plain struct keeps the pointer natively.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify=both,sw %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Xclang -verify=both %s
#include <compactptr.h>
#include <stdatomic.h>

struct CP_COMPACT node {
  int key;
  _Atomic(struct node *) next; // both-error {{_Atomic compact pointer 'next' is not supported}}
};

struct stack {
  _Atomic(struct node *) top; // sw-error {{_Atomic compact pointer 'top' is not supported}}
  long pushes;
};

struct stack shared;

// An _Atomic struct of compact type by value has a layout of its own
// (clang pads it and may reach it through libatomic) that neither layout
// of its type describes: it built, and after the switch its pointer was
// still a handle.
struct CP_COMPACT leaf {
  int v;
  struct leaf *next;
};
struct CP_COMPACT holder {
  int k;
  _Atomic struct leaf val; // both-error {{_Atomic field 'val' of compact type 'struct leaf' is not supported; make the field a plain struct and guard it with a lock}}
  struct holder *self;
};
