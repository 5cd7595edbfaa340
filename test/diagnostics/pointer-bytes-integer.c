// An integer made from a compact pointer without a cast: its bytes copied
// into an integer (`memcpy(&v, &p, sizeof v)`, the hash of a set keyed by
// address) or into an array whose elements the function reads as numbers,
// and a difference with a constant address (`(char *)p - (char *)0`).
// The switch moves every object: such a set found 1 of 1000 nodes after
// it, with exit 0 and no word, where `(uintptr_t)p` was warned.  Warned as
// the cast is (integer-cast, the same shapes), and the runtime names the
// site after a switch; a hash is warned only where a switch can come
// (in compact-only and wide builds the address stays the object's, and
// only a tag in its low bits, warned there, can go wrong).  Quiet: a memcpy between two
// pointer variables (a pointer copy), a buffer only copied on, the bytes
// of a field, a difference between two of the program's pointers.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify=expected,sw %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Xclang -verify=expected,co %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=wide -fsyntax-only -Xclang -verify=expected,wd %s
#include <compactptr.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct CP_COMPACT node {
  int id;
  struct node *next;
};

size_t hash_word(struct node *p) {
  uintptr_t v;
  memcpy(&v, &p, sizeof v); // sw-warning {{compact pointer to 'struct node' copied into integer 'v' by 'memcpy' and hashed; the switch to wide mode moves every object, so a table keyed on addresses taken before it finds nothing after it (key the table on a field of the object, or build the program compact-only, which never switches)}}
  return (v >> 3) % 4096;
}

unsigned long kept_word(struct node *p) {
  unsigned long v;
  __builtin_memmove(&v, &p, sizeof v); // sw-warning {{compact pointer to 'struct node' copied into integer 'v' by '__builtin_memmove'; the value does not survive the switch to wide mode, and compact objects are aligned to 4 bytes}} co-warning {{compact pointer to 'struct node' copied into integer 'v' by '__builtin_memmove'; compact objects are aligned}} wd-warning {{compact pointer to 'struct node' copied into integer 'v' by '__builtin_memmove'; the runtime's objects are aligned}}
  return v;
}

size_t hash_bytes(struct node *p) {
  unsigned char b[sizeof p];
  size_t h = 0, i;
  memcpy(b, &p, sizeof p); // sw-warning {{compact pointer to 'struct node' copied into array 'b' by 'memcpy' and hashed}}
  for (i = 0; i < sizeof b; i++)
    h = (h ^ b[i]) * 1099511628211u;
  return h;
}

size_t hash_difference(struct node *p) {
  return (size_t)((const char *)p - (const char *)0) % 1021; // sw-warning {{compact pointer to 'struct node' made an integer by subtracting a constant address and hashed; the switch to wide mode moves every object}}
}

// (Switchable mode gives this function a compact copy: a directive in its
// body is read once, from the wide body.)
ptrdiff_t from_null(struct node *p) {
  return p - (struct node *)NULL; // sw-warning {{compact pointer to 'struct node' made an integer by subtracting a constant address; the value does not survive the switch}} co-warning {{made an integer by subtracting a constant address}} wd-warning {{made an integer by subtracting a constant address}}
}

// The bytes of a pointer that holds a compact object's address, read
// through a byte pointer (uthash's HASH_ADD_PTR and HASH_FIND_PTR hash
// `&e->key` and `&k`): a table built before the switch found 0 of 20000
// after it.  Warned where a switch can come.
struct CP_COMPACT seen {
  void *key;
  unsigned hash;
  struct seen *chain;
};
static unsigned fnv(const unsigned char *b, size_t n) {
  unsigned h = 2166136261u;
  while (n--)
    h = (h ^ *b++) * 16777619u;
  return h;
}
void seen_add(struct seen *e, struct node *p) {
  e->key = p;
  e->hash = fnv((const unsigned char *)&e->key, sizeof e->key); // sw-warning {{the bytes of 'key', which holds the address of a compact 'struct node' (given one at line 74), are read here: hashed or compared, they are the address of the moment, and the switch to wide mode moves every object, so a table keyed on addresses taken before it finds nothing after it (key the table on a field of the object, or build the program compact-only, which never switches)}}
}
unsigned seen_hash(struct node *p) {
  void *k = p;
  return fnv((const unsigned char *)&k, sizeof k) ^ // sw-warning {{the bytes of 'k', which holds the address of a compact 'struct node' (given one at line}}
         fnv((const unsigned char *)&p, sizeof p); // sw-warning {{the bytes of 'p', which holds the address of a compact 'struct node', are read here}}
}
// Quiet: a `void *` no compact address is given to; a field's own bytes.
unsigned other_hash(const char *name, struct node *p) {
  const void *k = name;
  return fnv((const unsigned char *)&k, sizeof k) ^
         fnv((const unsigned char *)&p->id, sizeof p->id);
}

// Quiet: pointer copies, through a buffer too; a field's bytes; a
// distance between two objects.
struct node *copies(struct node *p, struct node *q) {
  struct node *r;
  unsigned char tmp[sizeof p];
  int id;
  memcpy(&r, &p, sizeof r);
  memcpy(tmp, &q, sizeof q);
  memcpy(&q, tmp, sizeof q);
  memcpy(&id, &p->id, sizeof id);
  return id ? r : q;
}

ptrdiff_t distance(struct node *a, struct node *b) {
  return (const char *)a - (const char *)b;
}
