/* calcjmp.c - a calculator language: recursive descent, setjmp error recovery.
 *
 * In the style of small interpreters and configuration-language parsers
 * (bc, hoc from "The UNIX Programming Environment", many embedded
 * scripting languages): a recursive-descent parser builds a tree of nodes
 * with a variadic constructor, mknode(op, nkids, ...), whose children come
 * in through va_arg(ap, struct ast *).  Syntax errors and run-time errors
 * (division by zero, too deep) longjmp back to the statement loop from any
 * depth; every node is also chained on a global list, so the nodes of a
 * statement that failed half-way are freed by walking the chain back to
 * the mark taken before it.  A constant folder rewrites subtrees in place
 * through `struct ast **`.  The statements are generated from a seeded
 * random generator, some of them broken on purpose.
 *
 * Usage: calcjmp [statements]       (default 40000)
 */
#include <compactptr.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NUM, VAR, NEG, ADD, SUB, MUL, DIV, MOD, LT, EQ, COND, MAX, MIN, ASSIGN };

struct CP_COMPACT ast {
    int op;
    int nkids;
    long val;               /* NUM: value; VAR/ASSIGN: variable index */
    struct ast *kid[3];
    struct ast *chain;      /* all live nodes, newest first */
};

static struct ast *allnodes;
static long live_nodes, total_nodes;
static jmp_buf errjmp;
static char errmsg[128];
static const char *src;     /* parse position */
static long vars[26];
static int depth;
static long ok, syntax, runtime, nodes;     /* updated across longjmp */
static unsigned long h;

static _Noreturn void error(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(errmsg, sizeof errmsg, fmt, ap);
    va_end(ap);
    longjmp(errjmp, 1);
}

static struct ast *mknode(int op, long val, int nkids, ...)
{
    struct ast *n = malloc(sizeof *n);
    va_list ap;
    int i;

    if (!n) {
        fputs("out of memory\n", stderr);
        exit(1);
    }
    n->op = op;
    n->val = val;
    n->nkids = nkids;
    va_start(ap, nkids);
    for (i = 0; i < nkids; i++)
        n->kid[i] = va_arg(ap, struct ast *);
    va_end(ap);
    for (; i < 3; i++)
        n->kid[i] = NULL;
    n->chain = allnodes;
    allnodes = n;
    live_nodes++;
    total_nodes++;
    return n;
}

/* frees every node allocated after mark */
static void release_to(struct ast *mark)
{
    while (allnodes != mark) {
        struct ast *n = allnodes;

        allnodes = n->chain;
        free(n);
        live_nodes--;
    }
}

/* ---- the parser ---------------------------------------------------------- */

static void skip(void)
{
    while (*src == ' ')
        src++;
}

static int accept(char c)
{
    skip();
    if (*src == c) {
        src++;
        return 1;
    }
    return 0;
}

static void expect(char c)
{
    if (!accept(c))
        error("expected '%c' at '%.8s'", c, src);
}

static struct ast *expr(void);

static struct ast *primary(void)
{
    struct ast *a, *b;

    skip();
    if (++depth > 200)
        error("nesting too deep");
    if (*src >= '0' && *src <= '9') {
        long v = 0;

        while (*src >= '0' && *src <= '9')
            v = v * 10 + (*src++ - '0');
        a = mknode(NUM, v, 0);
    } else if (!strncmp(src, "max(", 4) || !strncmp(src, "min(", 4)) {
        int op = src[1] == 'a' ? MAX : MIN;

        src += 4;
        a = expr();
        expect(',');
        b = expr();
        expect(')');
        a = mknode(op, 0, 2, a, b);
    } else if (*src >= 'a' && *src <= 'z') {
        a = mknode(VAR, *src++ - 'a', 0);
    } else if (accept('(')) {
        a = expr();
        expect(')');
    } else if (accept('-')) {
        a = mknode(NEG, 0, 1, primary());
    } else {
        error("unexpected '%c'", *src ? *src : '$');
    }
    depth--;
    return a;
}

static struct ast *term(void)
{
    struct ast *a = primary();

    for (;;) {
        int op;

        if (accept('*'))
            op = MUL;
        else if (accept('/'))
            op = DIV;
        else if (accept('%'))
            op = MOD;
        else
            return a;
        a = mknode(op, 0, 2, a, primary());
    }
}

static struct ast *sum(void)
{
    struct ast *a = term();

    for (;;) {
        if (accept('+'))
            a = mknode(ADD, 0, 2, a, term());
        else if (accept('-'))
            a = mknode(SUB, 0, 2, a, term());
        else
            return a;
    }
}

static struct ast *expr(void)
{
    struct ast *c = sum(), *t, *e;

    if (accept('<'))
        c = mknode(LT, 0, 2, c, sum());
    else if (accept('='))
        c = mknode(EQ, 0, 2, c, sum());
    if (accept('?')) {
        t = expr();
        expect(':');
        e = expr();
        c = mknode(COND, 0, 3, c, t, e);
    }
    return c;
}

static struct ast *statement(void)
{
    struct ast *e;

    skip();
    if (src[0] >= 'a' && src[0] <= 'z' && src[1] == ' ' && src[2] == ':' && src[3] == '=') {
        int v = src[0] - 'a';

        src += 4;
        e = expr();
        e = mknode(ASSIGN, v, 1, e);
    } else {
        e = expr();
    }
    skip();
    if (*src)
        error("junk after statement: '%.8s'", src);
    return e;
}

/* ---- folding and evaluation -------------------------------------------- */

static long eval(const struct ast *n);

static void fold(struct ast **np)
{
    struct ast *n = *np;
    int i, konst = n->nkids > 0;

    for (i = 0; i < n->nkids; i++) {
        fold(&n->kid[i]);
        if (n->kid[i]->op != NUM)
            konst = 0;
    }
    if (n->op == ASSIGN || !konst)
        return;
    if ((n->op == DIV || n->op == MOD) && n->kid[1]->val == 0)
        return;                 /* leave it for run time */
    *np = mknode(NUM, eval(n), 0);
}

static long eval(const struct ast *n)
{
    long a, b;

    switch (n->op) {
    case NUM:
        return n->val;
    case VAR:
        return vars[n->val];
    case NEG:
        return (long)-(unsigned long)eval(n->kid[0]);
    case ASSIGN:
        return vars[n->val] = eval(n->kid[0]);
    case COND:
        return eval(n->kid[0]) ? eval(n->kid[1]) : eval(n->kid[2]);
    }
    a = eval(n->kid[0]);
    b = eval(n->kid[1]);
    switch (n->op) {
    case ADD: return (long)((unsigned long)a + (unsigned long)b);
    case SUB: return (long)((unsigned long)a - (unsigned long)b);
    case MUL: return (long)((unsigned long)a * (unsigned long)b);
    case DIV:
    case MOD:
        if (b == 0)
            error("division by zero");
        if (b == -1)
            return n->op == DIV ? (long)-(unsigned long)a : 0;
        return n->op == DIV ? a / b : a % b;
    case LT: return a < b;
    case EQ: return a == b;
    case MAX: return a > b ? a : b;
    case MIN: return a < b ? a : b;
    }
    error("bad node %d", n->op);
    return 0;
}

static int count(const struct ast *n)
{
    int i, c = 1;

    for (i = 0; i < n->nkids; i++)
        c += count(n->kid[i]);
    return c;
}

/* ---- a generator of statements ------------------------------------------ */

static unsigned long seed = 2463534242UL;

static unsigned rnd(unsigned n)
{
    seed ^= seed << 13;
    seed ^= seed >> 17;
    seed ^= seed << 5;
    seed &= 0xffffffffUL;
    return (unsigned)(seed % n);
}

static char *gen(char *p, char *end, int d)
{
    static const char *ops[] = { " + ", " - ", " * ", " / ", " % ", " < ", " = " };
    unsigned r = d > 6 ? rnd(3) : rnd(10);

    if (end - p < 64)
        r = 0;
    switch (r) {
    case 0:
        p += sprintf(p, "%u", rnd(50));
        break;
    case 1:
    case 2:
        *p++ = (char)('a' + rnd(6));
        break;
    case 3:
        *p++ = '(';
        p = gen(p, end, d + 1);
        *p++ = ')';
        break;
    case 4:
        *p++ = '-';
        p = gen(p, end, d + 1);
        break;
    case 5:
        p += sprintf(p, "%s(", rnd(2) ? "max" : "min");
        p = gen(p, end, d + 1);
        *p++ = ',';
        p = gen(p, end, d + 1);
        *p++ = ')';
        break;
    case 6:
        *p++ = '(';
        p = gen(p, end, d + 1);
        p += sprintf(p, " ? ");
        p = gen(p, end, d + 1);
        p += sprintf(p, " : ");
        p = gen(p, end, d + 1);
        *p++ = ')';
        break;
    default:
        p = gen(p, end, d + 1);
        p += sprintf(p, "%s", ops[rnd(7)]);
        p = gen(p, end, d + 1);
        break;
    }
    *p = 0;
    return p;
}

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 40000;
    static char line[4096];
    long i;
    struct ast *mark;

    for (i = 0; i < n; i++) {
        char *p = line;

        if (rnd(3) == 0)
            p += sprintf(p, "%c := ", 'a' + rnd(6));
        gen(p, line + sizeof line, 0);
        if (rnd(25) == 0)
            line[rnd((unsigned)strlen(line) + 1)] = rnd(2) ? '(' : ')';
        if (rnd(200) == 0) {                /* deep nesting */
            int k;

            for (k = 0, p = line; k < 300; k++)
                *p++ = '(';
            *p++ = '1';
            for (k = 0; k < 300; k++)
                *p++ = ')';
            *p = 0;
        }
        mark = allnodes;
        depth = 0;
        if (setjmp(errjmp)) {
            if (strncmp(errmsg, "division", 8) == 0)
                runtime++;
            else
                syntax++;
            h = h * 131 + strlen(errmsg);
            release_to(mark);
            continue;
        }
        src = line;
        {
            struct ast *t = statement();
            long v;

            fold(&t);
            nodes += count(t);
            v = eval(t);
            h = h * 1000003UL ^ (unsigned long)v;
            ok++;
        }
        if (i % 64 == 63)
            release_to(NULL);
    }
    printf("statements %ld ok %ld syntax %ld runtime %ld\n", n, ok, syntax, runtime);
    printf("nodes %ld made %ld live %ld\n", nodes, total_nodes, live_nodes);
    printf("vars");
    for (i = 0; i < 6; i++)
        printf(" %ld", vars[i]);
    printf("\nhash %lx\n", h);
    release_to(NULL);
    return 0;
}
