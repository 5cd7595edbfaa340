/* exprtree.c - parse, fold and evaluate arithmetic expressions.
 *
 * In the style of small interpreters and compilers written in C with a
 * "base class" struct: every AST node starts with `struct node base`
 * (kind and source position), the concrete node types embed it as their
 * first member, constructors return `struct node *`, and code switches on
 * `n->kind` and casts down with a macro (`AS(binop, n)->lhs`).  A
 * recursive-descent parser builds trees from generated source text, a
 * constant folder rewrites them (building new nodes, freeing old ones),
 * and an evaluator runs every tree for several variable bindings.  Shapes:
 * casts between the base type and the derived types both ways, a
 * downcast macro, an array of tree roots, recursion in all three passes,
 * globals for the parser's cursor.
 *
 * Usage: exprtree [expressions [depth]]     (default 3000 7)
 */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ctype.h>

enum kind { K_NUM, K_VAR, K_BINOP, K_NEG, K_COND };

struct CP_COMPACT node {
  enum kind kind;
  int pos;                       /* offset in the source text */
};

struct CP_COMPACT num { struct node base; long value; };
struct CP_COMPACT var { struct node base; int slot; };
struct CP_COMPACT binop { struct node base; int op; struct node *lhs, *rhs; };
struct CP_COMPACT neg { struct node base; struct node *arg; };
struct CP_COMPACT cond { struct node base; struct node *test, *then, *els; };

#define AS(type, n) ((struct type *)(n))

static long live_nodes;

static struct node *mknum(long v, int pos)
{
  struct num *n = malloc(sizeof *n);

  n->base.kind = K_NUM;
  n->base.pos = pos;
  n->value = v;
  live_nodes++;
  return &n->base;
}

static struct node *mkvar(int slot, int pos)
{
  struct var *n = malloc(sizeof *n);

  n->base.kind = K_VAR;
  n->base.pos = pos;
  n->slot = slot;
  live_nodes++;
  return (struct node *)n;
}

static struct node *mkbinop(int op, struct node *l, struct node *r, int pos)
{
  struct binop *n = malloc(sizeof *n);

  n->base.kind = K_BINOP;
  n->base.pos = pos;
  n->op = op;
  n->lhs = l;
  n->rhs = r;
  live_nodes++;
  return (struct node *)n;
}

static struct node *mkneg(struct node *a, int pos)
{
  struct neg *n = malloc(sizeof *n);

  n->base.kind = K_NEG;
  n->base.pos = pos;
  n->arg = a;
  live_nodes++;
  return (struct node *)n;
}

static struct node *mkcond(struct node *t, struct node *a, struct node *b, int pos)
{
  struct cond *n = malloc(sizeof *n);

  n->base.kind = K_COND;
  n->base.pos = pos;
  n->test = t;
  n->then = a;
  n->els = b;
  live_nodes++;
  return (struct node *)n;
}

static void freenode(struct node *n)
{
  switch (n->kind) {
  case K_BINOP: freenode(AS(binop, n)->lhs); freenode(AS(binop, n)->rhs); break;
  case K_NEG: freenode(AS(neg, n)->arg); break;
  case K_COND:
    freenode(AS(cond, n)->test); freenode(AS(cond, n)->then); freenode(AS(cond, n)->els);
    break;
  default: break;
  }
  free(n);
  live_nodes--;
}

/* ---- the parser ---- */
static const char *src;
static int at;

static void skip(void) { while (src[at] == ' ') at++; }
static struct node *expr(void);

static struct node *primary(void)
{
  int pos;

  skip();
  pos = at;
  if (isdigit((unsigned char)src[at])) {
    long v = 0;

    while (isdigit((unsigned char)src[at]))
      v = v * 10 + (src[at++] - '0');
    return mknum(v, pos);
  }
  if (islower((unsigned char)src[at]))
    return mkvar(src[at++] - 'a', pos);
  if (src[at] == '?') {         /* ?(test, then, else) */
    struct node *t, *a, *b;

    at += 2;
    t = expr(); skip(); at++;
    a = expr(); skip(); at++;
    b = expr(); skip(); at++;
    return mkcond(t, a, b, pos);
  }
  if (src[at] == '(') {
    struct node *e;

    at++;
    e = expr();
    skip();
    at++;                       /* ')' */
    return e;
  }
  fprintf(stderr, "parse error at %d: '%s'\n", at, src + at);
  exit(1);
}

static struct node *unary(void)
{
  skip();
  if (src[at] == '-') {
    int pos = at++;
    return mkneg(unary(), pos);
  }
  return primary();
}

static struct node *term(void)
{
  struct node *l = unary();

  for (;;) {
    int op;

    skip();
    op = src[at];
    if (op != '*' && op != '/' && op != '%')
      return l;
    at++;
    l = mkbinop(op, l, unary(), at - 1);
  }
}

static struct node *expr(void)
{
  struct node *l = term();

  for (;;) {
    int op;

    skip();
    op = src[at];
    if (op != '+' && op != '-')
      return l;
    at++;
    l = mkbinop(op, l, term(), at - 1);
  }
}

/* ---- evaluation and folding ---- */
static long apply(int op, long a, long b)
{
  switch (op) {
  case '+': return a + b;
  case '-': return a - b;
  case '*': return (a * b) % 1000003;
  case '/': return b ? a / b : 0;
  case '%': return b ? a % b : 0;
  }
  return 0;
}

static long eval(struct node *n, const long *env)
{
  switch (n->kind) {
  case K_NUM: return AS(num, n)->value;
  case K_VAR: return env[AS(var, n)->slot];
  case K_NEG: return -eval(AS(neg, n)->arg, env);
  case K_COND:
    return eval(AS(cond, n)->test, env) > 0 ? eval(AS(cond, n)->then, env)
                                            : eval(AS(cond, n)->els, env);
  case K_BINOP: {
    struct binop *b = AS(binop, n);
    long l = eval(b->lhs, env);

    return apply(b->op, l, eval(b->rhs, env));
  }
  }
  return 0;
}

static int is_num(struct node *n, long v)
{
  return n->kind == K_NUM && AS(num, n)->value == v;
}

static struct node *fold(struct node *n)
{
  struct node *r;

  switch (n->kind) {
  case K_NEG: {
    struct neg *g = (struct neg *)n;

    g->arg = fold(g->arg);
    if (g->arg->kind == K_NUM) {
      r = mknum(-AS(num, g->arg)->value, n->pos);
      freenode(n);
      return r;
    }
    return n;
  }
  case K_COND: {
    struct cond *c = (struct cond *)n;

    c->test = fold(c->test);
    c->then = fold(c->then);
    c->els = fold(c->els);
    if (c->test->kind == K_NUM) {
      r = AS(num, c->test)->value > 0 ? c->then : c->els;
      if (r == c->then) c->then = mknum(0, 0); else c->els = mknum(0, 0);
      freenode(n);
      return r;
    }
    return n;
  }
  case K_BINOP: {
    struct binop *b = (struct binop *)n;

    b->lhs = fold(b->lhs);
    b->rhs = fold(b->rhs);
    if (b->lhs->kind == K_NUM && b->rhs->kind == K_NUM) {
      r = mknum(apply(b->op, AS(num, b->lhs)->value, AS(num, b->rhs)->value), n->pos);
      freenode(n);
      return r;
    }
    if ((b->op == '+' && is_num(b->rhs, 0)) || (b->op == '*' && is_num(b->rhs, 1))) {
      r = b->lhs;
      b->lhs = mknum(0, 0);
      freenode(n);
      return r;
    }
    return n;
  }
  default:
    return n;
  }
}

static int count(struct node *n)
{
  switch (n->kind) {
  case K_BINOP: return 1 + count(AS(binop, n)->lhs) + count(AS(binop, n)->rhs);
  case K_NEG: return 1 + count(AS(neg, n)->arg);
  case K_COND:
    return 1 + count(AS(cond, n)->test) + count(AS(cond, n)->then) + count(AS(cond, n)->els);
  default: return 1;
  }
}

/* ---- random source text ---- */
static unsigned long rs = 1;
static int rnd(int n) { rs = rs * 1103515245 + 12345; return (int)((rs >> 16) % (unsigned)n); }

static void gen(char *buf, int *len, int depth)
{
  int k = depth <= 0 ? rnd(2) : rnd(10);

  if (k == 0)
    *len += sprintf(buf + *len, "%d", rnd(50));
  else if (k == 1)
    *len += sprintf(buf + *len, "%c", 'a' + rnd(6));
  else if (k == 2) {
    buf[(*len)++] = '-';
    gen(buf, len, depth - 1);
  } else if (k == 3) {
    *len += sprintf(buf + *len, "?(");
    gen(buf, len, depth - 1); buf[(*len)++] = ',';
    gen(buf, len, depth - 1); buf[(*len)++] = ',';
    gen(buf, len, depth - 1); buf[(*len)++] = ')';
  } else {
    buf[(*len)++] = '(';
    gen(buf, len, depth - 1);
    *len += sprintf(buf + *len, " %c ", "+-*/%++*"[rnd(8)]);
    gen(buf, len, depth - 1);
    buf[(*len)++] = ')';
  }
  buf[*len] = '\0';
}

int main(int argc, char *argv[])
{
  int n = argc > 1 ? atoi(argv[1]) : 3000, depth = argc > 2 ? atoi(argv[2]) : 7;
  struct node **trees = malloc(n * sizeof(struct node *));
  char *buf = malloc(1 << 20);
  long before = 0, after = 0, sum = 0, env[6];
  int i, k;

  for (i = 0; i < n; i++) {
    int len = 0;

    gen(buf, &len, depth);
    src = buf;
    at = 0;
    trees[i] = expr();
    before += count(trees[i]);
  }
  printf("parsed %d expressions, %ld nodes\n", n, before);
  for (k = 0; k < 4; k++) {
    for (i = 0; i < 6; i++)
      env[i] = (k * 7 + i * 13) % 23 - 5;
    for (i = 0; i < n; i++)
      sum = (sum * 31 + eval(trees[i], env)) % 1000000007;
  }
  printf("before folding: checksum %ld\n", sum);
  for (i = 0; i < n; i++) {
    trees[i] = fold(trees[i]);
    after += count(trees[i]);
  }
  sum = 0;
  for (k = 0; k < 4; k++) {
    for (i = 0; i < 6; i++)
      env[i] = (k * 7 + i * 13) % 23 - 5;
    for (i = 0; i < n; i++)
      sum = (sum * 31 + eval(trees[i], env)) % 1000000007;
  }
  printf("after folding: %ld nodes, checksum %ld\n", after, sum);
  for (i = 0; i < n; i++)
    freenode(trees[i]);
  printf("live nodes at the end: %ld\n", live_nodes);
  free(trees);
  free(buf);
  return 0;
}
