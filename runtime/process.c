/*
 * process.c - one runtime per process.
 *
 * A module that links the static runtime carries a copy of it: a program
 * built with the static runtime that opens a library built the same way
 * (dlopen, or two such libraries linked in) holds two.  Each copy has its
 * own heap, arena, mode and type table, so code of one module reads the
 * objects of the other in a layout they are not in, and the output is
 * wrong with nothing said.  The first copy to start claims one page at a
 * fixed address below any arena (MAP_FIXED_NOREPLACE: the claim is the
 * mapping itself) and writes its module's path there; a later copy finds
 * the page taken, reads the path and stops, naming both modules.
 *
 * A forked child keeps the page and its one copy; exec starts a new
 * address space; a copy unloaded (dlclose) gives the page back.  Where the page
 * cannot be claimed or read (a kernel without MAP_FIXED_NOREPLACE, a
 * process_vm_readv refused by a sandbox, something else mapped there), nothing
 * is checked.
 */
#define _GNU_SOURCE
#include "internal.h"

#include <dlfcn.h>
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

/* 1 MiB: below CP_LOW_START, where no arena is placed. */
#define CLAIM_ADDR ((uintptr_t)1 << 20)
#define CLAIM_BYTES 4096

static const char claim_magic[16] = "compactptr rt 1";

typedef struct claim {
  char magic[16];
  char module[CLAIM_BYTES - 16]; /* NUL-terminated path */
} claim_t;

/* The path of the module (executable or shared object) this copy is in. */
static const char *this_module(void) {
  Dl_info info;
  if (dladdr((void *)&cp__claim_process, &info) && info.dli_fname &&
      *info.dli_fname)
    return info.dli_fname;
  return "the executable";
}

static bool claimed; /* this copy holds the page */

/* Unloaded (dlclose of the library this copy is in, or the process
 * exiting), the copy gives the page back: a library opened again, or
 * another one opened after it, starts its copy anew. */
__attribute__((destructor)) static void release_claim(void) {
  if (claimed)
    munmap((void *)CLAIM_ADDR, CLAIM_BYTES);
  claimed = false;
}

void cp__claim_process(void) {
  const char *self = this_module();
  void *want = (void *)CLAIM_ADDR;
  char *p = mmap(want, CLAIM_BYTES, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
  if (p == want) {
    memcpy(p, claim_magic, sizeof claim_magic);
    strncpy(p + sizeof claim_magic, self, CLAIM_BYTES - sizeof claim_magic - 1);
    mprotect(p, CLAIM_BYTES, PROT_READ);
    claimed = true;
    return;
  }
  if (p !=
      MAP_FAILED) { /* a kernel that ignores the flag placed it elsewhere */
    munmap(p, CLAIM_BYTES);
    return;
  }
  if (errno != EEXIST)
    return;
  /* Read through the kernel: whatever is mapped there may not be readable. */
  claim_t c;
  struct iovec local = {&c, sizeof c}, remote = {want, sizeof c};
  if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) !=
          (ssize_t)sizeof c ||
      memcmp(c.magic, claim_magic, sizeof claim_magic) != 0)
    return;
  c.module[sizeof c.module - 1] = '\0';
  cp__fatal("two copies of the runtime are loaded into this process, one in "
            "%s and one in %s (each module linked the static runtime, "
            "libcompactptr.a): each copy keeps its own heap and mode, so one "
            "module would read the other's objects in the wrong layout; link "
            "every module against the shared runtime instead (-lcompactptr, "
            "what an installed compactptr-cc links unless --cp-static)",
            c.module, self);
}
