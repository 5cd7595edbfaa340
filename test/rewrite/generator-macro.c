// A function produced by a macro, using a compact type: the invocation is
// replaced by its expansion, spelled on the invocation's first line and
// followed by the line breaks it covered (so later lines keep their
// numbers), and the function is rewritten like one written out.  The
// warnings clang gives no macro's expansion are none there either (`if
// (EMPTY(next))` of a `((p) == NULL)` is no -Wparentheses-equality at the
// invocation: -Werror below).  The
// same macro invoked for a plain struct stays as written, and so does the
// #define.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Werror -fplugin-arg-compactptr-mode=compact-only -fplugin-arg-compactptr-dump=- %s 2>&1 | FileCheck %s
// RUN: %rewrite --mode=compact-only --main-only %s -- %cflags | FileCheck %s
#include <compactptr.h>
#include <stdlib.h>

#define EMPTY(p) ((p) == NULL)
#define GEN(name, type)                                                    \
  static struct type *name##_new(struct type *next) {                      \
    struct type *n = malloc(sizeof *n);                                    \
    if (EMPTY(next))                                                       \
      next = NULL;                                                         \
    n->next = next;                                                        \
    return n;                                                              \
  }
// CHECK: {{^}}#define GEN(name, type)

struct CP_COMPACT node { int v; struct node *next; };
struct plain { int v; struct plain *next; };

// CHECK-LABEL: {{^}}struct plain { int v; struct plain *next; };
// CHECK: {{^}}_Pragma("clang diagnostic push") _Pragma("clang diagnostic ignored \"-Wparentheses-equality\""){{.*}} static struct node * node_new ( struct node * next ) { struct node * n = cp_alloc(&cp__desc_node) ; if ( ( ( next ) == ( ( void * ) 0 ) ) ) next = ( ( void * ) 0 ) ; cp__sth_known(&(((struct cp__c_node *)(n))->next), next) ; return n ; } _Pragma("clang diagnostic pop"){{$}}
// CHECK-EMPTY:
// CHECK-NEXT: {{^}}  int line = __LINE__;
// CHECK-NEXT: {{^}}GEN(plain, plain)
GEN(node,
    node)
  int line = __LINE__;
GEN(plain, plain)

int main(void) {
  struct node *n = node_new(0);
  struct plain *p = plain_new(0);
  return n->v + p->v + line - 32;
}
