/* symtab.c - a compiler's scoped symbol tables with arena allocation.
 *
 * In the style of the symbol table of lcc (Fraser and Hanson) and of the
 * compilers modelled on it: `typedef struct symbol *Symbol`, one table
 * per scope chained through `previous`, each with 256 buckets of entries
 * that embed the symbol by value, and a list of all symbols through `up`.
 * Everything is allocated from arenas -- big malloc'd blocks carved by a
 * bump pointer -- through NEW/NEW0 macros, and a whole arena is released
 * at once when a function has been compiled.  The global tables are
 * statically allocated structs (`static struct table ids = { GLOBAL }`)
 * reached through `Table identifiers = &ids`.  Strings are interned in
 * their own hash table.  The driver "compiles" generated functions:
 * parameters and locals in nested scopes, lookups of locals, globals and
 * undeclared names.  Shapes: a bump allocator behind allocation macros,
 * globals of struct types holding node pointers and their addresses, a
 * struct nested in a struct definition, foreach with a function pointer.
 *
 * Usage: symtab [functions]      (default 2000)
 */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { CONSTANTS = 1, LABELS, GLOBAL, PARAM, LOCAL };
enum { PERM = 0, FUNC, STMT };

/* ---- alloc.c ---- */
struct block {
  struct block *next;
  char *limit;
  char *avail;
};

union align { long l; char *p; double d; int (*f)(void); };
union header { struct block b; union align a; };

static struct block first[] = { { NULL, NULL, NULL }, { NULL, NULL, NULL }, { NULL, NULL, NULL } };
static struct block *arena[] = { &first[0], &first[1], &first[2] };
static struct block *freeblocks;
static long nblocks;

#define roundup(x, n) (((x) + ((n) - 1)) & (~((n) - 1)))

static void *allocate(unsigned long n, unsigned a)
{
  struct block *ap = arena[a];

  n = roundup(n, sizeof(union align));
  while (n > (unsigned long)(ap->limit - ap->avail)) {
    if ((ap->next = freeblocks) != NULL) {
      freeblocks = freeblocks->next;
      ap = ap->next;
    } else {
      unsigned long m = sizeof(union header) + n + roundup(10 * 1024, sizeof(union align));

      ap->next = malloc(m);
      ap = ap->next;
      if (ap == NULL) {
        fprintf(stderr, "insufficient memory\n");
        exit(1);
      }
      ap->limit = (char *)ap + m;
      nblocks++;
    }
    ap->avail = (char *)((union header *)ap + 1);
    ap->next = NULL;
    arena[a] = ap;
  }
  ap->avail += n;
  return ap->avail - n;
}

static void deallocate(unsigned a)
{
  arena[a]->next = freeblocks;
  freeblocks = first[a].next;
  first[a].next = NULL;
  arena[a] = &first[a];
}

#define NEW(p, a) ((p) = allocate(sizeof *(p), (a)))
#define NEW0(p, a) memset(NEW((p), (a)), 0, sizeof *(p))

/* ---- string.c ---- */
static struct string {
  char *str;
  int len;
  struct string *link;
} *buckets[1024];

static char *string(const char *str)
{
  int len = (int)strlen(str);
  unsigned h = 0;
  const char *s;
  struct string *p;

  for (s = str; *s; s++)
    h = (h << 1) + (unsigned char)*s;
  h &= 1023;
  for (p = buckets[h]; p; p = p->link)
    if (len == p->len && memcmp(str, p->str, len) == 0)
      return p->str;
  p = allocate(sizeof *p, PERM);
  p->len = len;
  p->str = allocate(len + 1, PERM);
  memcpy(p->str, str, len + 1);
  p->link = buckets[h];
  buckets[h] = p;
  return p->str;
}

/* ---- sym.c ---- */
typedef struct CP_COMPACT symbol *Symbol;
struct CP_COMPACT symbol {
  char *name;
  int scope;
  int ref;
  int sclass;
  Symbol up;
};

typedef struct table *Table;
struct table {
  int level;
  Table previous;
  struct CP_COMPACT entry {
    struct symbol sym;
    struct entry *link;
  } *buckets[256];
  Symbol all;
};
#define HASHSIZE (sizeof(((Table)0)->buckets) / sizeof(((Table)0)->buckets[0]))

static struct table cns = { CONSTANTS }, ext = { GLOBAL }, ids = { GLOBAL };
Table constants = &cns;
Table externals = &ext;
Table identifiers = &ids;
int level = GLOBAL;

static Table table(Table tp, int lev)
{
  Table new;

  NEW0(new, FUNC);
  new->previous = tp;
  new->level = lev;
  if (tp)
    new->all = tp->all;
  return new;
}

static void enterscope(void)
{
  ++level;
}

static void exitscope(void)
{
  if (identifiers->level == level)
    identifiers = identifiers->previous;
  --level;
}

static Symbol install(const char *name, Table *tpp, int lev, int arena_id)
{
  Table tp = *tpp;
  struct entry *p;
  unsigned h = (unsigned)(unsigned long)name & (HASHSIZE - 1);

  if (lev > 0 && tp->level < lev)
    tp = *tpp = table(tp, lev);
  NEW0(p, arena_id);
  p->sym.name = (char *)name;
  p->sym.scope = lev;
  p->sym.up = tp->all;
  tp->all = &p->sym;
  p->link = tp->buckets[h];
  tp->buckets[h] = p;
  return &p->sym;
}

static Symbol lookup(const char *name, Table tp)
{
  struct entry *p;
  unsigned h = (unsigned)(unsigned long)name & (HASHSIZE - 1);

  do
    for (p = tp->buckets[h]; p; p = p->link)
      if (name == p->sym.name)
        return &p->sym;
  while ((tp = tp->previous) != NULL);
  return NULL;
}

static void foreach(Table tp, int lev, void (*apply)(Symbol, void *), void *cl)
{
  while (tp && tp->level > lev)
    tp = tp->previous;
  if (tp && tp->level == lev) {
    Symbol p;

    for (p = tp->all; p && p->scope == lev; p = p->up)
      apply(p, cl);
  }
}

static void count_refs(Symbol p, void *cl)
{
  *(long *)cl += p->ref + 1;
}

/* ---- the driver ---- */
static unsigned long rs = 12345;
static int rnd(int n)
{
  rs = rs * 6364136223846793005UL + 1;
  return (int)((rs >> 33) % (unsigned long)n);
}

static char *name_of(char kind, int i)
{
  char buf[32];

  snprintf(buf, sizeof buf, "%c%d", kind, i);
  return string(buf);
}

int main(int argc, char *argv[])
{
  int nfuncs = argc > 1 ? atoi(argv[1]) : 2000, f, i, j;
  long found_local = 0, found_global = 0, missing = 0, refs = 0, globals_refs = 0;
  Symbol p;

  for (i = 0; i < 3000; i++) {
    p = install(name_of('g', i), &identifiers, GLOBAL, PERM);
    p->sclass = 1;
  }
  for (f = 0; f < nfuncs; f++) {
    int nparams = 1 + rnd(5), depth = 1 + rnd(4);

    enterscope();                /* parameters */
    for (i = 0; i < nparams; i++)
      install(name_of('p', i), &identifiers, level, FUNC);
    for (j = 0; j < depth; j++) {
      int nlocals = rnd(12);

      enterscope();
      for (i = 0; i < nlocals; i++)
        install(name_of('l', j * 16 + i), &identifiers, level, FUNC);
      for (i = 0; i < 40; i++) {
        int k = rnd(4);
        char *n = k == 0 ? name_of('p', rnd(6))
                 : k == 1 ? name_of('l', rnd(depth) * 16 + rnd(12))
                 : k == 2 ? name_of('g', rnd(3500)) : name_of('x', rnd(100));

        p = lookup(n, identifiers);
        if (!p)
          missing++;
        else {
          p->ref++;
          if (p->scope == GLOBAL) found_global++; else found_local++;
        }
      }
      foreach(identifiers, level, count_refs, &refs);
    }
    for (j = 0; j < depth; j++)
      exitscope();
    foreach(identifiers, level, count_refs, &refs);
    exitscope();
    deallocate(FUNC);            /* everything of the function at once */
  }
  globals_refs = 0;
  foreach(identifiers, GLOBAL, count_refs, &globals_refs);
  printf("functions %d: locals found %ld, globals found %ld, missing %ld\n", nfuncs,
         found_local, found_global, missing);
  printf("local refs %ld, global refs %ld, arena blocks %ld\n", refs, globals_refs, nblocks);
  (void)constants;
  (void)externals;
  return 0;
}
