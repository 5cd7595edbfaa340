// Switchable mode: a compact pointer handed as `void *` to a function of
// the file that turns it into an integer (a hash of the address, an order
// of addresses).  The switch moves every object, so a pointer-keyed hash
// set built before it found 1 of 1000 nodes after it, with no word at
// compile time once the cast to `const void *` was written.  A warning at
// the argument (integer-cast), and the runtime names the site after a
// switch.  Compact-only builds never move objects: no warning there.
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -DSHAPES %s 2>&1 | FileCheck --implicit-check-not=warning: %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Werror %s
#include <compactptr.h>
#include <stddef.h>
#include <stdint.h>

struct CP_COMPACT node {
  struct node *next;
  int key;
};

static size_t ptr_hash(const void *p) {
  return ((uintptr_t)p >> 3) * 0x9E3779B97F4A7C15ull >> 52;
}
static int by_address(const void *a, const void *b) {
  return (const char *)a < (const char *)b; /* an order, but no integer */
}
static size_t bytes_hash(const void *p, size_t n) {
  const unsigned char *b = p;
  size_t h = 0;
  for (size_t i = 0; i < n; i++)
    h = h * 31 + b[i];
  return h;
}

size_t use(struct node *n, struct node *m) {
  size_t h = ptr_hash((const void *)n);
  // CHECK: address-hashed.c:[[@LINE-1]]:23: warning: compact pointer to 'struct node' handed as 'const void *' to 'ptr_hash', which casts it to an integer; the switch to wide mode moves every object, so a hash or an order of addresses taken before it does not hold after it
  h += ptr_hash(m);
  // CHECK: address-hashed.c:[[@LINE-1]]:17: warning: compact pointer to 'struct node' handed as 'const void *' to 'ptr_hash', which casts it to an integer
  h += by_address((const void *)n, (const void *)m);
  h += bytes_hash((const void *)&n->key, sizeof n->key);
  return h;
}

// A cast in the function itself: said to be a hash where the number's
// bits are mixed or a bucket is picked, not for an alignment test or a
// page number (which still do not survive the switch, said plainly).
#ifdef SHAPES
size_t shapes(struct node *n, size_t m) {
  size_t r = ((uintptr_t)n >> 4) % 1021;
  // CHECK: address-hashed.c:[[@LINE-1]]:15: warning: compact pointer to 'struct node' cast to an integer and hashed; the switch to wide mode moves every object
  r += (uintptr_t)n & (m - 1);
  // CHECK: address-hashed.c:[[@LINE-1]]:8: warning: compact pointer to 'struct node' cast to an integer and hashed
  r += (uintptr_t)n % 16 == 0;
  // CHECK: address-hashed.c:[[@LINE-1]]:8: warning: compact pointer to 'struct node' cast to an integer; the value does not survive the switch to wide mode
  r += (uintptr_t)n / 4096;
  // CHECK: address-hashed.c:[[@LINE-1]]:8: warning: compact pointer to 'struct node' cast to an integer; the value does not survive the switch to wide mode
  return r;
}
#endif
