// A program's own allocation function declared CP_ALLOCATOR (a wrapper
// that checks for NULL): its calls with sizeof of a struct are allocation
// sites, as the plugin routes them, so the struct is a candidate -- with
// the mark before the specifiers, after them, or on the prototype only.
// A function declared after one so marked is not marked: its call is an
// allocation the plugin refuses until it is (unannotated-allocator).
// RUN: compactptr-advise %s -- %cflags | FileCheck %s
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

CP_ALLOCATOR static void *xcalloc(size_t n, size_t size) {
  void *p = calloc(n, size);
  if (!p)
    abort();
  return p;
}
static CP_ALLOCATOR void *xmalloc(size_t size);
static void *plain(size_t size);

struct dir {
  struct dir *child, *next;
  long size;
};
struct file {
  struct file *next;
  struct dir *in;
};
struct blob {
  struct blob *next;
  long v;
};

// CHECK: struct dir: clean
// CHECK: allocation sites (1):
// CHECK-NEXT: declared-allocator.c:[[@LINE+1]]
struct dir *mkdir_(void) { return xcalloc(1, sizeof(struct dir)); }
// CHECK: struct file: clean
// CHECK: allocation sites (1):
// CHECK-NEXT: declared-allocator.c:[[@LINE+1]]
struct file *mkfile(void) { return xmalloc(sizeof(struct file)); }
// CHECK: struct blob: blocked
// CHECK: declared-allocator.c:[[@LINE+1]]: the 'void *' returned by 'plain' becomes a 'struct blob *', and it is not a compact allocation; declare 'plain' CP_ALLOCATOR [unannotated-allocator, plugin: error]
struct blob *mkblob(void) { return plain(sizeof(struct blob)); }

static void *xmalloc(size_t size) {
  void *p = malloc(size);
  if (!p)
    abort();
  return p;
}
static void *plain(size_t size) { return malloc(size); }
