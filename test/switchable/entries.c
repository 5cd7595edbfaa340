// Entries and calls out (Entries.cpp, isCallOut).  A function that code
// outside rewritten code may call -- external linkage, or its address
// taken -- and that touches compact objects tests cp__inside at its entry;
// a static one only this file calls directly does not, nor does one that
// touches nothing compact.  A call to a function of another file is made
// outside (cp__call_out) when it is handed no compact memory, no pointer
// to memory holding compact pointers and no byte or `void *` variable, and
// returns no compact pointer; and only from checked code.
// RUN: %clang %cflags -std=c2x -fplugin=%plugin -fsyntax-only -Werror -fplugin-arg-compactptr-dump=- %s 2>&1 | FileCheck %s
// RUN: %clang %cflags -std=c2x -fplugin=%plugin -Werror -c %s -o %t.o
#include <compactptr.h>
#include <stdarg.h>
#include <stdlib.h>

struct CP_COMPACT node {
  int key;
  struct node *next;
};

void wait_for(int fd);                   /* another file's */
void log_line(const char *what, int n);  /* another file's */
void take(struct node *n);               /* another file's: compact memory */
struct node *make_there(int key);        /* another file's: returns one */
void hand_bytes(void *p);                /* another file's */
CP_SAFEPOINT void gate_pass(int gate);   /* another file's: it blocks */

static struct node *head;

// Touches nothing compact and calls another file's function: a call to it
// from checked code is made outside too (a wrapper of a pool's wait).
// CHECK: {{^}}static void settle(int fd) {
static void settle(int fd) {
  wait_for(fd);
  wait_for(fd + 1);
}

// Static, called directly only: no test.
// CHECK: {{^}}__inline__ static void push(int key) {
static void push(int key) {
  struct node *n = malloc(sizeof *n);
  n->key = key;
  n->next = head;
  head = n;
}

// External: the test, and the way back in after it.
// CHECK: {{^}}static __attribute__((noinline, cold, unused)) void build__outside(int); void build(int k) { int cp__entered __attribute__((unused)) = __extension__({ if (cp__outside()) { build__outside(k); return; } 0; });
void build(int k) {
  void *bytes = head;
  // Unless the callee is an entry of a rewritten file itself (its weak
  // marker linked in): then it is called inside.
  // CHECK: extern __attribute__((weak)) const char cp__entry_wait_for; {{.*}} (void)((!&cp__entry_wait_for ? cp__call_out() : (void)0), wait_for(cp__a{{[0-9_]+}})); if (!&cp__entry_wait_for) cp__call_back();
  wait_for(3);
  // CHECK: (void)((!&cp__entry_log_line ? cp__call_out() : (void)0), log_line(cp__a{{[0-9_]+}}, cp__a{{[0-9_]+}})); if (!&cp__entry_log_line) cp__call_back();
  log_line("build", k);
  // Declared CP_SAFEPOINT: a call out all the same (it may block), unless
  // its file is rewritten.
  // CHECK: (void)((!&cp__entry_gate_pass ? cp__call_out() : (void)0), gate_pass(cp__a{{[0-9_]+}})); if (!&cp__entry_gate_pass) cp__call_back();
  gate_pass(k);
  // The runtime's safepoints are not.
  // CHECK: {{^}}  cp_safepoint();
  cp_safepoint();
  // Handed a compact pointer, a byte variable, or returning one: plain.
  // CHECK: {{^}}  take(head);
  take(head);
  // CHECK: {{^}}  hand_bytes(bytes);
  hand_bytes(bytes);
  // CHECK: {{^}}  head = make_there(k);
  head = make_there(k);
  push(k);
  // CHECK: (void)(cp__call_out(), settle(cp__a{{[0-9_]+}})); cp__call_back();
  settle(k);
// After it: the arguments in a struct, the thunk that calls it with them,
// and build__outside, which runs the thunk through the runtime (which
// comes inside around it, and settles a cancellation unwinding through it).
// CHECK: {{^}}} struct cp__args_build { int a0; }; static void build__thunk(void *cp__p) { struct cp__args_build *cp__c = (struct cp__args_build *)cp__p; (build)(cp__c->a0); } static void build__outside(int k) { struct cp__args_build cp__c; cp__c.a0 = k; cp__outside_run(build__thunk, &cp__c); } __attribute__((weak, visibility("hidden"))) const char cp__entry_build = 1;
}

// Touches nothing compact: no test.
// CHECK: {{^}}int twice(int x) { return 2 * x; }{{$}}
int twice(int x) { return 2 * x; }

// Touches compact objects only through a static function it calls: the
// test too (the thread must be inside when push runs).
// CHECK: {{^}}static __attribute__((noinline, cold, unused)) void push_two__outside(int); void push_two(int k) { int cp__entered
void push_two(int k) {
  push(k);
  push(k + 1);
}

// Its address taken: the test, though static.
// CHECK: {{^}}static __attribute__((noinline, cold, unused)) int count__outside(void *); {{.*}} static int count(void *unused) { int cp__entered
static int count(void *unused) {
  int n = 0;
  (void)unused;
  for (struct node *p = head; p; p = p->next)
    n++;
  return n;
}
int (*counter)(void *) = count;

// Variadic, or with an unnamed parameter: it cannot call itself again, so
// it keeps the thread inside until it returns, by a cleanup.
// CHECK: {{^}}int sum_keys(int n, ...) { int cp__entered __attribute__((cleanup(cp__exit), unused)) = cp__enter();
int sum_keys(int n, ...) {
  va_list ap;
  int s = 0;
  va_start(ap, n);
  while (n-- > 0)
    s += va_arg(ap, struct node *)->key;
  va_end(ap);
  return s;
}
// CHECK: {{^}}int first_key(int) { int cp__entered __attribute__((cleanup(cp__exit), unused)) = cp__enter();
int first_key(int) { return head ? head->key : 0; }
// CHECK: {{^}}int row_key(int n, int rows[n][n]) { int cp__entered __attribute__((cleanup(cp__exit), unused)) = cp__enter();
int row_key(int n, int rows[n][n]) { return head ? head->key + rows[0][n - 1] : 0; }

// A result, const parameters, a function pointer: the struct's members are
// unqualified, and the result comes back through it.
// CHECK: {{^}}} struct cp__args_apply { int (*a0)(const struct node *); const struct node *a1; long r; }; static void apply__thunk(void *cp__p) { struct cp__args_apply *cp__c = (struct cp__args_apply *)cp__p; cp__c->r = (apply)(cp__c->a0, cp__c->a1); } static long apply__outside(int (*const f)(const struct node *), const struct node *const n) { struct cp__args_apply cp__c; cp__c.a0 = f; cp__c.a1 = n; cp__outside_run(apply__thunk, &cp__c); return cp__c.r; } __attribute__((weak, visibility("hidden"))) const char cp__entry_apply = 1;
long apply(int (*const f)(const struct node *), const struct node *const n) {
  return n ? f(n) + apply(f, n->next) : 0;
}
