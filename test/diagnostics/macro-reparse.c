// An expansion the rewrite prints from the AST is parsed again in the
// compile.  Refused where that would not give what the parser received
// (both were silent wrong results): a macro name its expansion leaves
// unexpanded (`scale` inside `#define scale (scale * 2)`: printed, it
// expanded once more, 60 for 30) and a __COUNTER__ (printed as the number
// it gave, every later __COUNTER__ counted one lower).  A macro whose body
// is its own name (glibc's `#define stdout stdout`) is fine.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
#include <compactptr.h>
#include <stdio.h>

struct CP_COMPACT cell { long v; struct cell *nx; };

static long scale = 3;
#define scale (scale * 2)
#define SCALED_NEXT_V(p) ((p)->nx->v * scale)
#define NEXT_TAGGED(p) ((p)->v += __COUNTER__, (p)->nx)
#define SHOW_NEXT(p) fprintf(stdout, "%ld\n", (p)->nx->v)

long f(struct cell *d) {
  long s = SCALED_NEXT_V(d); // expected-error {{cannot rewrite the expansion of macro 'SCALED_NEXT_V': a macro name its expansion leaves unexpanded would expand once more when printed again}}
  struct cell *q = NEXT_TAGGED(d); // expected-error {{cannot rewrite the expansion of macro 'NEXT_TAGGED': it uses __COUNTER__, and printed again every later __COUNTER__ would count differently}}
  SHOW_NEXT(d);
  return s + q->v + __COUNTER__;
}

// A loop header printed alone (the body follows the macro) too.
#define EACH_TAGGED(c, h) for (c = (h); c; c = c->nx, (void)__COUNTER__)
long g(struct cell *h) {
  struct cell *c;
  long n = 0;
  EACH_TAGGED(c, h) n += c->v; // expected-error {{cannot rewrite the expansion of macro 'EACH_TAGGED': it uses __COUNTER__}}
  return n;
}
