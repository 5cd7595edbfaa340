/* A DOM-like tree built by a recursive-descent parser over a generated
 * markup string; parent/first_child/last_child/next_sibling links,
 * attribute lists with the name in a flexible array member, a visitor
 * table of function pointers per node kind, deep clone by struct copy. */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum kind { K_ELEM, K_TEXT, K_COUNT };

struct CP_COMPACT attr {
    struct attr *next;
    int value;
    char name[];
};

typedef struct CP_COMPACT dom_node {
    enum kind kind;
    const struct node_ops *ops;
    struct dom_node *parent, *first_child, *last_child, *next_sibling, *prev_sibling;
    struct attr *attrs;
    char tag[8];
    int nchildren;
    long textlen;
} dom_node;

struct node_ops {
    const char *name;
    unsigned long (*hash)(const dom_node *);
};

static unsigned long elem_hash(const dom_node *n) {
    unsigned long h = 5381; const char *s = n->tag; const struct attr *a;
    while (*s) h = h * 33 + (unsigned char)*s++;
    for (a = n->attrs; a; a = a->next) h = h * 131 + a->value + strlen(a->name);
    return h + n->nchildren;
}
static unsigned long text_hash(const dom_node *n) { return (unsigned long)n->textlen * 2654435761u; }

static const struct node_ops ops_table[K_COUNT] = {
    { "element", elem_hash }, { "text", text_hash },
};

/* ---------- generator ---------- */
static unsigned seed = 7;
static unsigned rnd(unsigned m) { seed = seed * 1664525u + 1013904223u; return (seed >> 10) % m; }
static char *buf; static size_t blen, bcap;
static void emit(const char *s) {
    size_t l = strlen(s);
    if (blen + l + 1 > bcap) { bcap = (blen + l + 1) * 2; buf = realloc(buf, bcap); }
    memcpy(buf + blen, s, l + 1); blen += l;
}
static const char *tags[] = { "div", "span", "p", "ul", "li", "a", "b" };
static void gen(int depth, int *budget) {
    char tmp[64]; int i, nkids, na;
    const char *t = tags[rnd(7)];
    na = rnd(3);
    snprintf(tmp, sizeof tmp, "<%s", t); emit(tmp);
    for (i = 0; i < na; i++) {
        int c = 'a' + (int)rnd(26); /* drawn in order: argument order is unspecified */
        unsigned v = rnd(1000);
        snprintf(tmp, sizeof tmp, " %c%d=%u", c, i, v);
        emit(tmp);
    }
    emit(">");
    nkids = depth > 6 ? 0 : (int)rnd(5);
    for (i = 0; i < nkids && *budget > 0; i++) {
        (*budget)--;
        if (rnd(3) == 0) { int k, l = 1 + rnd(20); for (k = 0; k < l; k++) { tmp[k] = 'a' + rnd(26); } tmp[l] = 0; emit(tmp); }
        else gen(depth + 1, budget);
    }
    snprintf(tmp, sizeof tmp, "</%s>", t); emit(tmp);
}

/* ---------- tree ---------- */
static dom_node *new_node(enum kind k) {
    dom_node *n = calloc(1, sizeof *n);
    n->kind = k; n->ops = &ops_table[k];
    return n;
}
static void append_child(dom_node *p, dom_node *c) {
    c->parent = p;
    c->prev_sibling = p->last_child;
    if (p->last_child) p->last_child->next_sibling = c; else p->first_child = c;
    p->last_child = c;
    p->nchildren++;
}
static void remove_node(dom_node *c) {
    dom_node *p = c->parent;
    if (c->prev_sibling) c->prev_sibling->next_sibling = c->next_sibling; else p->first_child = c->next_sibling;
    if (c->next_sibling) c->next_sibling->prev_sibling = c->prev_sibling; else p->last_child = c->prev_sibling;
    c->parent = c->next_sibling = c->prev_sibling = NULL;
    p->nchildren--;
}
static void free_tree(dom_node *n) {
    dom_node *c = n->first_child, *nx;
    struct attr *a, *an;
    for (; c; c = nx) { nx = c->next_sibling; free_tree(c); }
    for (a = n->attrs; a; a = an) { an = a->next; free(a); }
    free(n);
}

/* ---------- parser ---------- */
static const char *pos;
static dom_node *parse_element(void);
static void parse_content(dom_node *parent) {
    while (*pos && !(pos[0] == '<' && pos[1] == '/')) {
        if (*pos == '<') append_child(parent, parse_element());
        else {
            dom_node *t = new_node(K_TEXT);
            const char *s = pos;
            while (*pos && *pos != '<') pos++;
            t->textlen = pos - s;
            append_child(parent, t);
        }
    }
}
static dom_node *parse_element(void) {
    dom_node *e = new_node(K_ELEM);
    struct attr **tail = &e->attrs;
    int i = 0;
    pos++; /* '<' */
    while (*pos != '>' && *pos != ' ' && i < 7) e->tag[i++] = *pos++;
    e->tag[i] = 0;
    while (*pos == ' ') {
        const char *nm; size_t len; struct attr *a;
        pos++;
        nm = pos;
        while (*pos != '=') pos++;
        len = pos - nm;
        a = malloc(sizeof *a + len + 1);
        memcpy(a->name, nm, len); a->name[len] = 0;
        pos++;
        a->value = (int)strtol(pos, (char **)&pos, 10);
        a->next = NULL;
        *tail = a; tail = &a->next;
    }
    pos++; /* '>' */
    parse_content(e);
    while (*pos != '>') pos++;
    pos++;
    return e;
}

/* ---------- traversals ---------- */
static unsigned long hash_tree(const dom_node *n, int depth) {
    unsigned long h = n->ops->hash(n) * (depth + 1);
    const dom_node *c;
    for (c = n->first_child; c; c = c->next_sibling) h = h * 1000003 ^ hash_tree(c, depth + 1);
    return h;
}
/* non-recursive preorder walk using parent links */
static long count_iter(dom_node *root, long *texts) {
    dom_node *n = root; long cnt = 0;
    *texts = 0;
    while (n) {
        cnt++;
        if (n->kind == K_TEXT) (*texts)++;
        if (n->first_child) n = n->first_child;
        else {
            while (n && n != root && !n->next_sibling) n = n->parent;
            if (!n || n == root) break;
            n = n->next_sibling;
        }
    }
    return cnt;
}
static dom_node *clone(const dom_node *n) {
    dom_node *c = malloc(sizeof *c);
    const dom_node *k;
    struct attr **tail = &c->attrs; const struct attr *a;
    *c = *n;                       /* whole-struct copy, then fix links */
    c->parent = c->first_child = c->last_child = c->next_sibling = c->prev_sibling = NULL;
    c->nchildren = 0;
    c->attrs = NULL;
    for (a = n->attrs; a; a = a->next) {
        size_t l = strlen(a->name);
        struct attr *b = malloc(sizeof *b + l + 1);
        memcpy(b->name, a->name, l + 1); b->value = a->value + 1; b->next = NULL;
        *tail = b; tail = &b->next;
    }
    for (k = n->first_child; k; k = k->next_sibling) append_child(c, clone(k));
    return c;
}
/* remove every <b> element, promoting its children */
static int unwrap_b(dom_node *n) {
    dom_node *c = n->first_child, *nx; int cnt = 0;
    for (; c; c = nx) {
        nx = c->next_sibling;
        cnt += unwrap_b(c);
        if (c->kind == K_ELEM && strcmp(c->tag, "b") == 0) {
            dom_node *g;
            while ((g = c->first_child) != NULL) {
                remove_node(g);
                g->parent = n;
                g->prev_sibling = c->prev_sibling; g->next_sibling = c;
                if (c->prev_sibling) c->prev_sibling->next_sibling = g; else n->first_child = g;
                c->prev_sibling = g;
                n->nchildren++;
            }
            remove_node(c);
            free_tree(c);
            cnt++;
        }
    }
    return cnt;
}
static dom_node *deepest(dom_node *n, int *depth) {
    static dom_node *best; static int bestd;   /* static local cache */
    dom_node *c;
    if (*depth == 0) { best = n; bestd = 0; }
    if (*depth > bestd) { best = n; bestd = *depth; }
    for (c = n->first_child; c; c = c->next_sibling) { (*depth)++; deepest(c, depth); (*depth)--; }
    return best;
}

int main(int argc, char **argv) {
    int budget = argc > 1 ? atoi(argv[1]) : 30000, round;
    dom_node *doc = new_node(K_ELEM), *copy;
    long texts, total;
    strcpy(doc->tag, "#doc");
    emit("");
    while (budget > 0) { budget--; gen(0, &budget); }
    pos = buf;
    parse_content(doc);
    total = count_iter(doc, &texts);
    printf("parsed %zu bytes: %ld nodes, %ld text, hash %lu\n", blen, total, texts, hash_tree(doc, 0));
    for (round = 0; round < 2; round++) {
        int d = 0; dom_node *dp;
        copy = clone(doc);
        printf("unwrapped %d b elements\n", unwrap_b(copy));
        total = count_iter(copy, &texts);
        dp = deepest(copy, &d);
        printf("copy: %ld nodes, %ld text, hash %lu, deepest %s/%s\n", total, texts, hash_tree(copy, 0),
               dp->ops->name, dp->kind == K_ELEM ? dp->tag : "-");
        free_tree(doc);
        doc = copy;
    }
    free_tree(doc);
    free(buf);
    return 0;
}
