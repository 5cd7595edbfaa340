/* trie.c - a word-frequency trie with prefix queries and pruning deletes.
 *
 * In the style of the 26-way tries of textbooks and spelling checkers:
 * every node has an array of 26 child pointers indexed by letter and a
 * count of words ending there; words come from a deterministic generator
 * of pronounceable text.  Lookups walk child arrays through an accessor
 * macro, the most frequent words are found by a recursive walk that
 * writes into a shared buffer, and deleting a word prunes the nodes left
 * empty on the way back up.  Shapes: an array of node pointers inside the
 * node, an accessor macro over it (`CHILD(t, c)`), recursion with a char
 * buffer, a node counter global, a small fixed-size "top ten" table of
 * node pointers.
 *
 * Usage: trie [words]       (default 200000)
 */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ALPHA 26
#define MAXWORD 32
#define CHILD(t, c) ((t)->child[(c) - 'a'])

struct CP_COMPACT trie {
  int count;                    /* words ending here */
  int below;                    /* words ending in this subtree */
  struct trie *child[ALPHA];
};

static long nodes;

static struct trie *talloc(void)
{
  struct trie *t = (struct trie *)calloc(1, sizeof(struct trie));

  if (t == NULL) {
    fprintf(stderr, "trie: out of memory\n");
    exit(2);
  }
  nodes++;
  return t;
}

static void add(struct trie *t, const char *w)
{
  for (; *w; w++) {
    t->below++;
    if (CHILD(t, *w) == NULL)
      CHILD(t, *w) = talloc();
    t = CHILD(t, *w);
  }
  t->below++;
  t->count++;
}

static int lookup(struct trie *t, const char *w)
{
  while (t && *w)
    t = CHILD(t, *w++);
  return t ? t->count : 0;
}

static int prefix_count(struct trie *t, const char *p)
{
  while (t && *p)
    t = CHILD(t, *p++);
  return t ? t->below : 0;
}

/* Removes one occurrence of w; returns 1 if t became empty and was freed. */
static int removeword(struct trie *t, const char *w, int *removed)
{
  if (*w == '\0') {
    if (t->count > 0) {
      t->count--;
      t->below--;
      *removed = 1;
    }
  } else if (CHILD(t, *w) != NULL) {
    if (removeword(CHILD(t, *w), w + 1, removed))
      CHILD(t, *w) = NULL;
    if (*removed)
      t->below--;
  }
  if (t->below == 0 && nodes > 1) {
    free(t);
    nodes--;
    return 1;
  }
  return 0;
}

#define TOP 10
static struct trie *top_node[TOP];
static char top_word[TOP][MAXWORD];

static void consider(struct trie *t, const char *word)
{
  int i, j;

  for (i = 0; i < TOP; i++)
    if (top_node[i] == NULL || t->count > top_node[i]->count ||
        (t->count == top_node[i]->count && strcmp(word, top_word[i]) < 0))
      break;
  if (i == TOP)
    return;
  for (j = TOP - 1; j > i; j--) {
    top_node[j] = top_node[j - 1];
    strcpy(top_word[j], top_word[j - 1]);
  }
  top_node[i] = t;
  strcpy(top_word[i], word);
}

static void walk(struct trie *t, char *buf, int depth, long *distinct)
{
  int c;

  if (t->count > 0) {
    buf[depth] = '\0';
    (*distinct)++;
    consider(t, buf);
  }
  for (c = 0; c < ALPHA; c++)
    if (t->child[c] != NULL) {
      buf[depth] = (char)('a' + c);
      walk(t->child[c], buf, depth + 1, distinct);
    }
}

static void freetrie(struct trie *t)
{
  int c;

  for (c = 0; c < ALPHA; c++)
    if (t->child[c])
      freetrie(t->child[c]);
  free(t);
}

/* pronounceable words: consonant-vowel syllables, Zipf-ish lengths */
static unsigned long state = 7;
static unsigned next_rand(void)
{
  state = state * 6364136223846793005UL + 1;
  return (unsigned)(state >> 33);
}

static void make_word(char *w)
{
  static const char cons[] = "bcdfghklmnprstvz", vow[] = "aeiou";
  int syll = 1 + next_rand() % 3, i, n = 0;

  if (next_rand() % 4 == 0)
    syll += next_rand() % 3;
  for (i = 0; i < syll; i++) {
    unsigned r = next_rand();

    w[n++] = cons[r % 16 < 12 ? r % 6 : r % 16];
    w[n++] = vow[(r >> 8) % 5];
  }
  if (next_rand() % 3 == 0)
    w[n++] = cons[next_rand() % 16];
  w[n] = '\0';
}

int main(int argc, char *argv[])
{
  struct trie *root;
  int n = argc > 1 ? atoi(argv[1]) : 200000, i, removed_total = 0;
  char w[MAXWORD], buf[MAXWORD];
  long distinct = 0;
  static const char *probes[] = { "ba", "ce", "ta", "dede", "zu", "ma" };

  root = talloc();
  for (i = 0; i < n; i++) {
    make_word(w);
    add(root, w);
  }
  printf("%d words, %ld nodes\n", n, nodes);
  for (i = 0; i < 6; i++)
    printf("prefix %s: %d words, exact %d\n", probes[i], prefix_count(root, probes[i]),
           lookup(root, probes[i]));
  state = 99;
  for (i = 0; i < n / 2; i++) {
    int removed = 0;

    make_word(w);
    removeword(root, w, &removed);
    removed_total += removed;
  }
  walk(root, buf, 0, &distinct);
  printf("removed %d, %ld nodes, %ld distinct words left\n", removed_total, nodes, distinct);
  for (i = 0; i < TOP && top_node[i]; i++)
    printf("%2d. %-12s %d\n", i + 1, top_word[i], top_node[i]->count);
  freetrie(root);
  return 0;
}
