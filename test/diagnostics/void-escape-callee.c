// Switchable mode: a compact pointer handed as `void *` to a function of
// this file is warned (void-escape) unless every use of the parameter
// there is known to keep nothing: reading through it, comparing it, a
// local compact pointer initialized from it, libc that keeps nothing.
// Every other use may keep it: each function below keeps its argument in
// a way the first version of this rule took for a read (a silent wrong
// result after the switch, exit 70 at the first use of the kept pointer).
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Werror %s
#include <compactptr.h>
#include <stdatomic.h>
#include <string.h>

struct CP_COMPACT sym {
  int key;
  struct sym *next;
};

static void *stash;
static _Atomic(void *) astash;
struct box { int tag; void *p; };
static struct box gbox;

static int cmp(const void *a, const void *b) { // keeps nothing
  const struct sym *x = a;
  return x->key - ((const struct sym *)b)->key + (a == b) + !a + memcmp(a, b, 1);
}
static void atomic_keep(void *p) { __atomic_store_n(&stash, p, __ATOMIC_RELEASE); }
static void c11_keep(void *p) { atomic_store(&astash, p); }
static void copy_keep(void *p) { memcpy(&stash, &p, sizeof p); }
static void put(void **pp) { stash = *pp; }
static void address_keep(void *p) { put(&p); }
static void elvis_keep(void *p) { stash = p ?: stash; }
static void comma_keep(void *p) { stash = (gbox.tag++, p); }
static void stmt_keep(void *p) { stash = ({ p; }); }
static void designated_keep(void *p) {
  struct box b = {.tag = 1, .p = p};
  gbox = b;
}
static void *return_keep(void *p) { return p; }
static void local_keep(void *p) {
  void *q = p;
  stash = q;
}
// A local copy is kept only where the copy is: in an untyped field of a
// compact object (the switch moves it), or read through, it is not.
struct CP_COMPACT cell {
  void *data;
  struct cell *next;
};
static void local_copy_moved(struct cell *c, void *p) {
  void *q;
  q = p;
  void *r = q;
  c->data = r;
}
// Handed on to a function of this file that keeps it in such a field.
static void local_copy_handed(struct cell *c, void *p) {
  local_copy_moved(c, p);
}
static int local_copy_read(const void *p) {
  const unsigned char *b = p;
  return b[0];
}

int use(struct sym *s, struct sym *t) {
  int r = cmp(s, t);
  atomic_keep(s);     // expected-warning {{passed as 'void *' to 'atomic_keep'}}
  c11_keep(s);        // expected-warning {{passed as 'void *' to 'c11_keep'}}
  copy_keep(s);       // expected-warning {{passed as 'void *' to 'copy_keep'}}
  address_keep(s);    // expected-warning {{passed as 'void *' to 'address_keep'}}
  elvis_keep(s);      // expected-warning {{passed as 'void *' to 'elvis_keep'}}
  comma_keep(s);      // expected-warning {{passed as 'void *' to 'comma_keep'}}
  stmt_keep(s);       // expected-warning {{passed as 'void *' to 'stmt_keep'}}
  designated_keep(s); // expected-warning {{passed as 'void *' to 'designated_keep'}}
  stash = return_keep(s); // expected-warning {{passed as 'void *' to 'return_keep'}}
  local_keep(s);      // expected-warning {{passed as 'void *' to 'local_keep'}}
  local_copy_moved(0, s);
  local_copy_handed(0, s);
  return r + local_copy_read(s);
}

// A builtin that stores its argument keeps it (the __sync family).
static void sync_keep(void *p) { __sync_lock_test_and_set(&stash, p); }
void use_sync(struct sym *s) {
  sync_keep(s); // expected-warning {{passed as 'void *' to 'sync_keep'}}
}

// The address a __sync builtin works on is not kept (a reference count).
static void retain(void *o) { __sync_fetch_and_add((int *)o, 1); }
void use_count(struct sym *s) { retain(s); }

// Through an explicit cast the code says it knows what the callee does:
// flagged only where the plugin sees the pointer stored -- into memory, or
// by a function of this file, a call or two deep (an identity set of
// `void *` compared after the switch gave wrong answers, silently).
static void *seen[64];
static int add(void *p, unsigned k) {
  if (seen[k & 63] == p)
    return 0;
  seen[k & 63] = p;
  return 1;
}
static void add_again(void *p) { add(p, 1); }
static void show(void *p) { (void)p; }
void opaque(void *p);
static void *ret(void *p) { return p; }
void use_cast(struct sym *s) {
  add((void *)s, 3);   // expected-warning {{a compact pointer to 'struct sym' is passed as 'void *' to 'add'; kept there, it is no root, and after the switch it points into the released arena (keep it in a field or a root array of its own type, or in a 'void *' field of a CP_COMPACT struct, which the switch moves (declare the struct that keeps it, a pool's task, CP_COMPACT): the cast does not keep the switch from releasing what it points to)}}
  add_again((void *)s); // expected-warning {{passed as 'void *' to 'add_again'}}
  gbox.p = (void *)s;  // expected-warning {{is stored into memory as 'void *'}}
  show((void *)s);
  opaque((void *)s);
  void *local = (void *)s;
  (void)local;
  (void)ret((void *)s);
  (void)memcmp((void *)s, (void *)s, 1);
}

// Stored into the callee's own locals (a struct of context, a work stack of
// `void *`), or into a local array here, it lives no longer than the call.
struct ctx {
  void *want;
  int hits;
};
static int count_in(void *want) {
  struct ctx c;
  c.want = want;
  c.hits = 0;
  return c.hits + (c.want != 0);
}
static int stack_walk(void *start) {
  void *stack[4];
  int sp = 0;
  stack[sp++] = start;
  return sp;
}
int use_local(struct sym *s) {
  void *stk[2];
  stk[0] = s;
  return count_in((void *)s) + stack_walk((void *)s) + (stk[0] != 0);
}

// Through a `void *` local set from a compact pointer: the same.
static void *table[8];
static void remember(void *p) { table[0] = p; }
void use_void_local(struct sym *s) {
  void *key = (void *)s;
  remember(key); // expected-warning {{a compact pointer to 'struct sym' held in the 'void *' local 'key' is passed to 'remember', which keeps it; kept there, it is no root, and after the switch it points into the released arena (keep it in a field or a root array of its own type, or in a 'void *' field of a CP_COMPACT struct, which the switch moves (declare the struct that keeps it, a pool's task, CP_COMPACT))}}
  void *other;
  other = s;
  remember(other); // expected-warning {{held in the 'void *' local 'other' is passed to 'remember'}}
  void *plain = table;
  remember(plain);
  show(key);
}

// A recursive insert hands the value to itself and keeps it in an untyped
// field of a compact node: not kept where the switch misses it.
struct CP_COMPACT tnode {
  struct tnode *l;
  void *val;
};
extern void *malloc(__SIZE_TYPE__);
static struct tnode *tree_ins(struct tnode *n, int d, void *val) {
  if (!n || d == 0) {
    struct tnode *m = malloc(sizeof *m);
    m->l = n;
    m->val = val;
    return m;
  }
  n->l = tree_ins(n->l, d - 1, val);
  return n;
}
struct tnode *use_tree(struct tnode *t, struct sym *s) { return tree_ins(t, 3, s); }

// An identity set hashed by address: the address made a number (a bucket
// index) no longer matches the object after the switch, wherever the
// pointer itself is kept (a trial's set found 6 of 25,000 after it, exit
// 0, warned as a root it could not see).  Said as what it is.
#include <stdint.h>
struct CP_COMPACT sent {
  struct sent *next;
  void *key;
};
static struct sent *buckets[64];
static unsigned bucket_of(const void *p) { return ((uintptr_t)p >> 3) % 64; }
static void set_add(void *p) {
  struct sent *e = malloc(sizeof *e);
  e->key = p;
  e->next = buckets[bucket_of(p)];
  buckets[bucket_of(p)] = e;
}
void use_set(struct sym *s) {
  set_add(s); // expected-warning {{a compact pointer to 'struct sym' is passed as 'void *' to 'set_add', which makes the address an integer (a hash, an order by address); the switch gives every object another address, so a number kept from before it (a bucket index) no longer matches the object; hash or order by a key stored in the object instead}}
}

// A walker of this file that hands its context to a callback through a
// function-pointer parameter (`f(ctx)`, `(*f)(ctx)`): the callback the call
// passes decides.  One that reads the context keeps nothing (the trial's
// finder was warned, and right across a switch inside the callback); one
// that stores it keeps it, and a callback the call does not name (a
// variable) may.
typedef void (*visit_fn)(struct sym *, void *);
static void walk(struct sym *l, visit_fn f, void *ctx) {
  for (; l; l = l->next)
    f(l, ctx);
}
static void walk_deref(struct sym *l, visit_fn f, void *ctx) {
  for (; l; l = l->next)
    (*f)(l, ctx);
}
static void count_cb(struct sym *n, void *ctx) {
  struct sym *c = ctx;
  c->key += n->key;
}
static void keep_cb(struct sym *n, void *ctx) {
  (void)n;
  stash = ctx;
}
void use_walk(struct sym *l, struct sym *s, visit_fn any) {
  walk(l, count_cb, s);
  walk_deref(l, count_cb, s);
  walk(l, keep_cb, s);       // expected-warning {{passed as 'void *' to 'walk'}}
  walk_deref(l, keep_cb, s); // expected-warning {{passed as 'void *' to 'walk_deref'}}
  walk(l, any, s);           // expected-warning {{passed as 'void *' to 'walk'}}
}
