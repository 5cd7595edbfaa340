/* Statics and globals of a compact type declared before they are defined
 * (a tentative definition, or extern), whose initializers link them to
 * each other: a state machine's states, a ring of three, a table defined
 * after a tentative declaration.  Each lives in the compact heap and gets
 * its initializer at its first use, whichever declaration comes first.
 * Then a heap of transitions big enough to switch mid-run, and the
 * statics walked again. */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

struct CP_COMPACT state {
  const char *name;
  struct state *on_a, *on_b;
  int accepting;
};

/* Tentative definitions first, as a state table is often written. */
static struct state s_start, s_saw_a;
extern struct state s_done;

static struct state s_start = {"start", &s_saw_a, &s_start, 0};
static struct state s_saw_a = {"saw_a", &s_saw_a, &s_done, 0};
struct state s_done = {"done", &s_saw_a, &s_start, 1};

/* A ring of three, each naming the next before it is defined. */
struct CP_COMPACT ring {
  int id;
  struct ring *next;
};
extern struct ring r1, r2;
struct ring r0 = {0, &r1};
struct ring r1 = {1, &r2};
struct ring r2 = {2, &r0};

/* An array defined after a tentative declaration. */
struct CP_COMPACT slot {
  int key;
  struct slot *link;
};
static struct slot table[3];
static struct slot table[3] = {{10, &table[1]}, {20, &table[2]}, {30, &table[0]}};

struct CP_COMPACT step {
  struct state *from;
  struct step *next;
};

static int run(const char *input) {
  struct state *s = &s_start;
  for (const char *c = input; *c; c++)
    s = *c == 'a' ? s->on_a : s->on_b;
  return s->accepting;
}

int main(void) {
  struct step *log = NULL;
  long accepted = 0, ring = 0, slots = 0;
  char in[9];
  for (int i = 0; i < 60000; i++) {
    for (int k = 0; k < 8; k++)
      in[k] = (i >> k) & 1 ? 'a' : 'b';
    in[8] = 0;
    accepted += run(in);
    struct step *st = malloc(sizeof *st);
    if (!st)
      return 2;
    st->from = i % 3 == 0 ? &s_start : i % 3 == 1 ? &s_saw_a : &s_done;
    st->next = log;
    log = st;
  }
  const struct ring *r = &r0;
  for (int i = 0; i < 10; i++, r = r->next)
    ring = ring * 3 + r->id;
  const struct slot *t = &table[0];
  for (int i = 0; i < 7; i++, t = t->link)
    slots += t->key;
  long steps = 0, done = 0;
  while (log) {
    struct step *n = log->next;
    steps++;
    done += log->from == &s_done && log->from->accepting;
    free(log);
    log = n;
  }
  printf("accepted %ld ring %ld slots %ld steps %ld done %ld %s %s\n", accepted,
         ring, slots, steps, done, s_start.on_a->name, s_done.on_b->on_a->name);
  return 0;
}
