// A thread-local holding compact pointers at file scope is a root of
// every thread: the plugin registers each thread's copy when the runtime
// first knows the thread (threads/thread-local-roots.c runs it).  A static
// local one cannot be described outside its function: refused in
// switchable mode.  Without a switch (compact-only) it holds native
// addresses that stay valid: accepted.
// RUN: %clang %cflags -DSTATIC_LOCAL -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -DSTATIC_LOCAL -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Xclang -verify=ok %s
// RUN: %rewrite --mode=switchable %s -- %cflags | FileCheck %s
// ok-no-diagnostics
#include <compactptr.h>
#include <stdlib.h>

struct CP_COMPACT node {
  int key;
  struct node *next;
};

static _Thread_local struct node *head; // a root of each thread
__thread struct node *spare[2];          // two slots of each thread
static _Thread_local int plain_counter; // no compact pointer: no root

int push(int k) {
#ifdef STATIC_LOCAL
  static _Thread_local struct node *last; // expected-error {{static local thread-local 'last' holds pointers to compact type 'struct node'; it is no root, so the switch would not translate it: declare it at file scope (each thread's copy is then a root)}}
#else
  struct node *last;
#endif
  struct node *n = malloc(sizeof *n);
  n->key = k;
  n->next = head;
  head = last = n;
  spare[k & 1] = last;
  return ++plain_counter;
}
// CHECK: {{^}}static void *cp__tls_head(void) { return (void *)&head; }
// CHECK-NEXT: static void *cp__tls_spare(void) { return (void *)&spare; }
// CHECK-NEXT: static const cp_tls_root_t cp__tls_roots[] = {{[{][{]}}cp__tls_head, CP_ROOT_POINTER, 1, &cp__desc_node, "head"}, {cp__tls_spare, CP_ROOT_POINTER, 2, &cp__desc_node, "spare"}, };
// CHECK-NEXT: __attribute__((constructor)) static void cp__tls_roots_init(void) { cp_tls_roots_register(cp__tls_roots, 2); }
