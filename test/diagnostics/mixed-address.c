// An XOR-linked list keeps prev ^ next in an integer field and walks it
// with `next = (struct xnode *)(prev ^ n->link)`.  The switch to wide mode
// moves every object and translates pointers, never addresses mixed into
// integers, so after it the XOR names no object: a trial's walk printed a
// wrong sum with exit 0 (or crashed) where its warnings promised a stop.
// Refused in switchable mode (mixed-address), at the cast back, directly
// or through a local (initialized, assigned or XORed into), a function
// of the file that returns one, or `void *`; an XOR with
// a constant (a tag bit cleared) is not one; compact-only builds never switch, and run it as
// natively.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify=sw %s
// RUN: %clang %cflags -O1 %s -o %t.native
// RUN: %clang %cflags -O1 -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fplugin-arg-compactptr-Wno-compactptr-integer-cast %s %runtime -o %t.co
// RUN: %t.native > %t.expect
// RUN: %t.co | diff %t.expect -
#include <compactptr.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT xnode { long value; uintptr_t link; };
#define XOR(a, b) ((struct xnode *)((uintptr_t)(a) ^ (uintptr_t)(b)))
#define XORV(a, b) ((void *)((uintptr_t)(a) ^ (uintptr_t)(b)))
static uintptr_t mix(uintptr_t a, uintptr_t b) { return a ^ b; }

static struct xnode *head, *tail;

static void push_back(long v) {
  struct xnode *n = malloc(sizeof *n);
  n->value = v;
  n->link = (uintptr_t)tail; // sw-warning {{compact pointer to 'struct xnode' cast to an integer and stored in field 'link'}}
  if (tail)
    tail->link ^= (uintptr_t)n; // sw-warning {{compact pointer to 'struct xnode' cast to an integer and hashed}}
  else
    head = n;
  tail = n;
}

int main(void) {
  for (long i = 0; i < 1000; i++)
    push_back(i);
  long sum = 0, steps = 0;
  struct xnode *prev = NULL, *cur = head;
  while (cur) {
    sum += cur->value * ++steps;
    // sw-error@+2 {{an XOR of addresses cast to a compact pointer to 'struct xnode': the switch to wide mode moves every object, and the addresses kept mixed in integers are not translated, so after it the result names no object; keep each link in a pointer field, or build the program compact-only, which never switches}}
    // sw-warning@+1 {{cast to an integer and hashed}}
    struct xnode *next = XOR(prev, cur->link);
    prev = cur;
    cur = next;
  }
  // Backwards, through a local.
  prev = NULL;
  for (cur = tail; cur;) {
    uintptr_t x = (uintptr_t)prev ^ cur->link; // sw-warning {{cast to an integer and hashed}}
    sum -= cur->value;
    prev = cur;
    cur = (struct xnode *)x; // sw-error {{an XOR of addresses cast to a compact pointer}}
  }
  // Assigned, or XORed into, after the declaration.
  uintptr_t y;
  y = (uintptr_t)prev ^ head->link; // sw-warning {{cast to an integer and hashed}}
  cur = (struct xnode *)y; // sw-error {{an XOR of addresses cast to a compact pointer}}
  uintptr_t z = head->link;
  z ^= (uintptr_t)prev; // sw-warning {{cast to an integer and hashed}}
  cur = (struct xnode *)z; // sw-error {{an XOR of addresses cast to a compact pointer}}
  // Through `void *`, and through a function of the file.
  // sw-error@+2 {{an XOR of addresses cast to 'void *' and made a compact pointer to 'struct xnode'}}
  // sw-warning@+1 {{cast to an integer and hashed}}
  cur = XORV(prev, head->link);
  cur = (struct xnode *)mix((uintptr_t)prev, head->link); // sw-warning {{cast to an integer}} sw-error {{an XOR of addresses cast to a compact pointer}}
  // Not refused: a tag bit cleared from a pointer the switch translates.
  struct xnode *tagged = (struct xnode *)((uintptr_t)head | 1); // sw-warning {{cast to an integer}} sw-warning {{integer cast to a compact pointer}}
  cur = (struct xnode *)((uintptr_t)tagged ^ 1); // sw-warning {{cast to an integer}} sw-warning {{integer cast to a compact pointer}}
  sum += cur->value;
  printf("%ld %ld\n", steps, sum);
  return 0;
}
