// A field of a compact struct may keep the address of a handle field
// (rewrite/slot-pointer-field.c); what would read it as a native slot is
// refused: its own address taken (a read through it would take the 4-byte
// handle slot for an 8-byte pointer), an array of such pointers in a field,
// and a link's address read as a head struct by the program's own code
// (<sys/queue.h>'s TAILQ_LAST and TAILQ_PREV do it, and are accepted as
// the header writes them: idioms/Inputs/queue-links.c).
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
#include <compactptr.h>
#include <sys/queue.h>

struct CP_COMPACT node { int key; struct node *next; };
struct queue { struct node *head; struct node **tail; };
struct multi { struct node *head; struct node **tails[2]; };

static void link_at(struct node ***tailp, struct node *n) { **tailp = n; }

void push(struct queue *q, struct node *n) {
  link_at(&q->tail, n); // expected-error {{the address of field 'tail', which may hold the address of a handle field, is taken; what is read through it (`**pp`, memcpy, an atomic load) would take a 32-bit handle slot for an 8-byte pointer: read and write the field itself}}
  q->tail = &n->next;
}

void mark(struct multi *m, struct node *n) {
  m->tails[0] = &n->next; // expected-error {{the address of handle field 'next' is stored into memory; a pointer to a handle field can only be kept in local variables, parameters and fields of compact structs, passed to functions of this translation unit and dereferenced; an array of such pointers in a field cannot keep one (keep each in a field of its own)}}
}

struct CP_COMPACT job { int id; TAILQ_ENTRY(job) link; };
TAILQ_HEAD(jobq, job);

struct job *last(struct jobq *q) {
  return *((struct jobq *)q->tqh_last)->tqh_last; // expected-error {{converted to 'struct jobq *' (a link's address read as a head: accepted only as <sys/queue.h>'s TAILQ_LAST, TAILQ_PREV and TAILQ_FOREACH_REVERSE write it, where the head and the entry open with the same two fields; use those macros, walk forward, or keep a pointer to the last node)}}
}
