/*
 * catalog.c - a hierarchical parts catalog driven by a small command
 * language.  Items are indexed three ways: a binary tree of its own by
 * name and a hash table of its own for the initial bulk names (first
 * written with <search.h>'s tsearch and hsearch, which keep node pointers
 * where the switch cannot see them: the plugin warns there), and a sorted
 * vector for bsearch by id (qsort, qsort_r).  Parse errors are recovered
 * with setjmp/longjmp.
 *
 * usage: catalog [ncommands] [seed]
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <search.h>
#include <setjmp.h>
#include <ctype.h>
#include <compactptr.h>

struct CP_COMPACT item {
  char *name;
  long id;
  long weight;
  long total;                 /* weight of the subtree, filled by rollup */
  int depth;
  struct item *parent;
  struct item *first_child;
  struct item *next_sibling;
};

struct parser {
  const char *text, *pos;
  int line;
  jmp_buf fail;
  char msg[128];
  struct item *pending;       /* built but not yet linked: freed on error */
};

static struct item **vec;     /* every live item, for sorting */
static size_t nvec, capvec;
static long next_id = 1;
static long errors, deleted;


/* name index: an unbalanced binary search tree of our own */
struct CP_COMPACT tnode { struct item *it; struct tnode *l, *r; };
static struct tnode *by_name;

static struct item *idx_insert(struct item *it)
{
  struct tnode **pp = &by_name, *t;
  int c;
  while (*pp) {
    c = strcmp(it->name, (*pp)->it->name);
    if (!c) return (*pp)->it;
    pp = c < 0 ? &(*pp)->l : &(*pp)->r;
  }
  t = malloc(sizeof *t);
  t->it = it; t->l = t->r = NULL;
  *pp = t;
  return it;
}

static struct tnode **idx_slot(const char *name)
{
  struct tnode **pp = &by_name;
  int c;
  while (*pp && (c = strcmp(name, (*pp)->it->name)) != 0)
    pp = c < 0 ? &(*pp)->l : &(*pp)->r;
  return pp;
}

static void idx_delete(struct item *it)
{
  struct tnode **pp = idx_slot(it->name), *t = *pp, **sp, *s;
  if (!t) return;
  if (!t->l) *pp = t->r;
  else if (!t->r) *pp = t->l;
  else {
    for (sp = &t->r; (*sp)->l; sp = &(*sp)->l) ;
    s = *sp; *sp = s->r;
    s->l = t->l; s->r = t->r; *pp = s;
  }
  free(t);
}

static void idx_walk(const struct tnode *t, void (*action)(const struct item *, int), int depth)
{
  if (!t) return;
  idx_walk(t->l, action, depth + 1);
  action(t->it, depth);
  idx_walk(t->r, action, depth + 1);
}

/* string hash of our own: name -> item */
struct CP_COMPACT hent { const char *key; struct item *it; struct hent *next; };
static struct hent **htab;
static size_t hsize;

static size_t hstr(const char *s)
{
  size_t h = 5381;
  while (*s) h = h * 33 + (unsigned char)*s++;
  return h % hsize;
}

static int h_create(size_t n)
{
  hsize = n;
  htab = calloc(n, sizeof *htab);
  return htab != NULL;
}

static void h_enter(const char *key, struct item *it)
{
  size_t b = hstr(key);
  struct hent *e;
  for (e = htab[b]; e; e = e->next)
    if (!strcmp(e->key, key)) return;
  e = malloc(sizeof *e);
  e->key = key; e->it = it; e->next = htab[b];
  htab[b] = e;
}

static struct item *h_find(const char *key)
{
  struct hent *e;
  for (e = htab[hstr(key)]; e; e = e->next)
    if (!strcmp(e->key, key)) return e->it;
  return NULL;
}

static void h_destroy(void)
{
  size_t i;
  struct hent *e, *n;
  for (i = 0; i < hsize; i++)
    for (e = htab[i]; e; e = n) { n = e->next; free(e); }
  free(htab);
}

static unsigned long seed;
static unsigned long rnd(void)
{
  seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
  return seed;
}

static int cmp_weight(const void *a, const void *b)
{
  const struct item *x = *(struct item *const *)a;
  const struct item *y = *(struct item *const *)b;
  if (x->weight != y->weight) return x->weight < y->weight ? -1 : 1;
  return x->id < y->id ? -1 : x->id > y->id;
}

static int cmp_id(const void *a, const void *b)
{
  const struct item *x = *(struct item *const *)a;
  const struct item *y = *(struct item *const *)b;
  return x->id < y->id ? -1 : x->id > y->id;
}

/* qsort_r: the context picks the field and the direction */
struct sortspec { int field; int desc; };
static int cmp_spec(const void *a, const void *b, void *ctx)
{
  const struct sortspec *s = ctx;
  const struct item *x = *(struct item *const *)a;
  const struct item *y = *(struct item *const *)b;
  long kx = s->field == 0 ? x->total : s->field == 1 ? x->depth : (long)strlen(x->name);
  long ky = s->field == 0 ? y->total : s->field == 1 ? y->depth : (long)strlen(y->name);
  int r = kx < ky ? -1 : kx > ky;
  if (!r) r = strcmp(x->name, y->name);
  return s->desc ? -r : r;
}

static void vec_push(struct item *it)
{
  if (nvec == capvec) {
    capvec = capvec ? capvec * 2 : 64;
    vec = realloc(vec, capvec * sizeof *vec);
    if (!vec) { perror("realloc"); exit(1); }
  }
  vec[nvec++] = it;
}

static void vec_remove(struct item *it)
{
  size_t i;
  for (i = nvec; i-- > 0;)
    if (vec[i] == it) { vec[i] = vec[--nvec]; return; }
}

static struct item *lookup(const char *name)
{
  struct tnode *t = *idx_slot(name);
  return t ? t->it : NULL;
}

/* ---------------- parser ---------------- */

static _Noreturn void fail(struct parser *p, const char *what)
{
  snprintf(p->msg, sizeof p->msg, "line %d: %s", p->line, what);
  longjmp(p->fail, 1);
}

static void skip_blanks(struct parser *p)
{
  while (*p->pos == ' ' || *p->pos == '\t') p->pos++;
}

static char *word(struct parser *p, char *buf, size_t n)
{
  size_t k = 0;
  skip_blanks(p);
  if (!isalnum((unsigned char)*p->pos)) fail(p, "expected a name");
  while (isalnum((unsigned char)*p->pos) || *p->pos == '_') {
    if (k + 1 >= n) fail(p, "name too long");
    buf[k++] = *p->pos++;
  }
  buf[k] = 0;
  return buf;
}

static long number(struct parser *p)
{
  char *end;
  long v;
  skip_blanks(p);
  v = strtol(p->pos, &end, 10);
  if (end == p->pos) fail(p, "expected a number");
  p->pos = end;
  return v;
}

static void end_of_line(struct parser *p)
{
  skip_blanks(p);
  if (*p->pos && *p->pos != '\n') fail(p, "junk at end of line");
}

static void link_child(struct item *parent, struct item *it)
{
  it->parent = parent;
  it->depth = parent ? parent->depth + 1 : 0;
  if (parent) {
    it->next_sibling = parent->first_child;
    parent->first_child = it;
  }
}

static void unlink_child(struct item *it)
{
  struct item **pp;
  if (!it->parent) return;
  for (pp = &it->parent->first_child; *pp; pp = &(*pp)->next_sibling)
    if (*pp == it) { *pp = it->next_sibling; break; }
  it->parent = NULL;
}

static void cmd_add(struct parser *p)
{
  char name[48], pname[48];
  struct item *it, *parent = NULL;
  word(p, name, sizeof name);
  it = calloc(1, sizeof *it);
  it->name = strdup(name);
  it->id = next_id++;
  p->pending = it;
  skip_blanks(p);
  if (*p->pos == '<') {
    p->pos++;
    word(p, pname, sizeof pname);
    parent = lookup(pname);
    if (!parent) fail(p, "unknown parent");
  }
  it->weight = number(p);
  if (it->weight < 0) fail(p, "negative weight");
  end_of_line(p);
  if (idx_insert(it) != it) fail(p, "duplicate name");
  p->pending = NULL;
  link_child(parent, it);
  vec_push(it);
}

static void destroy(struct item *it)
{
  struct item *c = it->first_child, *next;
  for (; c; c = next) {
    next = c->next_sibling;
    c->parent = NULL;
    destroy(c);
  }
  idx_delete(it);
  vec_remove(it);
  free(it->name);
  free(it);
  deleted++;
}

static void cmd_del(struct parser *p)
{
  char name[48];
  struct item *it;
  word(p, name, sizeof name);
  end_of_line(p);
  if (!(it = lookup(name))) fail(p, "no such item");
  unlink_child(it);
  destroy(it);
}

static void cmd_move(struct parser *p)
{
  char name[48], to[48];
  struct item *it, *dst, *a;
  word(p, name, sizeof name);
  word(p, to, sizeof to);
  end_of_line(p);
  if (!(it = lookup(name)) || !(dst = lookup(to))) fail(p, "no such item");
  for (a = dst; a; a = a->parent)
    if (a == it) fail(p, "cycle");
  unlink_child(it);
  link_child(dst, it);
}

static struct parser ps;

static long run(const char *text)
{
  struct parser *p = &ps;
  long ok = 0;
  p->text = p->pos = text;
  p->line = 0;
  while (*p->pos) {
    p->line++;
    if (setjmp(p->fail)) {
      errors++;
      if (errors <= 5 || errors % 20000 == 0) printf("error %ld: %s\n", errors, p->msg);
      if (p->pending) {
        free(p->pending->name);
        free(p->pending);
        p->pending = NULL;
        next_id--;
      }
      while (*p->pos && *p->pos != '\n') p->pos++;
      if (*p->pos) p->pos++;
      continue;
    }
    skip_blanks(p);
    if (!strncmp(p->pos, "add ", 4)) { p->pos += 4; cmd_add(p); }
    else if (!strncmp(p->pos, "del ", 4)) { p->pos += 4; cmd_del(p); }
    else if (!strncmp(p->pos, "mv ", 3)) { p->pos += 3; cmd_move(p); }
    else if (*p->pos != '\n') fail(p, "unknown command");
    ok++;
    while (*p->pos && *p->pos != '\n') p->pos++;
    if (*p->pos) p->pos++;
  }
  return ok;
}

/* ---------------- reports ---------------- */

static long walk_count, walk_maxdepth, walk_hash;
static void walk_action(const struct item *it, int depth)
{
  {
    walk_count++;
    if (depth > walk_maxdepth) walk_maxdepth = depth;
    walk_hash = walk_hash * 31 + it->id + (long)strlen(it->name);
    walk_hash &= 0xffffffffffffL;
  }
}

static long rollup(struct item *it)
{
  struct item *c;
  long t = it->weight;
  for (c = it->first_child; c; c = c->next_sibling)
    t += rollup(c);
  return it->total = t;
}

static char *generate(long n)
{
  size_t cap = (size_t)n * 40 + 64, len = 0;
  char *buf = malloc(cap);
  long i, made = 0;
  for (i = 0; i < n; i++) {
    unsigned long r = rnd() % 100;
    long a = made ? (long)(rnd() % made) : 0, b = made ? (long)(rnd() % made) : 0;
    if (r < 70 || made < 10) {
      if (made && rnd() % 4)
        len += sprintf(buf + len, "add p%lx <p%lx %lu\n", (unsigned long)made, (unsigned long)a, rnd() % 1000);
      else
        len += sprintf(buf + len, "add p%lx %lu\n", (unsigned long)made, rnd() % 1000);
      made++;
    } else if (r < 80) len += sprintf(buf + len, "del p%lx\n", (unsigned long)a);
    else if (r < 92) len += sprintf(buf + len, "mv p%lx p%lx\n", (unsigned long)a, (unsigned long)b);
    else if (r < 95) len += sprintf(buf + len, "add p%lx -%d\n", (unsigned long)a, 5);
    else if (r < 98) len += sprintf(buf + len, "add %s\n", "bad?name 3");
    else len += sprintf(buf + len, "frob p%lx\n", (unsigned long)a);
  }
  buf[len] = 0;
  return buf;
}

int main(int argc, char **argv)
{
  long n = argc > 1 ? atol(argv[1]) : 60000;
  char *text;
  size_t i;
  long ok, roots = 0, sum = 0;
  struct item *hit;
  struct sortspec spec;

  seed = argc > 2 ? strtoul(argv[2], NULL, 10) : 88172645463325252UL;
  text = generate(n);
  ok = run(text);
  printf("commands %ld ok, %ld errors, %ld deleted, %zu live\n", ok, errors, deleted, nvec);

  /* hash the live names for constant-time lookups */
  if (!h_create(nvec * 2 + 16)) { perror("h_create"); return 1; }
  for (i = 0; i < nvec; i++) {
    h_enter(vec[i]->name, vec[i]);
  }
  for (i = 0; i < nvec; i++)
    if (!vec[i]->parent) { rollup(vec[i]); roots++; }
  printf("roots %ld\n", roots);

  qsort(vec, nvec, sizeof *vec, cmp_weight);
  printf("lightest:");
  for (i = 0; i < 5 && i < nvec; i++) printf(" %s/%ld", vec[i]->name, vec[i]->weight);
  printf("\nheaviest:");
  for (i = nvec > 5 ? nvec - 5 : 0; i < nvec; i++) printf(" %s/%ld", vec[i]->name, vec[i]->weight);
  printf("\n");

  spec.field = 0; spec.desc = 1;
  qsort_r(vec, nvec, sizeof *vec, cmp_spec, &spec);
  printf("largest subtrees:");
  for (i = 0; i < 5 && i < nvec; i++) printf(" %s=%ld", vec[i]->name, vec[i]->total);
  spec.field = 1;
  qsort_r(vec, nvec, sizeof *vec, cmp_spec, &spec);
  printf("\ndeepest: %s at %d\n", nvec ? vec[0]->name : "-", nvec ? vec[0]->depth : 0);

  /* bsearch by id; ids are probed pseudo-randomly */
  qsort(vec, nvec, sizeof *vec, cmp_id);
  {
    long hits = 0, probes = 0, hashhits = 0;
    struct item key, *kp = &key, **found;
    for (probes = 0; probes < 200000; probes++) {
      key.id = 1 + (long)(rnd() % (unsigned long)next_id);
      found = bsearch(&kp, vec, nvec, sizeof *vec, cmp_id);
      if (found) {
        hits++;
        sum += (*found)->weight;
        hit = h_find((*found)->name);
        if (hit == *found && lookup((*found)->name) == *found) hashhits++;
      }
    }
    printf("bsearch: %ld probes, %ld hits, %ld confirmed by hash and tree, weight sum %ld\n",
           probes, hits, hashhits, sum);
  }

  /* grow: every leaf gets a few new children, which may run the heap up */
  {
    size_t before = nvec, k;
    char nm[48];
    long added = 0;
    for (i = 0; i < before; i++) {
      struct item *leaf = vec[i];
      if (leaf->first_child) continue;
      for (k = 0; k < 3; k++) {
        struct item *it = calloc(1, sizeof *it);
        snprintf(nm, sizeof nm, "%s_%zu", leaf->name, k);
        it->name = strdup(nm);
        it->id = next_id++;
        it->weight = (long)(rnd() % 100);
        idx_insert(it);
        link_child(leaf, it);
        vec_push(it);
        added++;
      }
    }
    printf("grew %ld items, %zu live\n", added, nvec);
  }

  idx_walk(by_name, walk_action, 0);
  printf("twalk: %ld nodes, max depth %ld, hash %ld\n", walk_count, walk_maxdepth, walk_hash);

  {
    long found = 0;
    for (i = 0; i < nvec; i += 7) {
      hit = h_find(vec[i]->name);
      if (hit && hit->id == vec[i]->id) found++;
    }
    printf("hash re-check: %ld found\n", found);
  }

  /* tear down through the tree */
  while (by_name) {
    struct item *it = by_name->it;
    idx_delete(it);
    free(it->name);
    free(it);
  }
  h_destroy();
  free(vec);
  free(text);
  return 0;
}
