/* amalgam.c - two modules of a text tool built as one translation unit.
 *
 * In the style of amalgamated and "unity" builds (SQLite's sqlite3.c,
 * Lua's onelua.c, CMake's UNITY_BUILD): the source files of a program are
 * concatenated into one .c file, each behind a "Begin file" banner, and
 * each keeps the short macro names it had on its own -- here both
 * modules have a HASH macro and a table size; the first module #undefs
 * its macros when it ends, the second defines its own.  Module intern.c
 * interns words into nodes on hash chains; module bigram.c counts pairs
 * of interned words in a second chained table.  The driver feeds a
 * generated text through both and prints table statistics.  Shapes: the
 * same macro name defined, #undef'd and redefined in one file, functions
 * using a macro whose definition changes later in the file.
 *
 * Usage: amalgam [words]        (default 300000)
 */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/************** Begin file intern.c ******************************************/
#define TABLE_SIZE 4093
#define HASH(h) ((h) % TABLE_SIZE)

struct CP_COMPACT istr {
  unsigned hash;
  int len;
  long refs;
  struct istr *next;
  char text[20];
};

static struct istr **itab;
static long n_interned;

static unsigned strhash(const char *s)
{
  unsigned h = 5381;

  while (*s)
    h = h * 33 + (unsigned char)*s++;
  return h;
}

static void intern_init(void)
{
  itab = calloc(TABLE_SIZE, sizeof(struct istr *));
}

static struct istr *intern(const char *s)
{
  unsigned h = strhash(s);
  struct istr *p;

  for (p = itab[HASH(h)]; p; p = p->next)
    if (p->hash == h && strcmp(p->text, s) == 0) {
      p->refs++;
      return p;
    }
  p = malloc(sizeof *p);
  p->hash = h;
  p->len = (int)strlen(s);
  p->refs = 1;
  snprintf(p->text, sizeof p->text, "%s", s);
  p->next = itab[HASH(h)];
  itab[HASH(h)] = p;
  n_interned++;
  return p;
}

/* longest chain and number of used buckets */
static void intern_stats(int *longest, int *used)
{
  int i;

  *longest = *used = 0;
  for (i = 0; i < TABLE_SIZE; i++) {
    int len = 0;
    struct istr *p;

    for (p = itab[i]; p; p = p->next)
      len++;
    if (len)
      ++*used;
    if (len > *longest)
      *longest = len;
  }
}

static void intern_free(void)
{
  int i;

  for (i = 0; i < TABLE_SIZE; i++)
    while (itab[i]) {
      struct istr *p = itab[i];

      itab[i] = p->next;
      free(p);
    }
  free(itab);
}
#undef HASH
#undef TABLE_SIZE
/************** End of intern.c **********************************************/

/************** Begin file bigram.c ******************************************/
#define TABLE_SIZE 4091
#define HASH(h) ((h) % TABLE_SIZE)

struct CP_COMPACT pair {
  struct istr *a, *b;
  long count;
  struct pair *next;
};

static struct pair *ptab[TABLE_SIZE];
static long n_pairs;

static void count_pair(struct istr *a, struct istr *b)
{
  struct pair *p;
  unsigned h = HASH(a->hash * 31u + b->hash);

  for (p = ptab[h]; p; p = p->next)
    if (p->a == a && p->b == b) {
      p->count++;
      return;
    }
  p = malloc(sizeof *p);
  p->a = a;
  p->b = b;
  p->count = 1;
  p->next = ptab[h];
  ptab[h] = p;
  n_pairs++;
}

static struct pair *top_pair(void)
{
  struct pair *best = NULL, *p;
  int i;

  for (i = 0; i < TABLE_SIZE; i++)
    for (p = ptab[i]; p; p = p->next)
      if (!best || p->count > best->count ||
          (p->count == best->count && strcmp(p->a->text, best->a->text) < 0))
        best = p;
  return best;
}

static void bigram_free(void)
{
  int i;

  for (i = 0; i < TABLE_SIZE; i++)
    while (ptab[i]) {
      struct pair *p = ptab[i];

      ptab[i] = p->next;
      free(p);
    }
}
/************** End of bigram.c **********************************************/

static unsigned long seed = 2024;
static void next_word(char *w)
{
  static const char *syll[] = { "ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "ze", "po" };
  int n, i;

  seed = seed * 6364136223846793005UL + 1442695040888963407UL;
  n = 1 + (int)((seed >> 60) % 4);
  w[0] = '\0';
  for (i = 0; i < n; i++) {
    seed = seed * 6364136223846793005UL + 1442695040888963407UL;
    strcat(w, syll[(seed >> 33) % (i == 0 ? 4 : 10)]);
  }
}

int main(int argc, char *argv[])
{
  long n = argc > 1 ? atol(argv[1]) : 300000, i;
  char w[16];
  struct istr *prev = NULL, *cur;
  struct pair *top;
  int longest, used;

  intern_init();
  for (i = 0; i < n; i++) {
    next_word(w);
    cur = intern(w);
    if (prev)
      count_pair(prev, cur);
    prev = cur;
  }
  intern_stats(&longest, &used);
  top = top_pair();
  printf("%ld words, %ld distinct, %ld distinct pairs\n", n, n_interned, n_pairs);
  printf("intern table: %d buckets used, longest chain %d\n", used, longest);
  printf("most frequent pair: %s %s (%ld)\n", top->a->text, top->b->text, top->count);
  bigram_free();
  intern_free();
  return 0;
}
