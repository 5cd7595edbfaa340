// container_of with an offset kept at run time, as uthash keeps `hho` in
// its table: `(char *)hhp - tbl->hho`.  The offset is measured in the
// layout the code runs in, so compact-only code may step back by it when
// every value the translation unit gives the field or variable is
// measured -- a difference of two addresses, an offsetof, zero -- and
// nothing else can set it (its address taken, another file's global).
// Switchable code is refused either way: after the switch the objects
// are in the wide layout and a kept offset is the compact one; the
// message then names compact-only.  A number written by hand is the wide
// layout's offset: refused in both.
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Xclang -verify=co %s
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify=sw %s
#include <compactptr.h>
#include <stddef.h>

struct handle { struct handle *next; void *key; };
struct table { struct handle *first; ptrdiff_t hho; ptrdiff_t fixed; ptrdiff_t braced; };
struct CP_COMPACT item { int id; struct item *peer; struct handle hh; }; // sw-warning {{embeds 'struct handle'}}

void add(struct table *t, struct item *it) {
  t->hho = (char *)&it->hh - (char *)it; // measured: compact in compact code
  t->fixed = 16;                         // by hand: the wide layout's
  it->hh.next = t->first;
  t->first = &it->hh; // sw-warning {{the address of field 'hh' inside a compact object}}
}
static struct table braced = {0, 0, 0, 24};

struct item *owner(struct table *t, struct handle *h) {
  return (struct item *)((char *)h - t->hho); // sw-error {{an address stepped from another object by an offset computed at run time, which the plugin cannot tell is the start of a 'struct item' (it would differ between the layouts); step back with offsetof(struct item, member), as container_of does, or build the program compact-only (--cp-mode=compact-only), where the offset it measures stays right}}
}
struct item *owner_fixed(struct table *t, struct handle *h) {
  return (struct item *)((char *)h - t->fixed); // co-error {{step back with offsetof(struct item, member), as container_of does}} sw-error {{step back with offsetof(struct item, member), as container_of does}}
}
struct item *owner_braced(struct handle *h) {
  return (struct item *)((char *)h - braced.braced); // co-error {{as container_of does}} sw-error {{as container_of does}}
}

// A local measured once, and one whose address another function sees.
void set_offset(ptrdiff_t *p);
struct item *owner_local(struct item *model, struct handle *h) {
  ptrdiff_t off = (char *)&model->hh - (char *)model;
  return (struct item *)((char *)h - off); // sw-error {{where the offset it measures stays right}}
}
struct item *owner_escaped(struct handle *h) {
  ptrdiff_t off = 0;
  set_offset(&off);
  return (struct item *)((char *)h - off); // co-error {{as container_of does}} sw-error {{as container_of does}}
}

// A parameter's values are its callers': refused, also where the function
// clamps it.
struct item *owner_param(struct handle *h, ptrdiff_t off) {
  if (off < 0)
    off = 0;
  return (struct item *)((char *)h - off); // co-error {{as container_of does}} sw-error {{as container_of does}}
}
// A field of a struct some union holds may be written through another
// member (`u.raw[1] = 16`).
struct table2 { void *first; ptrdiff_t hho; };
union table_bytes { struct table2 t; ptrdiff_t raw[2]; };
void add2(struct table2 *t, struct item *it) {
  t->hho = (char *)&it->hh - (char *)it;
}
struct item *owner2(struct table2 *t, struct handle *h) {
  return (struct item *)((char *)h - t->hho); // co-error {{as container_of does}} sw-error {{as container_of does}}
}
// A local of measured values handed on to the field is measured.
struct table3 { struct handle *first; ptrdiff_t hho; };
void add3(struct table3 *t, struct item *it) {
  ptrdiff_t off = (char *)&it->hh - (char *)it;
  t->hho = off;
}
struct item *owner3(struct table3 *t, struct handle *h) {
  return (struct item *)((char *)h - t->hho); // sw-error {{where the offset it measures stays right}}
}
