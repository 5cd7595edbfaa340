// offsetof of a handle field: a generic list routine that reads the link
// at a byte offset (memcpy from (char *)p + offsetof(T, next)) would read
// a 32-bit handle as a pointer.  Refused where the offset is taken; the
// offset of a plain field stays allowed (it is rewritten to the compact
// layout).
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify=expected,sw %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Xclang -verify %s
#include <compactptr.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

struct CP_COMPACT employee {
  int dept;
  struct employee *next;
  struct employee *peers[2];
};

static void *link_of(void *node, size_t off) {
  void *q;
  memcpy(&q, (char *)node + off, sizeof q);
  return q;
}

size_t plain_offset(void) { return offsetof(struct employee, dept); }

void *second(struct employee *e) {
  return link_of(e, offsetof(struct employee, next)); // expected-error {{offsetof names handle field 'next'; in compact layout the bytes there are a 32-bit handle, not a pointer}} sw-warning {{a compact pointer to 'struct employee' is passed as 'void *' to 'link_of'}}
}

size_t peer_offset(void) {
  return offsetof(struct employee, peers[1]); // expected-error {{offsetof names handle field 'peers'}}
}

// A flexible array member of compact pointers: its offset starts the size
// of an allocation of one object (directly, or through a local only
// allocations read), and anything else is refused as above.
struct CP_COMPACT skip {
  int key;
  struct skip *forward[];
};

struct skip *make_skip(int lvl) {
  struct skip *a = malloc(offsetof(struct skip, forward) + lvl * sizeof(struct skip *));
  size_t room = offsetof(struct skip, forward) + (size_t)lvl * sizeof a->forward[0];
  struct skip *b = malloc(room);
  a->forward[0] = b;
  return a;
}

void *first_link(struct skip *s) {
  return link_of(s, offsetof(struct skip, forward)); // expected-error {{offsetof names handle field 'forward'}} sw-warning {{a compact pointer to 'struct skip' is passed as 'void *' to 'link_of'}}
}

size_t forward_bytes(int lvl) {
  return offsetof(struct skip, forward) + (size_t)lvl * 8; // expected-error {{offsetof names handle field 'forward'}}
}
