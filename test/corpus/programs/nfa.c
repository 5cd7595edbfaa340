/* nfa.c - regular expression matching with Thompson's construction.
 *
 * In the style of the classic small regex engines (Thompson 1968 as
 * retold in many tutorials): the pattern is converted to postfix with
 * explicit concatenation, then compiled into a graph of states with two
 * out pointers.  A fragment under construction keeps the list of its
 * dangling out pointers threaded through those very pointers: a Ptrlist
 * is a union of a list link and a state pointer, and `list1(&s->out)`
 * casts the address of the out field to a list cell.  The simulation
 * keeps the current and next sets of states in arrays of state pointers,
 * with a generation number in each state to avoid duplicates.  States are
 * allocated one by one and also chained on a global list for cleanup.
 *
 * Usage: nfa [rounds]        (default 1000)
 */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
    Match = 256,
    Split = 257
};

typedef struct State State;
struct CP_COMPACT State {
    int c;
    State *out;
    State *out1;
    int lastlist;
    State *all;         /* every state, for freeing */
};

static State matchstate = { Match, NULL, NULL, 0, NULL };
static State *allstates;
static int nstate;

static State *state(int c, State *out, State *out1)
{
    State *s = malloc(sizeof *s);

    if (s == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(1);
    }
    nstate++;
    s->lastlist = 0;
    s->c = c;
    s->out = out;
    s->out1 = out1;
    s->all = allstates;
    allstates = s;
    return s;
}

static void free_states(void)
{
    State *s, *next;

    for (s = allstates; s; s = next) {
        next = s->all;
        free(s);
    }
    allstates = NULL;
    nstate = 0;
}

/* a list of dangling out pointers, threaded through the pointers themselves */
typedef union Ptrlist Ptrlist;
union Ptrlist {
    Ptrlist *next;
    State *s;
};

typedef struct Frag Frag;
struct Frag {
    State *start;
    Ptrlist *out;
};

static Frag frag(State *start, Ptrlist *out)
{
    Frag n = { start, out };
    return n;
}

static Ptrlist *list1(State **outp)
{
    Ptrlist *l = (Ptrlist *)outp;

    l->next = NULL;
    return l;
}

static void patch(Ptrlist *l, State *s)
{
    Ptrlist *next;

    for (; l; l = next) {
        next = l->next;
        l->s = s;
    }
}

static Ptrlist *append(Ptrlist *l1, Ptrlist *l2)
{
    Ptrlist *oldl1 = l1;

    while (l1->next)
        l1 = l1->next;
    l1->next = l2;
    return oldl1;
}

/* infix to postfix with '.' as explicit concatenation */
static char *re2post(const char *re)
{
    int nalt = 0, natom = 0;
    static char buf[8000];
    char *dst = buf;
    struct { int nalt, natom; } paren[100], *p = paren;

    if (strlen(re) >= sizeof buf / 2)
        return NULL;
    for (; *re; re++) {
        switch (*re) {
        case '(':
            if (natom > 1) {
                --natom;
                *dst++ = '.';
            }
            if (p >= paren + 100)
                return NULL;
            p->nalt = nalt;
            p->natom = natom;
            p++;
            nalt = 0;
            natom = 0;
            break;
        case '|':
            if (natom == 0)
                return NULL;
            while (--natom > 0)
                *dst++ = '.';
            nalt++;
            break;
        case ')':
            if (p == paren || natom == 0)
                return NULL;
            while (--natom > 0)
                *dst++ = '.';
            for (; nalt > 0; nalt--)
                *dst++ = '|';
            --p;
            nalt = p->nalt;
            natom = p->natom;
            natom++;
            break;
        case '*':
        case '+':
        case '?':
            if (natom == 0)
                return NULL;
            *dst++ = *re;
            break;
        default:
            if (natom > 1) {
                --natom;
                *dst++ = '.';
            }
            *dst++ = *re;
            natom++;
            break;
        }
    }
    if (p != paren)
        return NULL;
    while (--natom > 0)
        *dst++ = '.';
    for (; nalt > 0; nalt--)
        *dst++ = '|';
    *dst = 0;
    return buf;
}

static State *post2nfa(const char *postfix)
{
    const char *p;
    Frag stack[1000], *stackp, e1, e2, e;
    State *s;

    if (postfix == NULL)
        return NULL;
#define push(s) *stackp++ = s
#define pop() *--stackp
    stackp = stack;
    for (p = postfix; *p; p++) {
        switch (*p) {
        default:
            s = state(*p, NULL, NULL);
            push(frag(s, list1(&s->out)));
            break;
        case '.':
            e2 = pop();
            e1 = pop();
            patch(e1.out, e2.start);
            push(frag(e1.start, e2.out));
            break;
        case '|':
            e2 = pop();
            e1 = pop();
            s = state(Split, e1.start, e2.start);
            push(frag(s, append(e1.out, e2.out)));
            break;
        case '?':
            e = pop();
            s = state(Split, e.start, NULL);
            push(frag(s, append(e.out, list1(&s->out1))));
            break;
        case '*':
            e = pop();
            s = state(Split, e.start, NULL);
            patch(e.out, s);
            push(frag(s, list1(&s->out1)));
            break;
        case '+':
            e = pop();
            s = state(Split, e.start, NULL);
            patch(e.out, s);
            push(frag(e.start, list1(&s->out1)));
            break;
        }
    }
    e = pop();
    if (stackp != stack)
        return NULL;
    patch(e.out, &matchstate);
    return e.start;
#undef pop
#undef push
}

typedef struct List List;
struct List {
    State **s;
    int n;
};

static List l1, l2;
static int listid;

static void addstate(List *l, State *s)
{
    if (s == NULL || s->lastlist == listid)
        return;
    s->lastlist = listid;
    if (s->c == Split) {
        addstate(l, s->out);
        addstate(l, s->out1);
        return;
    }
    l->s[l->n++] = s;
}

static List *startlist(State *start, List *l)
{
    l->n = 0;
    listid++;
    addstate(l, start);
    return l;
}

static int ismatch(List *l)
{
    int i;

    for (i = 0; i < l->n; i++)
        if (l->s[i] == &matchstate)
            return 1;
    return 0;
}

static void step(List *clist, int c, List *nlist)
{
    int i;
    State *s;

    listid++;
    nlist->n = 0;
    for (i = 0; i < clist->n; i++) {
        s = clist->s[i];
        if (s->c == c || (s->c == '.' && c != 0))
            addstate(nlist, s->out);
    }
}

static int match(State *start, const char *str)
{
    List *clist, *nlist, *t;

    clist = startlist(start, &l1);
    nlist = &l2;
    for (; *str; str++) {
        step(clist, *str & 0xFF, nlist);
        t = clist;
        clist = nlist;
        nlist = t;
    }
    return ismatch(clist);
}

static const char *patterns[] = {
    "a(b|c)*d", "(ab|a)*b+", "x?y?z?xyz", "(a|b)*abb", "((a|b)(c|d))*e?",
    "(0|1(01*0)*1)*", "a+b+c+", "(aa|bb)*(ab|ba)(aa|bb)*", "h(e|a)llo+ (w|W)orld",
    "(a?){6}a{6}", "((((a*)*)*)*)*b",
};

static unsigned long seed = 7;

static int rnd(int n)
{
    seed = seed * 1103515245 + 12345;
    return (int)((seed >> 16) % (unsigned long)n);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 1000;
    int npat = (int)(sizeof patterns / sizeof patterns[0]);
    long total = 0, matched = 0, states = 0, bad = 0;
    char text[64];
    int r, i, k, len;

    l1.s = malloc(1000 * sizeof l1.s[0]);
    l2.s = malloc(1000 * sizeof l2.s[0]);
    for (r = 0; r < rounds; r++) {
        for (i = 0; i < npat; i++) {
            char *post = re2post(patterns[i]);
            State *start = post2nfa(post);
            unsigned long h = 0;

            if (start == NULL) {
                bad++;
                free_states();
                continue;
            }
            states += nstate;
            for (k = 0; k < 40; k++) {
                char alpha[32];
                const char *q;
                int na = 0;

                for (q = patterns[i]; *q; q++)
                    if (!strchr("()|*+?", *q) && !memchr(alpha, *q, na) && na < 31)
                        alpha[na++] = *q;
                if (k % 7 == 3)
                    alpha[na++] = 'q';

                len = rnd(12);
                for (int j = 0; j < len; j++)
                    text[j] = alpha[rnd(na)];
                text[len] = 0;
                if (k % 5 == 0 && i == 8)
                    strcpy(text, k % 10 ? "hallooo World" : "hello world");
                if (match(start, text)) {
                    matched++;
                    h = h * 31 + (unsigned long)len;
                }
                total++;
            }
            if (r == rounds - 1)
                printf("%-28s states %3d hash %lu\n", patterns[i], nstate, h);
            free_states();
        }
    }
    printf("tests %ld matched %ld states %ld bad %ld\n", total, matched, states, bad);
    free(l1.s);
    free(l2.s);
    return 0;
}
