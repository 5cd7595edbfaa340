// Switchable mode: the bytes of a compact pointer variable copied where the
// switch does not see them -- into a byte buffer by memcpy (also through a
// function of this file: a FIFO of elements of any size), to a pipe by
// write -- or read into one from a pipe: such a copy is no root, and one
// made before the switch points into the released arena after it (a byte
// FIFO of task pointers stopped the program with exit 70, unwarned).  A
// copy from one compact pointer variable to another is fine, and so are
// compact-only builds, which never switch.
// REQUIRES: plugin
// RUN: %clang %cflags -fplugin=%plugin -fsyntax-only -Xclang -verify %s
// RUN: %clang %cflags -fplugin=%plugin -fplugin-arg-compactptr-mode=compact-only -fsyntax-only -Werror %s
#include <compactptr.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct CP_COMPACT task {
  int id;
  struct task *parent;
};

struct fifo {
  char buf[256];
  unsigned head, tail;
};
static void fifo_put(struct fifo *f, const void *elem, size_t size) {
  memcpy(f->buf + f->tail, elem, size);
  f->tail += (unsigned)size;
}
static void put_task(struct fifo *f, const void *elem) {
  fifo_put(f, elem, sizeof(struct task *));
}
static int fifo_get(struct fifo *f, void *elem, size_t size) {
  if (f->head == f->tail)
    return 0;
  memcpy(elem, f->buf + f->head, size);
  f->head += (unsigned)size;
  return 1;
}

struct msg {
  int kind;
  struct task *task;
};
static char raw[64];

static void swap(void *a, void *b, size_t n) {
  unsigned char buf[64];
  memcpy(buf, a, n);
  memcpy(a, b, n);
  memcpy(b, buf, n);
}

int relay(struct fifo *f, int fd, struct task *t) {
  struct task *u = t, *ring[4] = {t, t, t, t};
  struct msg m = {1, t};
  char tmp[sizeof t];
  fifo_put(f, &t, sizeof t); // expected-warning {{the bytes of compact pointer 't' are handed to 'fifo_put', which copies them out with 'memcpy'; such a copy is no root, and one made before the switch points into the released arena after it (keep compact pointers in variables, fields or root arrays of their own type, or hand over an index)}}
  put_task(f, &t);           // expected-warning {{the bytes of compact pointer 't' are handed to 'put_task', which copies them out with 'memcpy'}}
  memcpy(raw, &t, sizeof t); // expected-warning {{the bytes of compact pointer 't' are copied by 'memcpy' into memory the switch does not see}}
  memcpy(raw, ring, sizeof ring); // expected-warning {{the bytes of compact pointer 'ring' are copied by 'memcpy'}}
  fifo_put(f, &m, sizeof m); // expected-warning {{the bytes of 'm', which holds a compact pointer, are handed to 'fifo_put', which copies them out with 'memcpy'}}
  (void)write(fd, &t, sizeof t); // expected-warning {{the bytes of compact pointer 't' are written by 'write' to a file, pipe or socket}}
  (void)read(fd, &u, sizeof u);  // expected-warning {{the bytes of compact pointer 'u' are read by 'read' from a file, pipe or socket}}
  // Fine: between compact pointer variables, into a temporary of the
  // function (a swap's buffer); the task's own bytes; a function of the
  // file that only reads the element.
  memcpy(tmp, &t, sizeof t);
  swap(&t, &u, sizeof t);
  memcpy(&u, &t, sizeof t);
  memcpy(ring, &ring[1], sizeof ring[0]);
  struct task **roots = malloc(4 * sizeof *roots);
  memcpy(roots, ring, sizeof ring);
  free(roots);
  (void)fifo_get(f, tmp, sizeof tmp);
  (void)write(fd, &t->id, sizeof t->id);
  return u != 0;
}

// The bytes of a heap object of compact type copied into memory of
// another type (a saved record, restored later) or written to a file:
// they are its compact layout, and read back after the switch they are
// taken for the wide one (a review's undo log restored after a switch:
// SIGSEGV).  Into an object of its own type is fine.
struct saved {
  unsigned char bytes[64];
};
void snapshot(struct task *t, struct task *copy, struct saved *s, int fd,
              size_t n) {
  memcpy(s->bytes, t, n); // expected-warning {{the bytes of a 'struct task' object are copied by 'memcpy' into memory of another type: they are its compact layout, handles and all, and read back after the switch they would be taken for the wide one (copy it into a 'struct task' object, or field by field)}}
  (void)write(fd, t, n);  // expected-warning {{the bytes of a 'struct task' object are written by 'write' to a file, pipe or socket}}
  memcpy(copy, t, n);
}
