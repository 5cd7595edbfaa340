// container_of with an offset kept at run time, as uthash keeps `hho` in
// its table: `(char *)hhp - tbl->hho`.  The offset is measured in the
// layout the code runs in, so code may step by it when every value the
// translation unit gives the field or variable is measured -- a
// difference of two addresses, an offsetof -- and nothing else can set it
// (its address taken, another file's global).  Switchable code reads it
// as the offset, in the layout of the moment, of the member the value was
// measured to, so every value must name a member, one of them of the type
// the step goes to; compact-only code, which has one layout, may also be
// given zero.  A number written by hand is the wide layout's offset:
// refused in both.
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

// (`braced` gives it zero.)
struct item *owner(struct table *t, struct handle *h) {
  return (struct item *)((char *)h - t->hho); // sw-error {{where the offset it measures stays right (in switchable code, every value it is given must be measured to a member}}
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
  return (struct item *)((char *)h - off);
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
  return (struct item *)((char *)h - t->hho);
}

// Zero among the measured values (the object itself): right in either
// layout, but no member's offset to give in the layout of the moment.
struct table4 { struct handle *first; ptrdiff_t hho; };
void add4(struct table4 *t, struct item *it) {
  t->hho = (char *)&it->hh - (char *)it;
}
void reset4(struct table4 *t) { t->hho = 0; }
struct item *owner4(struct table4 *t, struct handle *h) {
  return (struct item *)((char *)h - t->hho); // sw-error {{an address stepped from another object by an offset computed at run time, which the plugin cannot tell is the start of a 'struct item' (it would differ between the layouts); step back with offsetof(struct item, member), as container_of does, or build the program compact-only (--cp-mode=compact-only), where the offset it measures stays right (in switchable code, every value it is given must be measured to a member, one of them of the type the step goes to)}}
}

// Measured here to a member of another type only: a step to 'struct
// item' from a 'struct handle *' reads it among those and item's 'struct
// handle' members (another file may keep items' offsets in it).
struct CP_COMPACT other { struct other *up; struct handle hh; }; // sw-warning {{embeds 'struct handle'}}
struct table5 { struct handle *first; ptrdiff_t hho; };
void add5(struct table5 *t, struct other *o) {
  t->hho = (char *)&o->hh - (char *)o;
}
struct item *owner5(struct table5 *t, struct handle *h) {
  return (struct item *)((char *)h - t->hho);
}
// Measured to members of two types, a table of each: each step reads the
// offset among its own type's members.
struct table6 { struct handle *first; ptrdiff_t hho; };
void add6(struct table6 *t, struct item *it) {
  t->hho = (char *)&it->hh - (char *)it;
}
void add6o(struct table6 *t, struct other *o) {
  t->hho = (char *)&o->hh - (char *)o;
}
struct item *owner6(struct table6 *t, struct handle *h) {
  return (struct item *)((char *)h - t->hho);
}
struct other *owner6o(struct table6 *t, struct handle *h) {
  return (struct other *)((char *)h - t->hho);
}

// From a member's address (`&e->id`, an `int *`) and from one held as
// `void *` (uthash's HASH_SELECT steps from an element so: `(char *)elt +
// dst_hho`), by an offset measured to a member: steps between an object
// and its member, not through a buffer.
struct table7 { ptrdiff_t ido; };
void add7(struct table7 *t, struct item *it) {
  t->ido = (char *)&it->id - (char *)it;
}
struct item *from_id(struct table7 *t, int *idp) {
  return (struct item *)((char *)idp - t->ido);
}
struct item *from_member(struct table7 *t, struct item *it) {
  return (struct item *)((char *)&it->id - t->ido);
}
struct item *from_void(struct table3 *t, void *hv) {
  return (struct item *)((char *)hv - t->hho);
}
// By an offset the file does not measure: refused, from a member's
// address too (it was taken for the member's own object).
struct item *from_member_param(struct item *it, ptrdiff_t off) {
  return (struct item *)((char *)&it->id - off); // co-error {{as container_of does}} sw-error {{as container_of does}}
}

// A field this file reads but never writes: another file's values (a
// file that only finds in uthash's tables).  A step back from a 'struct
// handle *' reads it as the offset of an item's 'struct handle' member
// (checked when read); forward, or from a pointer to a type no member of
// 'struct item' has, nothing says which member.
struct table8 { struct handle *first; ptrdiff_t hho; };
struct item *owner8(struct table8 *t, struct handle *h) {
  return (struct item *)((char *)h - t->hho);
}
struct item *owner8_long(struct table8 *t, long *l) {
  return (struct item *)((char *)l - t->hho); // co-error {{a pointer moved through a buffer}} sw-error {{a pointer moved through a buffer}}
}
struct item *owner8_forward(struct table8 *t, struct handle *h) {
  return (struct item *)((char *)h + t->hho); // co-error {{as container_of does}} sw-error {{as container_of does}}
}

// A generic step helper above the second element type it serves: it
// cannot name that type's offsets (the generated C named a struct not yet
// declared), so it is refused, in both modes.
struct table9 { struct handle *first; ptrdiff_t hho; };
static void *owner9(struct table9 *t, struct handle *h) {
  return (char *)h - t->hho; // co-error {{this step reads an offset kept at run time that may be the offset of member 'hh' of 'struct late', which is defined after it: the step cannot name that member's offsets here; define 'struct late' before this function}} sw-error {{which is defined after it}}
}
struct CP_COMPACT late { struct late *up; struct handle hh; }; // sw-warning {{embeds 'struct handle'}}
void add9(struct table9 *t, struct item *it, struct late *l) {
  t->hho = (char *)&it->hh - (char *)it;
  t->hho = (char *)&l->hh - (char *)l;
}
struct item *item9(struct table9 *t, struct handle *h) {
  return (struct item *)owner9(t, h);
}
struct late *late9(struct table9 *t, struct handle *h) {
  return (struct late *)owner9(t, h);
}
