// A size the program reads at run time says nothing of which compact type
// it makes (GObject's and CPython's generic constructors allocate by the
// class's recorded instance size), and the compact and wide sizes
// differ: the alloc-size error says so and names the fix, a constructor
// per class with sizeof of its own type.  A variable count times sizeof
// stays fine.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Xclang -verify %s
#include <compactptr.h>
#include <stdlib.h>

struct object;
struct klass {
  const char *name;
  size_t instance_size;
};
struct CP_COMPACT object {
  const struct klass *klass;
  struct object *owner;
};

struct object *object_new(const struct klass *k) {
  struct object *o = calloc(1, k->instance_size); // expected-error {{allocation of compact type 'struct object' must have its size expressed as sizeof(struct object) or n * sizeof(struct object); a size read at run time (a class's recorded instance size) does not say which type it makes, and the layouts differ: allocate each type where it is known, with sizeof of its own (a constructor per class)}}
  o->klass = k;
  return o;
}

struct object *objects(size_t n) { return calloc(n, sizeof(struct object)); }
