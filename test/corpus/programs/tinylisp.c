/* tinylisp.c - a small Lisp interpreter with a mark-sweep collector.
 *
 * In the style of the small Lisps and of CPython's object headers: every
 * object begins with a `struct obj` header (C-style inheritance) and is
 * allocated as its own type through the header's pointer
 * (`(struct obj *)malloc(sizeof(struct num))`, as CPython allocates a
 * PyLongObject as a PyObject), cons cells, symbols interned in a hash
 * table, an environment of frames, closures, and a mark-sweep collector
 * over an `all` list threaded through the header, with an explicit root
 * stack. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <compactptr.h>

enum type { T_NUM, T_SYM, T_PAIR, T_PRIM, T_CLOS };
struct CP_COMPACT obj { enum type type; unsigned char mark; struct obj *gc_next; };
struct CP_COMPACT num { struct obj h; long v; };
struct CP_COMPACT sym { struct obj h; struct sym *hnext; char name[16]; };
struct CP_COMPACT pair { struct obj h; struct obj *car, *cdr; };
typedef struct obj *(*primfn)(struct obj *args);
struct CP_COMPACT prim { struct obj h; primfn fn; const char *name; };
struct CP_COMPACT clos { struct obj h; struct obj *params, *body, *env; };

static struct obj *all;
static long nalloc, nlive, nfreed;
#define NSTACK 100000
static struct obj *stack[NSTACK];   /* GC roots, pushed by the evaluator */
static int sp;
static struct sym *symtab[211];
static struct obj *NIL, *TRUE_, *quote_s, *if_s, *lambda_s, *define_s, *genv;

static struct obj *alloc(enum type t, size_t sz) {
  struct obj *o;
  switch (t) {
  case T_NUM: o = (struct obj *)malloc(sizeof(struct num)); break;
  case T_SYM: o = (struct obj *)calloc(1, sizeof(struct sym)); break;
  case T_PAIR: o = (struct obj *)malloc(sizeof(struct pair)); break;
  case T_PRIM: { struct prim *x = malloc(sizeof *x); o = &x->h; break; }
  default: o = (struct obj *)malloc(sizeof(struct clos)); break;
  }
  (void)sz;
  o->type = t; o->mark = 0; o->gc_next = all; all = o;
  nalloc++; nlive++;
  return o;
}
static struct obj *mknum(long v) { struct num *n = (struct num *)alloc(T_NUM, 0); n->v = v; return &n->h; }
static struct obj *cons(struct obj *a, struct obj *d) {
  stack[sp++] = a; stack[sp++] = d;
  struct pair *p = (struct pair *)alloc(T_PAIR, 0);
  sp -= 2;
  p->car = a; p->cdr = d; return (struct obj *)p;
}
#define CAR(o) (((struct pair *)(o))->car)
#define CDR(o) (((struct pair *)(o))->cdr)
#define NUMV(o) (((struct num *)(o))->v)
static unsigned hash(const char *s) { unsigned h = 5381; while (*s) h = h * 33 + (unsigned char)*s++; return h % 211; }
static struct obj *intern(const char *name) {
  unsigned h = hash(name);
  for (struct sym *s = symtab[h]; s; s = s->hnext) if (!strcmp(s->name, name)) return &s->h;
  struct sym *s = (struct sym *)alloc(T_SYM, 0);
  snprintf(s->name, sizeof s->name, "%s", name);
  s->hnext = symtab[h]; symtab[h] = s;
  return (struct obj *)s;
}

static void mark(struct obj *o) {
  while (o && !o->mark) {
    o->mark = 1;
    switch (o->type) {
    case T_PAIR: mark(CAR(o)); o = CDR(o); break;
    case T_CLOS: { struct clos *c = (struct clos *)o; mark(c->params); mark(c->body); o = c->env; break; }
    default: return;
    }
  }
}
static void gc(void) {
  mark(NIL); mark(TRUE_); mark(genv);
  for (int i = 0; i < 211; i++) for (struct sym *s = symtab[i]; s; s = s->hnext) mark(&s->h);
  for (int i = 0; i < sp; i++) mark(stack[i]);
  for (struct obj **pp = &all; *pp;) {
    struct obj *o = *pp;
    if (o->mark) { o->mark = 0; pp = &o->gc_next; }
    else { *pp = o->gc_next; free(o); nlive--; nfreed++; }
  }
}

/* environment: list of frames, each frame a list of (sym . val) pairs */
static struct obj *lookup(struct obj *env, struct obj *s) {
  for (; env != NIL; env = CDR(env))
    for (struct obj *f = CAR(env); f != NIL; f = CDR(f))
      if (CAR(CAR(f)) == s) return CAR(f);
  return NULL;
}
static struct obj *eval(struct obj *x, struct obj *env);
static struct obj *evlis(struct obj *l, struct obj *env) {
  if (l == NIL) return NIL;
  stack[sp++] = l; stack[sp++] = env;
  struct obj *h = eval(CAR(l), env);
  stack[sp++] = h;
  struct obj *t = evlis(CDR(l), env);
  stack[sp++] = t;
  struct obj *r = cons(h, t);
  sp -= 4;
  return r;
}
static struct obj *apply(struct obj *f, struct obj *args) {
  if (f->type == T_PRIM) return ((struct prim *)f)->fn(args);
  struct clos *c = (struct clos *)f;
  stack[sp++] = f; stack[sp++] = args;
  struct obj *frame = NIL;
  for (struct obj *p = c->params, *a = args; p != NIL && a != NIL; p = CDR(p), a = CDR(a)) {
    stack[sp++] = frame;
    struct obj *b = cons(CAR(p), CAR(a));
    stack[sp++] = b;
    frame = cons(b, frame);
    sp -= 2;
  }
  stack[sp++] = frame;
  struct obj *e = cons(frame, c->env);
  stack[sp++] = e;
  struct obj *r = NIL;
  for (struct obj *b = c->body; b != NIL; b = CDR(b)) r = eval(CAR(b), e);
  sp -= 4;
  return r;
}
static struct obj *eval(struct obj *x, struct obj *env) {
  if (x->type == T_NUM) return x;
  if (x->type == T_SYM) { struct obj *b = lookup(env, x); return b ? CDR(b) : NIL; }
  if (x->type != T_PAIR) return x;
  struct obj *op = CAR(x);
  if (op == quote_s) return CAR(CDR(x));
  if (op == if_s) {
    struct obj *c = eval(CAR(CDR(x)), env);
    return eval(c != NIL ? CAR(CDR(CDR(x))) : CAR(CDR(CDR(CDR(x)))), env);
  }
  if (op == lambda_s) {
    stack[sp++] = x; stack[sp++] = env;
    struct clos *c = (struct clos *)alloc(T_CLOS, 0);
    sp -= 2;
    c->params = CAR(CDR(x)); c->body = CDR(CDR(x)); c->env = env;
    return &c->h;
  }
  if (op == define_s) {
    stack[sp++] = x; stack[sp++] = env;
    struct obj *v = eval(CAR(CDR(CDR(x))), env);
    stack[sp++] = v;
    struct obj *b = cons(CAR(CDR(x)), v);
    CAR(env) = cons(b, CAR(env));
    sp -= 3;
    return v;
  }
  stack[sp++] = x; stack[sp++] = env;
  struct obj *f = eval(op, env);
  stack[sp++] = f;
  struct obj *args = evlis(CDR(x), env);
  struct obj *r = apply(f, args);
  sp -= 3;
  if (nalloc % 5000 == 0) { stack[sp++] = r; gc(); sp--; }
  return r;
}

static struct obj *p_add(struct obj *a) { long s = 0; for (; a != NIL; a = CDR(a)) s += NUMV(CAR(a)); return mknum(s); }
static struct obj *p_sub(struct obj *a) { long s = NUMV(CAR(a)); for (a = CDR(a); a != NIL; a = CDR(a)) s -= NUMV(CAR(a)); return mknum(s); }
static struct obj *p_mul(struct obj *a) { long s = 1; for (; a != NIL; a = CDR(a)) s = s * NUMV(CAR(a)) % 1000000007; return mknum(s); }
static struct obj *p_lt(struct obj *a) { return NUMV(CAR(a)) < NUMV(CAR(CDR(a))) ? TRUE_ : NIL; }
static struct obj *p_cons(struct obj *a) { return cons(CAR(a), CAR(CDR(a))); }
static struct obj *p_car(struct obj *a) { return CAR(a) == NIL ? NIL : CAR(CAR(a)); }
static struct obj *p_cdr(struct obj *a) { return CAR(a) == NIL ? NIL : CDR(CAR(a)); }
static struct obj *p_null(struct obj *a) { return CAR(a) == NIL ? TRUE_ : NIL; }
static void defprim(const char *name, primfn fn) {
  struct prim *p = (struct prim *)alloc(T_PRIM, 0);
  p->fn = fn; p->name = name;
  stack[sp++] = &p->h;
  struct obj *b = cons(intern(name), &p->h);
  CAR(genv) = cons(b, CAR(genv));
  sp--;
}

/* reader */
static const char *src;
static struct obj *read_obj(void) {
  while (*src == ' ' || *src == '\n') src++;
  if (*src == '(') {
    src++;
    struct obj *head = NIL, *tail = NULL;
    for (;;) {
      while (*src == ' ' || *src == '\n') src++;
      if (*src == ')') { src++; return head; }
      struct obj *e = read_obj();
      stack[sp++] = head; stack[sp++] = e;
      struct obj *c = cons(e, NIL);
      sp -= 2;
      if (tail) CDR(tail) = c; else head = c;
      tail = c;
      stack[sp++] = head;      /* keep the list alive while reading */
      sp--;
    }
  }
  if (*src == '\'') { src++; struct obj *q = read_obj(); stack[sp++] = q; struct obj *l = cons(q, NIL); stack[sp++] = l; struct obj *r = cons(quote_s, l); sp -= 2; return r; }
  char buf[16]; int i = 0;
  while (*src && *src != ' ' && *src != ')' && *src != '(' && *src != '\n') { if (i < 15) buf[i++] = *src; src++; }
  buf[i] = 0;
  if ((buf[0] >= '0' && buf[0] <= '9') || (buf[0] == '-' && buf[1])) return mknum(strtol(buf, NULL, 10));
  return intern(buf);
}

static void print(struct obj *o, char *out, size_t *pos) {
  char t[32];
  if (*pos > 200) return;
  switch (o->type) {
  case T_NUM: snprintf(t, sizeof t, "%ld", NUMV(o)); break;
  case T_SYM: snprintf(t, sizeof t, "%s", ((struct sym *)o)->name); break;
  case T_PRIM: snprintf(t, sizeof t, "<prim>"); break;
  case T_CLOS: snprintf(t, sizeof t, "<closure>"); break;
  case T_PAIR:
    out[(*pos)++] = '(';
    for (;;) { print(CAR(o), out, pos); o = CDR(o); if (o == NIL || o->type != T_PAIR) break; out[(*pos)++] = ' '; }
    out[(*pos)++] = ')'; out[*pos] = 0; return;
  }
  size_t l = strlen(t); memcpy(out + *pos, t, l + 1); *pos += l;
}

static const char *program[] = {
  "(define fib (lambda (n) (if (< n 2) n (+ (fib (- n 1)) (fib (- n 2))))))",
  "(define range (lambda (a b) (if (< a b) (cons a (range (+ a 1) b)) nil)))",
  "(define map (lambda (f l) (if (null? l) nil (cons (f (car l)) (map f (cdr l))))))",
  "(define sum (lambda (l) (if (null? l) 0 (+ (car l) (sum (cdr l))))))",
  "(define rev (lambda (l acc) (if (null? l) acc (rev (cdr l) (cons (car l) acc)))))",
  "(define sq (lambda (x) (* x x)))",
  "(fib 18)",
  "(sum (map sq (range 0 300)))",
  "(rev (range 0 12) nil)",
  "(define adder (lambda (n) (lambda (x) (+ x n))))",
  "(map (adder 7) (range 0 10))",
  "(sum (map (lambda (x) (sum (range 0 x))) (range 0 120)))",
  "(fib 20)",
  "(car (cdr (rev (map sq (range 0 2000)) nil)))",
};

int main(void) {
  NIL = intern("nil"); TRUE_ = intern("t");
  quote_s = intern("quote"); if_s = intern("if"); lambda_s = intern("lambda"); define_s = intern("define");
  genv = cons(NIL, NIL);
  defprim("+", p_add); defprim("-", p_sub); defprim("*", p_mul); defprim("<", p_lt);
  defprim("cons", p_cons); defprim("car", p_car); defprim("cdr", p_cdr); defprim("null?", p_null);
  unsigned long h = 0;
  for (size_t i = 0; i < sizeof program / sizeof *program; i++) {
    src = program[i];
    struct obj *form = read_obj();
    stack[sp++] = form;
    struct obj *r = eval(form, genv);
    sp--;
    char out[256]; size_t pos = 0; out[0] = 0;
    print(r, out, &pos);
    printf("%s\n", out);
    for (size_t k = 0; k < pos; k++) h = h * 31 + (unsigned char)out[k];
  }
  gc();
  printf("alloc=%ld live=%ld freed=%ld sp=%d\n", nalloc, nlive, nfreed, sp);
  printf("checksum=%016lx\n", h);
  return 0;
}
