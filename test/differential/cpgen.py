"""cpgen - random C programs over a few compact node types.

generate_files(seed) returns ({file name: text}, facts): a C program
that is plain C plus `CP_COMPACT` and `cp_safepoint()` -- prog.c, and for
a third of the seeds ctor.c (below) -- and a dict describing what the
generator chose (type count, whether the program polls outside main,
...); generate(seed) returns prog.c's text and the facts.  The same seed
always gives the same text.  generate_threaded and generate_library (at
the end of this file) run the program of a seed in several threads.

Half of the programs (a PRNG of their own picks them) write some of their
accesses, allocations and statements through macros (macro_wrap below).

What a program does.  One to three compact types T0..T2 (some behind a
typedef) with a `k` key, a unique `id` per allocation, a `next` link and a
random mix of fields: links to any type, arrays of links, unsigned and
signed integers of every width, `_Bool`, `float`, `double`, `char` arrays,
a `const char *` (not a compact pointer), a plain by-value struct and a
by-value struct that holds a compact pointer (inferred compact), or an
array of those (named, or of unnamed type, `struct { ... } ls[2]`), a run
of bit-fields (of several types and widths, with unnamed pads).  Every
type has a pool of slots (a global array, an array in a heap struct that
holds a mutex too -- pinned in switchable mode --, or a heap root array
from calloc that is also realloc'ed, for some types through a grow
wrapper declared CP_ALLOCATOR, and for some realloc'ed and freed through a
`void *`); a slot holds NULL or a
*head*, and every head owns a chain through `next`.  Some types have a
heap array of structs (with a one-past-the-end pointer in a global) and a
global struct value.  Step functions apply operations chosen here with
indices drawn at run time from the program's own PRNG: allocate heads
(malloc, a cast malloc, an allocation hook that is malloc, calloc or a
compound literal), grow chains (also
allocating into a local in a loop, between layout-dependent statements), link
fields (run-time indices into link arrays; interior pointers into the heap
arrays), copy objects and nested structs by value (also through functions
taking and returning structs, into heap-array elements and global values),
swap slots, splice and reverse chains, truncate chains, free heads with
their chains, traverse chains recursively, through links and through
two-link member chains, update scalars through links, walk, insert and
delete through pointers to handle fields (`pp = &(*pp)->next`, also
recursively, with polls while such pointers are live and keeping the
path back in a local array of them, and `&p->a[i]`
of a link array; the deleted object freed through a free hook for some
types), hold a pointer, a
struct value or a local array of pointers across cp_safepoint(), recurse
with a poll in every frame, build chains with recursive builders (simple,
mutual, and two calls per frame), and reach a safepoint through a function
pointer.  Half of the programs never call cp_safepoint() (a PRNG of their
own picks them): they switch at allocations.  In the others some step
functions poll (and their callers become
safepoint-reaching); main builds a starting heap, then runs rounds: every
step once, each in its own iteration of a polled loop, a steady growth of
every type, and work of its own, printing a digest of the whole heap (each
link known by its target's id) every few rounds; it frees everything at
the end.

A third of the programs (a PRNG of their own picks them) are built of two
files: the constructors of some types are defined in ctor.c, another
plugin-built translation unit with the same type declarations, as
`struct T0 *cpg_new0(unsigned key)` and `struct T0 *cpg_cons0(unsigned
key, struct T0 *next)` (a new node in front of a chain, `next` live
across the allocation), and prog.c calls them from every builder loop,
recursive builder and step (main's starting heap is built as
`p->next = cpg_cons0(c, p->next)`).  A call to another file's function
whose prototype has compact pointers is a safepoint, and the
constructors are entries of their file; the allocation and id counters
are ctor.c's globals.

The invariants that keep every program defined behaviour, natively and
after any switch: every field other than `next` holds NULL, a head that is
in a pool slot, or the address of an element of a heap array (which lives
until the end); chains are owned by exactly one head; before a head is
freed, a generated scrub function clears every field, heap-array element
and global that points at it; locals are cleared after every operation,
so none dangles across a later safepoint.  Outputs never depend on
addresses.

How much a program allocates between two safepoints is bounded (see
PLAIN_NODE_CAP) so that HEADROOM bytes between the high-water mark and the
end of the arena are always enough to reach the next safepoint.
"""

import math
import random
import re

# A step function without a safepoint allocates at most this many nodes per
# call (its callees included), and main polls between any two step calls:
# at <= 120 bytes a node that is < 36 KiB; with a new 64 KiB slab run for
# each of three types, HEADROOM between the high-water mark and the end of
# the arena is enough.
PLAIN_NODE_CAP = 300
HEADROOM = 320 * 1024

# Operations through pointers to handle fields (Gen.slot_op).
SLOT_KINDS = ("ptrwalk", "ptrins", "ptrdel", "ptrarr", "ptrwalkp", "ptrinsp",
              "ptrpath")

SCALARS = ["unsigned char", "unsigned short", "unsigned", "unsigned long",
           "int", "short", "signed char", "long", "_Bool", "double", "float",
           "chars", "str"]
FLOATS = ("double", "float")
# Bit-field types and their widest width.
BITFIELD_TYPES = [("unsigned", 32), ("unsigned char", 8), ("unsigned short", 16),
                  ("int", 31), ("unsigned long long", 64), ("_Bool", 1)]


class Field:
    def __init__(self, kind, name, ctype=None, target=None, n=0):
        self.kind = kind      # key id next ptr arr scalar chars str plain link links
        self.name = name
        self.ctype = ctype
        self.target = target  # type index for ptr/arr/link/links
        self.n = n            # array length for arr/chars/links
        self.anon = False     # links: declared with an unnamed struct type
        self.bits = []        # bits: (C type, name or None, width) a member


class CType:
    def __init__(self, idx):
        self.idx = idx
        self.name = "T%d" % idx
        self.fields = []
        self.pool_n = 0
        self.heap_pool = False
        self.pinned_pool = False
        self.has_arr = False
        self.arr_n = 0
        self.has_cur = False
        self.has_gval = False
        self.has_fwd = False
        self.typedef = False
        self.xctor = False    # its constructors are defined in ctor.c
        self.pooled = False   # new%d allocates from cpg_pool%d

    def decl(self):
        """How locals of this type are spelled: struct T0 or a typedef."""
        return "%s_t" % self.name if self.typedef else "struct %s" % self.name

    def ptr_slots(self):
        """(lvalue suffix, target type) for every link field but next."""
        out = []
        for f in self.fields:
            if f.kind == "ptr":
                out.append((f.name, f.target))
            elif f.kind == "arr":
                out += [("%s[%d]" % (f.name, i), f.target) for i in range(f.n)]
            elif f.kind == "link":
                out.append((f.name + ".to", f.target))
            elif f.kind == "links":
                out += [("%s[%d].to" % (f.name, i), f.target) for i in range(f.n)]
        return out

    def scalar_slots(self):
        """(lvalue suffix, C type) for every integer scalar."""
        out = [("k", "unsigned")]
        for f in self.fields:
            if f.kind == "scalar" and f.ctype not in FLOATS:
                out.append((f.name, f.ctype))
            elif f.kind == "plain":
                out += [(f.name + ".a", "unsigned"), (f.name + ".b", "unsigned short")]
            elif f.kind == "link":
                out.append((f.name + ".w", "unsigned"))
            elif f.kind == "links":
                out += [("%s[%d].w" % (f.name, i), "unsigned") for i in range(f.n)]
            elif f.kind == "chars":
                out += [("%s[%d]" % (f.name, i), "unsigned char") for i in range(f.n)]
            elif f.kind == "bits":
                out += [(name, ct) for ct, name, _ in f.bits if name]
        return out

    def compact_size(self):
        """Rough size of the compact layout in bytes (handles are 4)."""
        size = {"key": 4, "id": 4, "next": 4, "ptr": 4, "plain": 8, "link": 8,
                "str": 8}
        scalar = {"unsigned char": 1, "unsigned short": 2, "unsigned": 4,
                  "unsigned long": 8, "int": 4, "short": 2, "signed char": 1,
                  "long": 8, "_Bool": 1, "double": 8, "float": 4}
        n = 0
        for f in self.fields:
            if f.kind in size:
                n += size[f.kind]
            elif f.kind == "scalar":
                n += scalar[f.ctype]
            elif f.kind == "arr":
                n += 4 * f.n
            elif f.kind == "chars":
                n += f.n
            elif f.kind == "links":
                n += 8 * f.n
            elif f.kind == "bits":
                n += (sum(w for _, _, w in f.bits) + 7) // 8 + 4
        return (n + 7) // 8 * 8

    def doubles(self):
        return [f.name for f in self.fields if f.kind == "scalar" and f.ctype in FLOATS]

    def strs(self):
        return [f.name for f in self.fields if f.kind == "str"]


class Gen:
    def __init__(self, seed):
        self.seed = seed
        self.r = random.Random(seed)
        self.out = []
        self.tmp = 0
        self.facts = {}
        # Half of the programs never call cp_safepoint(): every switch in
        # them happens at an allocation (or a poll the plugin puts in main's
        # loops).  A PRNG of its own picks them.
        self.nopoll = random.Random(seed * 104729 + 5).random() < 0.5
        self.facts["nopoll"] = self.nopoll
        # A third of the programs recover from errors as interpreters do:
        # main calls each step under setjmp, and some steps longjmp out at
        # their end (through the steps they call, which then skip their
        # exits: their shadow-stack frames and compact-body counts).  A
        # PRNG of its own, so the rest of each program is unchanged.
        self.jr = random.Random(seed * 7919 + 11)
        self.jumps = self.jr.random() < 1 / 3
        self.facts["jumps"] = self.jumps
        # Half of the programs keep a visitor's context on main's stack, a
        # struct of compact type handed to the visitor as `void *` and read
        # back through a compact pointer there (as a thread's argument or a
        # callback's context is): it must live in one layout for both.
        self.cr = random.Random(seed * 31337 + 7)
        self.ctx = self.cr.random() < 0.5
        self.facts["ctx"] = self.ctx
        # Half of the element stores into a handle array field are runs of
        # handles instead, moved or cleared by the bytes as a B-tree node
        # shifts its children (`memmove(&p->f[1], &p->f[0], c * sizeof
        # p->f[0])`, `memset(&p->f[c], 0, (n - c) * sizeof(struct T *))`).
        # A PRNG of its own, so the rest of each program is unchanged.
        self.hr = random.Random(seed * 15485863 + 3)
        # Half of the element stores left are a whole handle array copied
        # from another node of the type instead, with the array's own size
        # (`memcpy(p->f, o->f, sizeof o->f)`, as a node is cloned).  A PRNG
        # of its own, so the rest of each program is unchanged.
        self.wr = random.Random(seed * 49979687 + 29)
        # Half of the element stores are the node's handles gathered into a
        # local array of pointers, rotated and put back instead
        # (`memcpy(k, p->f, sizeof p->f)`, `memcpy(p->f, k, sizeof k)`).
        self.nr = random.Random(seed * 86028121 + 31)
        # A third of the programs are built of two files: the constructors
        # of some types (`new0`, and a `cons0(key, next)` that links the
        # new node in front of a chain) are defined in ctor.c, another
        # plugin-built translation unit, and called from prog.c's builder
        # loops, recursive builders and steps.  A call to another file's
        # function whose prototype has compact pointers is a safepoint; the
        # constructor is an entry of its file.  A PRNG of its own, so the
        # rest of each program is unchanged.
        self.xr = random.Random(seed * 104729 + 13)
        self.xtu = self.xr.random() < 1 / 3
        self.facts["ctor_file"] = self.xtu
        self.ctor_out = []
        # A quarter of the programs take tickets back in cleanup functions
        # (`unsigned tk __attribute__((cleanup(cpg_refill0))) = ...;` in a
        # block of a step): the cleanup allocates a node into a pool when
        # the block ends, a call no call expression shows, so the step
        # reaches a safepoint there and main keeps its roots around it.
        # A PRNG of its own, so the rest of each program is unchanged.
        self.kr = random.Random(seed * 2750159 + 17)
        self.cleanups = self.kr.random() < 0.25
        self.facts["cleanup"] = self.cleanups
        self.v_allocs = "cpg_allocs" if self.xtu else "allocs"
        self.v_serial = "cpg_serial" if self.xtu else "serial"

    # -- layout --------------------------------------------------------------
    def make_types(self):
        r = self.r
        nt = r.choice([1, 2, 2, 3, 3])
        self.types = [CType(i) for i in range(nt)]
        self.use_plain = False
        self.link_targets = set()
        for t in self.types:
            fs = [Field("key", "k"), Field("id", "id"), Field("next", "next")]
            for j in range(r.randint(0, 3)):
                fs.append(Field("ptr", "x%d" % j, target=r.randrange(nt)))
            if r.random() < 0.4:
                fs.append(Field("arr", "a", target=r.randrange(nt), n=r.randint(2, 4)))
            for j in range(r.randint(0, 3)):
                c = r.choice(SCALARS)
                if c == "chars":
                    fs.append(Field("chars", "s%d" % j, n=r.randint(1, 7)))
                elif c == "str":
                    fs.append(Field("str", "s%d" % j))
                else:
                    fs.append(Field("scalar", "s%d" % j, ctype=c))
            if r.random() < 0.3:
                fs.append(Field("plain", "pt"))
                self.use_plain = True
            if r.random() < 0.35:
                tg = r.randrange(nt)
                fs.append(Field("link", "lk", target=tg))
                self.link_targets.add(tg)
            if r.random() < 0.2:
                tg = r.randrange(nt)
                fs.append(Field("links", "ls", target=tg, n=2))
                # Half of them of unnamed type (`struct { ... } ls[2]`, as
                # queue.h's _ENTRY macros declare members); a PRNG of its
                # own, so the rest of each seed's program is unchanged.
                fs[-1].anon = random.Random(self.seed * 7919 + t.idx).random() < 0.5
                if not fs[-1].anon:
                    self.link_targets.add(tg)
            # A run of bit-fields (colour bits, flags, counters), from a
            # PRNG of its own so the programs of earlier seeds stay as
            # they were: named ones of several types, sometimes an unnamed
            # pad or a `: 0` that starts a new unit.
            br = random.Random(self.seed * 15485863 + t.idx)
            if br.random() < 0.35:
                f = Field("bits", "b")
                for j in range(br.randint(1, 4)):
                    ct, top = br.choice(BITFIELD_TYPES)
                    if br.random() < 0.2:
                        f.bits.append(("unsigned", None, br.choice([0, 3])))
                    f.bits.append((ct, "b%d" % j, br.randint(1, top)))
            else:
                f = None
            head, rest = fs[:1], fs[1:]
            r.shuffle(rest)
            t.fields = rest[:1] + head + rest[1:] if r.random() < 0.5 else head + rest
            if f:
                t.fields.insert(br.randint(0, len(t.fields)), f)
            t.pool_n = r.choice([4, 8, 16, 32, 48])
            t.heap_pool = r.random() < 0.4
            t.has_arr = r.random() < 0.3
            t.arr_n = r.randint(2, 12)
            t.has_cur = r.random() < 0.4
            t.has_gval = r.random() < 0.3
            # from a generator of its own: the draws above, and so the
            # programs of earlier seeds, stay as they were
            t.has_fwd = random.Random(self.seed * 104729 + t.idx).random() < 0.3
            t.typedef = r.random() < 0.5
            # A global pool in a pinned box (a mutex beside the slots: not
            # compact in switchable mode, left in place by the switch),
            # from a generator of its own as well.
            t.pinned_pool = not t.heap_pool and random.Random(
                self.seed * 7919 + t.idx).random() < 0.3

    def pool(self, t, i):
        if t.pinned_pool:
            return "pb%d->slot[%s]" % (t.idx, i)
        return "%s[%s]" % (("hp%d" if t.heap_pool else "pool%d") % t.idx, i)

    # -- emission helpers ----------------------------------------------------
    def emit(self, s=""):
        self.out.append(s)

    def emit_types(self):
        e = self.emit
        e("/* generated by test/differential/cpgen.py, seed %d */" % self.seed)
        e("#include <compactptr.h>")
        e("#include <pthread.h>")
        if self.jumps:
            e("#include <setjmp.h>")
        e("#include <stdint.h>")
        e("#include <stdio.h>")
        e("#include <stdlib.h>")
        e("#include <stddef.h>")
        e("#include <string.h>")
        e("")
        if self.jumps:
            e("static jmp_buf cpg_env;")
            e("static unsigned long cpg_jumps;")
        # A program's own allocation wrappers, declared CP_ALLOCATOR: a
        # calloc-like one (the count apart from the size) and a grow
        # wrapper that resizes through another (the plugin reads both
        # from their bodies).  Used for some heap arrays and root arrays,
        # chosen by their sizes, not by a draw.
        e("static CP_ALLOCATOR __attribute__((unused)) void *cpg_xcalloc(size_t n, size_t size) {")
        e("  void *p = calloc(n, size);")
        e("  if (!p) exit(3);")
        e("  return p;")
        e("}")
        e("static CP_ALLOCATOR __attribute__((unused)) void *cpg_xrealloc(void *p, size_t bytes) {")
        e("  void *q = realloc(p, bytes);")
        e("  if (!q) exit(3);")
        e("  return q;")
        e("}")
        e("static CP_ALLOCATOR __attribute__((unused)) void *cpg_grow(void *p, size_t n, size_t size) {")
        e("  return cpg_xrealloc(p, n * size);")
        e("}")
        # A size helper that multiplies with an overflow check (git's
        # st_mult): a size through it is the product of its arguments.
        e("static inline __attribute__((unused)) size_t cpg_st_mult(size_t a, size_t b) {")
        e("  if (b && a > (size_t)-1 / b) exit(3);")
        e("  return a * b;")
        e("}")
        types_at = len(self.out)
        for t in self.types:
            e("struct %s;" % t.name)
        if self.use_plain:
            e("struct pt { unsigned a; unsigned short b; };")
        for tg in sorted(self.link_targets):
            e("struct lk%d { struct T%d *to; unsigned w; }; /* inferred compact */" % (tg, tg))
        for t in self.types:
            e("struct CP_COMPACT %s {" % t.name)
            for f in t.fields:
                if f.kind == "key":
                    e("  unsigned k;")
                elif f.kind == "id":
                    e("  unsigned id; /* unique per allocation */")
                elif f.kind == "str":
                    e("  const char *%s; /* not a compact pointer */" % f.name)
                elif f.kind == "next":
                    e("  struct %s *next;" % t.name)
                elif f.kind == "ptr":
                    e("  struct T%d *%s;" % (f.target, f.name))
                elif f.kind == "arr":
                    e("  struct T%d *%s[%d];" % (f.target, f.name, f.n))
                elif f.kind == "scalar":
                    e("  %s %s;" % (f.ctype, f.name))
                elif f.kind == "chars":
                    e("  unsigned char %s[%d];" % (f.name, f.n))
                elif f.kind == "plain":
                    e("  struct pt %s;" % f.name)
                elif f.kind == "link":
                    e("  struct lk%d %s;" % (f.target, f.name))
                elif f.kind == "links" and f.anon:
                    e("  struct { struct T%d *to; unsigned w; } %s[%d]; /* unnamed type */" % (f.target, f.name, f.n))
                elif f.kind == "links":
                    e("  struct lk%d %s[%d];" % (f.target, f.name, f.n))
                elif f.kind == "bits":
                    for ct, name, w in f.bits:
                        e("  %s %s: %d;" % (ct, name + " " if name else "", w))
            e("};")
            if t.typedef:
                e("typedef struct %s %s_t;" % (t.name, t.name))
        # the same text in ctor.c, as the plugin requires of a type that
        # two files share
        self.type_lines = self.out[types_at:]
        e("")
        if any(t.strs() for t in self.types):
            # (in ctor.c too: a two-file program may use them there only)
            e("static const char *const names[4]%s = {\"ash\", \"birch\", \"cedar\", \"damson\"};"
              % (" __attribute__((unused))" if self.xtu else ""))
        e("static unsigned long long rs = %dULL;" % self.r.randrange(1, 1 << 62))
        e("static unsigned rnd(unsigned n) {")
        e("  unsigned long long z = (rs += 0x9e3779b97f4a7c15ULL);")
        e("  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;")
        e("  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;")
        e("  return (unsigned)((z ^ (z >> 31)) % n);")
        e("}")
        if self.xtu:
            # counted and numbered by the constructors of ctor.c too
            e("static unsigned long acc, frees;")
            e("extern unsigned long cpg_allocs; /* defined in ctor.c */")
        else:
            e("static unsigned long acc, allocs, frees;")
        e("static __attribute__((unused)) unsigned long mix2(unsigned long a, unsigned long b) { return a * 31u + b; }")
        if self.xtu:
            e("extern unsigned cpg_serial; /* defined in ctor.c */")
        else:
            e("static unsigned serial;")
        e("static void (*volatile callback)(void);")
        e("static unsigned long polls;")
        e("static void poll_cb(void) { /* a safepoint the plugin cannot see */")
        e("  polls++;")
        if not self.nopoll:
            e("  cp_safepoint();")
        e("}")
        for t in self.types:
            if t.heap_pool:
                # A root array.  Where it is only indexed, allocated and
                # freed (no regrow op, freed as itself) a compact-only
                # build holds it as handles (HandleRoots.cpp); regrown or
                # freed through a `void *`, it stays native: both kinds.
                e("static struct %s **hp%d; /* heap root array of %d */" % (t.name, t.idx, t.pool_n))
            elif t.pinned_pool:
                e("static struct pbox%d { pthread_mutex_t mu; struct %s *slot[%d]; } *pb%d;"
                  " /* pinned */" % (t.idx, t.name, t.pool_n, t.idx))
            else:
                e("static struct %s *pool%d[%d];" % (t.name, t.idx, t.pool_n))
            if t.has_arr:
                e("static struct %s *arr%d; /* heap array of %d structs */" % (t.name, t.idx, t.arr_n))
                # one past the end: a root that is not an object's start
                e("static struct %s *arrend%d;" % (t.name, t.idx))
            if t.has_cur:
                e("static struct %s *cur%d;" % (t.name, t.idx))
            if t.has_gval:
                e("static struct %s gval%d; /* a global value: its links are roots */" % (t.name, t.idx))
            if t.has_fwd:
                # declared before they are defined, initializers naming each
                # other: boxed, each initialized at its first use
                x = t.idx
                e("static struct %s fa%d, fb%d; /* tentative definitions */" % (t.name, x, x))
                e("extern struct %s fc%d;" % (t.name, x))
                e("static struct %s fa%d = {.k = %du, .next = &fb%d};" % (t.name, x, 11 + x, x))
                e("static struct %s fb%d = {.k = %du, .next = &fc%d};" % (t.name, x, 13 + x, x))
                e("struct %s fc%d = {.k = %du, .next = &fa%d};" % (t.name, x, 17 + x, x))
        e("")

    def emit_helpers(self):
        e = self.emit
        r = self.r
        # allocation hooks, as cJSON's: a struct of function pointers that
        # starts as malloc and free (allocation "hook" below; op "ptrdel"
        # frees through the hook for types of even index)
        e("static __attribute__((unused)) struct { void *(*allocate)(size_t); "
          "void (*deallocate)(void *); } cpg_hooks = { malloc, free };")
        # a pool of objects of one size, set up in main with the type's
        # sizeof: `cpg_pool_alloc(&cpg_pool3)` takes no size (allocation
        # "pool" below; op "ptrdel" frees through cpg_pool_free, the pool
        # first)
        e("struct cpg_pool { size_t size; unsigned long n; };")
        e("static __attribute__((unused)) void cpg_pool_init(struct cpg_pool *p, size_t size) "
          "{ p->size = size; p->n = 0; }")
        e("static __attribute__((unused)) CP_ALLOCATOR void *cpg_pool_alloc(struct cpg_pool *p) "
          "{ p->n++; return malloc(p->size); }")
        e("static __attribute__((unused)) CP_DEALLOCATOR void cpg_pool_free(struct cpg_pool *p, void *x) "
          "{ p->n--; free(x); }")
        for t in self.types:
            n = t.name
            # a list header that lives on the stack, its address handed to
            # a helper: a boxed local (op "boxinit")
            e("struct hd%d { struct %s *first; unsigned n; };" % (t.idx, n))
            e("static __attribute__((unused)) void hdpush%d(struct hd%d *h, struct %s *e) "
              "{ e->next = h->first; h->first = e; h->n++; }" % (t.idx, t.idx, n))
            # a queue in the heap that keeps the address of its last link
            # (op "tailq"): a slot-pointer field the switch moves
            e("struct tq%d { struct %s *head; struct %s **tail; unsigned n; };" % (t.idx, n, n))
            e("static __attribute__((unused)) void tqput%d(struct tq%d *q, struct %s *e) "
              "{ e->next = NULL; *q->tail = e; q->tail = &e->next; q->n++; }" % (t.idx, t.idx, n))
            e("static __attribute__((unused)) struct tq%d *tqg%d;" % (t.idx, t.idx))
            # an offset kept at run time, measured once in the layout of
            # its moment and stepped by in every later one, as uthash's
            # table keeps its handle's (op "kept")
            e("static __attribute__((unused)) long koff%d;" % t.idx)
            e("static __attribute__((unused)) int kset%d;" % t.idx)
            # allocation: malloc + every field, calloc + some, or a literal;
            # in ctor.c for some types of two-file programs, declared here
            how = r.choice(["malloc", "castmalloc", "calloc", "literal"])
            if how == "castmalloc" and not t.xctor and r.random() < 0.5:
                how = "hook"  # the hook is malloc: cp_hook_is_malloc
            if how == "malloc" and not t.xctor and r.random() < 0.4:
                how = "pool"
                t.pooled = True
                e("static struct cpg_pool cpg_pool%d;" % t.idx)
            if t.xctor:
                e("struct %s *cpg_new%d(unsigned key); /* ctor.c */" % (n, t.idx))
                e("struct %s *cpg_cons%d(unsigned key, struct %s *next); /* ctor.c */"
                  % (n, t.idx, n))
                e = self.ctor_out.append
                e("struct %s *cpg_new%d(unsigned key) {" % (n, t.idx))
            else:
                e("static struct %s *new%d(unsigned key) {" % (n, t.idx))
            if how == "calloc":
                e("  struct %s *p = calloc(1, sizeof(struct %s));" % (n, n))
                e("  if (!p) exit(3);")
                e("  p->k = key;")
            else:
                if how == "castmalloc":
                    e("  struct %s *p = (struct %s *)malloc(sizeof(struct %s));" % (n, n, n))
                elif how == "hook":
                    e("  struct %s *p = (struct %s *)cpg_hooks.allocate(sizeof(struct %s));"
                      % (n, n, n))
                elif how == "pool":
                    e("  struct %s *p = cpg_pool_alloc(&cpg_pool%d);" % (n, t.idx))
                else:
                    e("  struct %s *p = malloc(sizeof *p);" % n)
                e("  if (!p) exit(3);")
                if how == "literal":
                    e("  *p = (struct %s){.k = key};" % n)
                else:
                    for f in t.fields:
                        if f.kind == "key":
                            e("  p->k = key;")
                        elif f.kind in ("next", "ptr", "str"):
                            e("  p->%s = NULL;" % f.name)
                        elif f.kind == "arr":
                            for i in range(f.n):
                                e("  p->%s[%d] = NULL;" % (f.name, i))
                        elif f.kind == "scalar":
                            e("  p->%s = 0;" % f.name)
                        elif f.kind == "chars":
                            for i in range(f.n):
                                e("  p->%s[%d] = 0;" % (f.name, i))
                        elif f.kind == "plain":
                            e("  p->%s.a = 0; p->%s.b = 0;" % (f.name, f.name))
                        elif f.kind == "link":
                            e("  p->%s.to = NULL; p->%s.w = 0;" % (f.name, f.name))
                        elif f.kind == "links":
                            for i in range(f.n):
                                e("  p->%s[%d].to = NULL; p->%s[%d].w = %d;" % (f.name, i, f.name, i, i))
                        elif f.kind == "bits":
                            for _, name, _ in f.bits:
                                if name:
                                    e("  p->%s = 0;" % name)
            for d in t.doubles():
                e("  p->%s = (double)(key %% 1000u) / 4;" % d)
            for sname in t.strs():
                e("  p->%s = names[key %% 4u];" % sname)
            e("  p->id = ++%s;" % self.v_serial)
            e("  %s++;" % self.v_allocs)
            e("  return p;")
            e("}")
            if t.xctor:
                # a constructor that links the new node in front of a
                # chain: `next` is live across the allocation
                e("struct %s *cpg_cons%d(unsigned key, struct %s *next) {" % (n, t.idx, n))
                e("  struct %s *p = cpg_new%d(key);" % (n, t.idx))
                e("  p->next = next;")
                e("  return p;")
                e("}")
                e = self.emit
            if self.cleanups:
                # a ticket's cleanup: a node into the pool (op "cleanup")
                e("static __attribute__((unused)) void cpg_refill%d(unsigned *key) {" % t.idx)
                e("  unsigned i = *key %% %du;" % t.pool_n)
                # (after the chain's head, as op "grow" does: links from
                # other nodes name heads, which a chain's kill scrubs)
                e("  struct %s *nn = new%d(*key), *h = %s;" % (n, t.idx, self.pool(t, "i")))
                e("  if (h) { nn->next = h->next; h->next = nn; } else %s = nn;" % self.pool(t, "i"))
                e("}")
            # hash of one object: scalars, doubles and the keys of link targets
            e("static unsigned long hash%d(const struct %s *o) {" % (t.idx, n))
            e("  unsigned long h = o->k * 3u + o->id;")
            for sl, _ in t.scalar_slots()[1:]:
                e("  h = h * 1000003u + (unsigned long)o->%s;" % sl)
            for d in t.doubles():
                e("  h = h * 31u + (unsigned long)(o->%s * 4);" % d)
            for sn in t.strs():
                e("  h = h * 5u + (o->%s ? (unsigned char)o->%s[0] : 0u);" % (sn, sn))
            # a link is known by its target's unique id, not just its key
            for sl, tg in t.ptr_slots():
                e("  h = h * 17u + (o->%s ? o->%s->id * 7u + o->%s->k : 0u);" % (sl, sl, sl))
            e("  return h;")
            e("}")
            e("static struct %s *tail%d(struct %s *p) {" % (n, t.idx, n))
            e("  while (p->next) p = p->next;")
            e("  return p;")
            e("}")
            e("static unsigned long sumrec%d(const struct %s *p, unsigned depth) {" % (t.idx, n))
            e("  if (!p || depth > 200) return 0;")
            e("  return hash%d(p) + 3u * sumrec%d(p->next, depth + 1);" % (t.idx, t.idx))
            e("}")
            e("static struct %s tweak%d(struct %s v, unsigned d, struct %s *keep, unsigned id) {" % (n, t.idx, n, n))
            e("  v.k += d;")
            e("  v.next = keep;")
            e("  v.id = id;")
            e("  return v;")
            e("}")
            # appends n nodes after p with a poll after each: p, the new
            # node and the returned pointer are live across the polls
            e("static struct %s *growp%d(struct %s *p, unsigned n) {" % (n, t.idx, n))
            e("  struct %s *last = p;" % n)
            e("  while (n--) {")
            e("    struct %s *nn = new%d(n);" % (n, t.idx))
            e("    nn->next = p->next;")
            e("    p->next = nn;")
            e("    last = nn;")
            if not self.nopoll:
                e("    cp_safepoint();")
            e("  }")
            e("  return last;")
            e("}")
            # recursion with a poll in every frame
            e("static unsigned long walkp%d(struct %s *p, unsigned depth) {" % (t.idx, n))
            e("  unsigned long s;")
            e("  if (!p || depth > 60) return 0;")
            e("  s = p->k;")
            if not self.nopoll:
                e("  cp_safepoint();")
            e("  s += walkp%d(p->next, depth + 1);" % t.idx)
            e("  return s * 3u + p->id;")
            e("}")
            e("static unsigned long fold%d(struct %s v) {" % (t.idx, n))
            e("  return v.k + (v.next ? v.next->k : 5u);")
            e("}")
            # recursive builders, the common shape of tree and graph
            # construction: a chain built by recursion, by mutual recursion,
            # and a chain built in the order of a binary tree's preorder
            # (two recursive calls per frame, n and m held across them)
            x = t.idx
            e("static struct %s *buildb%d(unsigned d, unsigned c);" % (n, x))
            e("static struct %s *build%d(unsigned d, unsigned c) {" % (n, x))
            e("  struct %s *nn;" % n)
            e("  if (!d) return NULL;")
            e("  nn = new%d(c);" % x)
            e("  nn->next = build%d(d - 1, c + 1u);" % x)
            e("  return nn;")
            e("}")
            e("static struct %s *builda%d(unsigned d, unsigned c) {" % (n, x))
            e("  struct %s *nn;" % n)
            e("  if (!d) return NULL;")
            e("  nn = new%d(c);" % x)
            e("  nn->next = buildb%d(d - 1, c + 3u);" % x)
            e("  return nn;")
            e("}")
            e("static struct %s *buildb%d(unsigned d, unsigned c) {" % (n, x))
            e("  struct %s *nn = d ? new%d(c ^ 5u) : NULL;" % (n, x))
            e("  if (nn) nn->next = builda%d(d - 1, c + 7u);" % x)
            e("  return nn;")
            e("}")
            e("static struct %s *buildt%d(unsigned d, unsigned c) {" % (n, x))
            e("  struct %s *nn, *m;" % n)
            e("  if (!d) return NULL;")
            e("  nn = new%d(c);" % x)
            e("  nn->next = buildt%d(d - 1, c * 2u);" % x)
            e("  for (m = nn; m->next; m = m->next) acc += m->k;")
            e("  m->next = buildt%d(d - 1, c * 2u + 1u);" % x)
            e("  return nn;")
            e("}")
        # scrub: clear every reference to a head before it is freed
        for t in self.types:
            n = t.name
            e("static void scrub%d(const struct %s *h) {" % (t.idx, n))
            if any(tg == t.idx for u in self.types for _, tg in u.ptr_slots()):
                e("  unsigned i;")
            for u in self.types:
                slots = [s for s, tg in u.ptr_slots() if tg == t.idx]
                if not slots:
                    continue
                e("  for (i = 0; i < %du; i++) {" % u.pool_n)
                e("    struct %s *o;" % u.name)
                e("    for (o = %s; o; o = o->next) {" % self.pool(u, "i"))
                for s in slots:
                    e("      if (o->%s == h) o->%s = NULL;" % (s, s))
                e("    }")
                e("  }")
                if u.has_arr:
                    e("  for (i = 0; i < %du; i++) {" % u.arr_n)
                    for s in slots:
                        e("    if (arr%d[i].%s == h) arr%d[i].%s = NULL;" % (u.idx, s, u.idx, s))
                    e("  }")
            if t.has_cur:
                e("  if (cur%d == h) cur%d = NULL;" % (t.idx, t.idx))
            for u in self.types:
                if u.has_gval:
                    for sl, tg in u.ptr_slots():
                        if tg == t.idx:
                            e("  if (gval%d.%s == h) gval%d.%s = NULL;" % (u.idx, sl, u.idx, sl))
            e("}")
            e("static void kill%d(struct %s *h) {" % (t.idx, n))
            e("  scrub%d(h);" % t.idx)
            e("  while (h) {")
            e("    struct %s *d = h;" % n)
            e("    h = h->next;")
            e("    free(d);")
            e("    frees++;")
            e("  }")
            e("}")
        self.emit_slot_helpers()
        e("static unsigned long digest(void) {")
        e("  unsigned long h = acc, len;")
        e("  unsigned i;")
        for t in self.types:
            e("  for (i = 0; i < %du; i++) {" % t.pool_n)
            e("    const struct %s *o = %s;" % (t.name, self.pool(t, "i")))
            e("    for (len = 0; o; o = o->next, len++) h = h * 1099511628211u + hash%d(o);" % t.idx)
            e("    h = h * 7u + len;")
            e("  }")
            if t.has_arr:
                e("  for (i = 0; i < %du; i++) h = h * 13u + hash%d(&arr%d[i]);" % (t.arr_n, t.idx, t.idx))
            if t.has_cur:
                e("  h = h * 3u + (cur%d ? cur%d->id : 9u);" % (t.idx, t.idx))
            if t.has_fwd:
                x = t.idx
                e("  h = h * 19u + fa%d.next->k + fb%d.next->next->k + (fc%d.next->next->next == &fc%d);" % (x, x, x, x))
            if t.has_gval:
                # a value, not a heap object: no compact pointer may point at it
                e("  h = h * 11u + gval%d.k + gval%d.id;" % (t.idx, t.idx))
                for sl, _ in t.ptr_slots():
                    e("  h = h * 17u + (gval%d.%s ? gval%d.%s->id : 0u);" % (t.idx, sl, t.idx, sl))
        e("  return h;")
        e("}")
        e("")

    # -- operations ----------------------------------------------------------
    # Each op returns (lines, nodes) where nodes is the most it allocates.
    def op(self, t, polling):
        r = self.r
        T = self.types
        n, x = t.name, t.idx
        p = "p%d" % x
        kinds = ["new", "new", "grow", "grow", "link", "link", "free", "trunc",
                 "byval", "tweak", "swap", "splice", "walk", "rec", "reverse",
                 "scalar"]
        if t.has_arr:
            kinds += ["arr", "arrwalk"]
        if t.has_cur:
            kinds += ["cur"]
        if any(f.kind == "link" for f in t.fields):
            kinds += ["linkval"]
        kinds += ["deep", "cond", "stack", "slotptr", "callback", "whilewalk", "boxinit",
                  "tailq", "boxarr", "kept"]
        kinds += ["build", "build", "inline", "inline"]
        if any(T[tg].has_arr for _, tg in t.ptr_slots()):
            kinds += ["linkarr", "linkarr"]
        if t.has_arr:
            kinds += ["arrscan"]
        if t.has_gval:
            kinds += ["gval"]
        if t.heap_pool:
            kinds += ["regrow"]
        if polling:
            kinds += ["hold", "growp", "walkp"]
        kinds += self.slot_kinds(t, polling)
        if self.cleanups and self.kr.random() < 0.2:
            # read inside the block, the ticket taken back at its end; the
            # pool read again after it, in the mode the switch left
            kr = self.kr
            at = kr.randrange(t.pool_n)
            return ["{",
                    "  unsigned tk%d __attribute__((cleanup(cpg_refill%d))) = rnd(%du);"
                    % (x, x, 100000),
                    "  %s = %s;" % (p, self.pool(t, "rnd(%du)" % t.pool_n)),
                    "  if (%s) acc += %s->k + tk%d;" % (p, p, x),
                    "}",
                    "acc += %s ? hash%d(%s) : 7u;" % (self.pool(t, "%du" % at), x,
                                                      self.pool(t, "%du" % at))], 1
        k = r.choice(kinds)
        if k in SLOT_KINDS:
            return self.slot_op(t, polling, k)
        P = lambda i: self.pool(t, i)
        if k == "new":
            # Every other one (no draw: the program stays the same) is the
            # argument of a layout-dependent function, which is printed by
            # mode: the allocation, which may switch, must go first.
            self.news = getattr(self, "news", 0) + 1
            if self.news % 4 == 2:
                # An argument before the allocation that a call changes
                # (the generator's state): it runs first, as natively.
                return ["i = rnd(%du);" % t.pool_n,
                        "if (!%s) acc += mix2(rnd(7u), hash%d(%s = new%d(rnd(100000u))));" %
                        (P("i"), x, P("i"), x)], 1
            if self.news % 2 == 0:
                return ["i = rnd(%du);" % t.pool_n,
                        "if (!%s) acc += hash%d(%s = new%d(rnd(100000u)));" %
                        (P("i"), x, P("i"), x)], 1
            return ["i = rnd(%du);" % t.pool_n,
                    "if (!%s) %s = new%d(rnd(100000u));" % (P("i"), P("i"), x)], 1
        if k == "grow":
            cnt = r.randint(4, 40) if not polling else r.randint(1, 300)
            at_tail = r.random() < 0.5
            body = ["{ struct %s *nn = new%d(c + rnd(1000u));" % (n, x)]
            slots = t.ptr_slots()
            if slots and r.random() < 0.6:
                s, tg = r.choice(slots)
                body.append("  j = rnd(%du); nn->%s = %s;" % (T[tg].pool_n, s, self.pool(T[tg], "j")))
            if at_tail:
                body.append("  q%d->next = nn; q%d = nn;" % (x, x))
            else:
                body.append("  nn->next = %s->next; %s->next = nn;" % (p, p))
            if polling:
                body.append("  cp_safepoint();")
            body.append("}")
            lines = ["%s = %s;" % (p, P("rnd(%du)" % t.pool_n)),
                     "if (%s) {" % p]
            if at_tail:
                lines.append("  q%d = tail%d(%s);" % (x, x, p))
            lines.append("  for (c = 0; c < %du; c++)" % cnt)
            lines += ["    " + b for b in body]
            lines.append("}")
            return lines, (1 if polling else cnt)
        if k == "inline":
            # allocations into a local between layout-dependent statements,
            # in a loop: transfer sites of versioned regions
            cnt = r.randint(2, 30) if not polling else r.randint(1, 300)
            literal = r.random() < 0.5
            q = "q%d" % x
            lines = ["%s = %s;" % (p, P("rnd(%du)" % t.pool_n)),
                     "if (%s) {" % p,
                     "  for (c = 0; c < %du; c++) {" % cnt,
                     "    %s->k += 1u;" % p]
            if literal:
                lines.append("    %s = (struct %s *)malloc(sizeof(struct %s));" % (q, n, n))
            else:
                lines.append("    %s = calloc(1, sizeof *%s);" % (q, q))
            lines.append("    if (!%s) exit(3);" % q)
            lines.append("    *%s = (struct %s){.k = c};" % (q, n) if literal else
                         "    %s->k = c;" % q)
            for d in t.doubles():
                lines.append("    %s->%s = (double)c / 4;" % (q, d))
            for sname in t.strs():
                lines.append("    %s->%s = names[c %% 4u];" % (q, sname))
            lines += ["    %s->id = ++%s; %s++;" % (q, self.v_serial, self.v_allocs),
                      "    %s->next = %s->next; %s->next = %s;" % (q, p, p, q),
                      "  }",
                      "}"]
            return lines, (1 if polling else cnt)
        if k == "link":
            slots = t.ptr_slots()
            if not slots:
                return self.op(t, polling)
            s, tg = r.choice(slots)
            u = T[tg]
            pre = []
            m = re.match(r"(\w+)\[(\d+)\](.*)$", s)
            if m and r.random() < 0.6:  # a run-time index
                f = next(f for f in t.fields if f.name == m.group(1))
                pre = ["ix = rnd(%du);" % f.n]
                s = "%s[ix]%s" % (m.group(1), m.group(3))
            return pre + ["%s = %s;" % (p, P("rnd(%du)" % t.pool_n)),
                    "j = rnd(%du);" % u.pool_n,
                    "if (%s) {" % p,
                    "  q%d = %s;" % (x, p),
                    "  c = rnd(4u);",
                    "  while (c-- && q%d->next) q%d = q%d->next;" % (x, x, x),
                    "  q%d->%s = %s;" % (x, s, self.pool(u, "j")),
                    "}"], 0
        if k == "free":
            return ["i = rnd(%du);" % t.pool_n,
                    "if (%s && rnd(4u) == 0) {" % P("i"),
                    "  kill%d(%s);" % (x, P("i")),
                    "  %s = NULL;" % P("i"),
                    # no local is left holding a freed object across a
                    # safepoint (a dangling root)
                    "  %s = q%d = NULL;" % (p, x),
                    "}"], 0
        if k == "trunc":
            return ["%s = %s;" % (p, P("rnd(%du)" % t.pool_n)),
                    "c = rnd(4u) == 0 ? rnd(64u) : 400u + rnd(4000u);",
                    "while (%s && c--) %s = %s->next;" % (p, p, p),
                    "if (%s && rnd(3u) == 0) {" % p,
                    "  q%d = %s->next;" % (x, p),
                    "  %s->next = NULL;" % p,
                    "  while (q%d) { struct %s *d = q%d; q%d = q%d->next; free(d); frees++; }" % (x, n, x, x, x),
                    "}"], 0
        if k == "byval":
            return ["%s = %s;" % (p, P("rnd(%du)" % t.pool_n)),
                    "q%d = %s;" % (x, P("rnd(%du)" % t.pool_n)),
                    "if (%s && q%d) {" % (p, x),
                    "  struct %s v = *%s;" % (n, p),
                    "  v.k ^= 0x5a5au;",
                    "  v.next = q%d->next;" % x,
                    "  v.id = q%d->id;" % x,
                    "  *q%d = v;" % x,
                    "}"], 0
        if k == "tweak":
            return ["%s = %s;" % (p, P("rnd(%du)" % t.pool_n)),
                    "q%d = %s;" % (x, P("rnd(%du)" % t.pool_n)),
                    "if (%s && q%d) *q%d = tweak%d(*%s, %du, q%d->next, q%d->id);" % (p, x, x, x, p, r.randint(1, 99), x, x),
                    "if (%s) acc += fold%d(*%s);" % (p, x, p)], 0
        if k == "linkval":
            f = next(f for f in t.fields if f.kind == "link")
            return ["%s = %s;" % (p, P("rnd(%du)" % t.pool_n)),
                    "q%d = %s;" % (x, P("rnd(%du)" % t.pool_n)),
                    "if (%s && q%d) {" % (p, x),
                    "  struct lk%d l = %s->%s;" % (f.target, p, f.name),
                    "  l.w += 3u;",
                    "  q%d->%s = l;" % (x, f.name),
                    "}"], 0
        if k == "swap":
            return ["i = rnd(%du);" % t.pool_n,
                    "j = rnd(%du);" % t.pool_n,
                    "%s = %s; %s = %s; %s = %s;" % (p, P("i"), P("i"), P("j"), P("j"), p)], 0
        if k == "splice":
            return ["%s = %s;" % (p, P("rnd(%du)" % t.pool_n)),
                    "q%d = %s;" % (x, P("rnd(%du)" % t.pool_n)),
                    "if (%s && q%d && %s != q%d) {" % (p, x, p, x),
                    "  tail%d(%s)->next = q%d->next;" % (x, p, x),
                    "  q%d->next = NULL;" % x,
                    "}"], 0
        if k == "walk":
            term = self.link_key(t, "q%d->" % x, "7u")
            return ["%s = %s;" % (p, P("rnd(%du)" % t.pool_n)),
                    "for (q%d = %s; q%d; q%d = q%d->next) acc = acc * 31u + q%d->k + %s;" % (x, p, x, x, x, x, term)], 0
        if k == "build":
            # a new head, or a tail extension, from a recursive builder
            how = r.choice(["build", "builda", "buildt"])
            d = r.randint(1, 7) if how == "buildt" else r.randint(1, 150)
            cnt = (1 << d) - 1 if how == "buildt" else d
            call = "%s%d(%du, rnd(1000u))" % (how, x, d)
            return ["i = rnd(%du);" % t.pool_n,
                    "if (!%s) %s = %s;" % (P("i"), P("i"), call),
                    "else {",
                    "  q%d = tail%d(%s);" % (x, x, P("i")),
                    "  q%d->next = %s;" % (x, call),
                    "}"], cnt
        if k == "rec":
            return ["%s = %s;" % (p, P("rnd(%du)" % t.pool_n)),
                    "acc += sumrec%d(%s, 0);" % (x, p)], 0
        if k == "reverse":
            return ["%s = %s;" % (p, P("rnd(%du)" % t.pool_n)),
                    "if (%s) {" % p,
                    "  struct %s *prev = NULL, *at = %s->next, *nx;" % (n, p),
                    "  while (at) { nx = at->next; at->next = prev; prev = at; at = nx; }",
                    "  %s->next = prev;" % p,
                    "}"], 0
        if k == "scalar":
            s, ct = r.choice(t.scalar_slots())
            lines = ["%s = %s;" % (p, P("rnd(%du)" % t.pool_n)),
                     "if (%s) {" % p,
                     "  %s->%s %s (%s)%du;" % (p, s, r.choice(["+=", "^=", "|=", "-="]), ct, r.randint(1, 250)),
                     "  ++%s->k;" % p]
            for d in t.doubles()[:1]:
                lines.append("  %s->%s += 0.25;" % (p, d))
            slots = t.ptr_slots()
            if slots:
                sl, _ = r.choice(slots)
                lines.append("  if (%s->%s) %s->%s->k *= 3u;" % (p, sl, p, sl))
            lines.append("}")
            return lines, 0
        if k == "arr":
            return ["%s = %s;" % (p, P("rnd(%du)" % t.pool_n)),
                    "i = rnd(%du);" % t.arr_n,
                    "if (%s) {" % p,
                    "  struct %s v = *%s;" % (n, p),
                    "  v.next = NULL;",
                    "  v.id = arr%d[i].id;" % x,
                    "  arr%d[i] = v;" % x,
                    "}"], 0
        if k == "arrwalk":
            term = self.link_key(t, "arr%d[i]." % x, "1u")
            return ["for (i = 0; i < %du; i++) acc = acc * 5u + %s;" % (t.arr_n, term)], 0
        if k == "boxinit":
            # a boxed local whose initializer list allocates: its elements
            # run first, then the header is allocated
            return ["{",
                    "  struct hd%d h = {new%d(rnd(100000u)), 1u};" % (x, x),
                    "  hdpush%d(&h, new%d(rnd(100000u)));" % (x, x),
                    "  for (q%d = h.first; q%d; q%d = q%d->next) acc = acc * 7u + q%d->k + h.n;" % (x, x, x, x, x),
                    "  i = rnd(%du);" % t.pool_n,
                    "  if (!%s) %s = h.first;" % (P("i"), P("i")),
                    "  else kill%d(h.first);" % x,
                    "}"], 2
        if k == "boxarr":
            # an array of list headers on the stack, an element's address
            # handed to a helper (a boxed local array), its initializer
            # with the elements' braces elided: `{0}`, or flat values (an
            # initializer that allocates is refused for an array: its calls
            # would run after the array is placed)
            # (clang's -Wmissing-braces, an error under -Werror, is
            # silenced for the flat form, as old code does)
            init = r.choice(["{0}", "{NULL, 0u, NULL, 5u}"])
            return ["{",
                    "#pragma clang diagnostic push",
                    "#pragma clang diagnostic ignored \"-Wmissing-braces\"",
                    "  struct hd%d hs[2] = %s;" % (x, init),
                    "#pragma clang diagnostic pop",
                    "  hdpush%d(&hs[rnd(2u)], new%d(rnd(100000u)));" % (x, x),
                    "  for (c = 0u; c < 2u; c++) {",
                    "    for (q%d = hs[c].first; q%d; q%d = q%d->next) acc = acc * 11u + q%d->k + hs[c].n;"
                    % (x, x, x, x, x),
                    "    kill%d(hs[c].first);" % x,
                    "  }",
                    "}"], 2
        if k == "kept":
            # back from a member to its object and forward again by an
            # offset measured the first time (before a switch, perhaps)
            return ["%s = %s;" % (p, P("rnd(%du)" % t.pool_n)),
                    "if (%s) {" % p,
                    "  if (!kset%d) {" % x,
                    "    koff%d = (char *)&%s->id - (char *)%s;" % (x, p, p),
                    "    kset%d = 1;" % x,
                    "  }",
                    "  q%d = (%s *)(void *)((char *)&%s->id - koff%d);" % (x, t.decl(), p, x),
                    "  acc = acc * 29u + (q%d == %s) + q%d->k + *(unsigned *)(void *)((char *)q%d + koff%d);"
                    % (x, p, x, x, x),
                    "}"], 0
        if k == "tailq":
            # a queue in the heap for the whole run, built at its tail
            # through a field that keeps the last link's address (whenever
            # the switch comes, that field points into a node), walked,
            # and emptied when it grows long
            m = r.choice([1, 3, 6])
            q = "tqg%d" % x
            return ["if (!%s) {" % q,
                    "  %s = malloc(sizeof *%s);" % (q, q),
                    "  if (!%s) exit(3);" % q,
                    "  %s->head = NULL;" % q,
                    "  %s->tail = &%s->head;" % (q, q),
                    "  %s->n = 0;" % q,
                    "}",
                    "for (c = rnd(%du) + 1u; c; c--) {" % m,
                    "  tqput%d(%s, new%d(rnd(1000u)));" % (x, q, x)] + (
                    ["  cp_safepoint();"] if polling else []) + [
                    "}",
                    "for (q%d = %s->head; q%d; q%d = q%d->next) acc = acc * 13u + q%d->k + %s->n;"
                    % (x, q, x, x, x, x, q),
                    "if (%s->n > 12u) {" % q,
                    "  kill%d(%s->head);" % (x, q),
                    "  %s->head = NULL;" % q,
                    "  %s->tail = &%s->head;" % (q, q),
                    "  %s->n = 0;" % q,
                    "}"], m
        if k == "deep":
            # a two-link member chain p->s1->s2->k
            paths = [(s1, s2) for s1, t1 in t.ptr_slots() for s2, _ in T[t1].ptr_slots()]
            if not paths:
                return self.op(t, polling)
            s1, s2 = r.choice(paths)
            return ["%s = %s;" % (p, P("rnd(%du)" % t.pool_n)),
                    "if (%s && %s->%s && %s->%s->%s) {" % (p, p, s1, p, s1, s2),
                    "  %s->%s->%s->k += %s->k;" % (p, s1, s2, p),
                    "  acc ^= %s->%s->%s->k;" % (p, s1, s2),
                    "}"], 0
        if k == "cond":
            return ["%s = %s;" % (p, P("rnd(%du)" % t.pool_n)),
                    "q%d = %s;" % (x, P("rnd(%du)" % t.pool_n)),
                    "c = rnd(2u);",
                    "if (%s && q%d) (c ? %s : q%d)->k += 11u;" % (p, x, p, x),
                    "if (%s && %s->next) acc += (c ? %s->next : %s)->k;" % (p, p, p, p)], 0
        if k == "stack":
            # a local array of compact pointers, live across a poll in
            # safepoint-reaching functions
            return ["{",
                    "  struct %s *st[8];" % n,
                    "  unsigned sn = 0;",
                    "  for (q%d = %s; q%d && sn < 8u; q%d = q%d->next) st[sn++] = q%d;" % (
                        x, P("rnd(%du)" % t.pool_n), x, x, x, x)]  + (
                    ["  cp_safepoint();"] if polling else []) + [
                    "  while (sn) acc = acc * 3u + st[--sn]->k;",
                    "}"], 0
        if k == "slotptr":
            return ["{",
                    "  struct %s **pp = &%s;" % (n, P("rnd(%du)" % t.pool_n)),
                    "  if (*pp) { (*pp)->k++; acc += (*pp)->k; }",
                    "}"], 0
        if k == "hold":
            # a by-value copy of a compact struct and a compact pointer held
            # across a safepoint
            return ["%s = %s;" % (p, P("rnd(%du)" % t.pool_n)),
                    "q%d = %s;" % (x, P("rnd(%du)" % t.pool_n)),
                    "if (%s && q%d) {" % (p, x),
                    "  struct %s v = *%s;" % (n, p),
                    "  cp_safepoint();",
                    "  v.k += 7u;",
                    "  v.next = q%d->next;" % x,
                    "  *q%d = v;" % x,
                    "}"], 0
        if k == "growp":
            cnt = r.randint(1, 300)
            return ["%s = %s;" % (p, P("rnd(%du)" % t.pool_n)),
                    "if (%s) {" % p,
                    "  q%d = growp%d(%s, %du);" % (x, x, p, cnt),
                    "  acc += q%d->k;" % x,
                    "}"], 1
        if k == "linkarr":
            # interior pointers into a heap array of structs
            s, tg = r.choice([(s, tg) for s, tg in t.ptr_slots() if T[tg].has_arr])
            u = T[tg]
            tgt = r.choice(["&arr%d[j]" % tg, "arr%d + j" % tg])
            return ["%s = %s;" % (p, P("rnd(%du)" % t.pool_n)),
                    "j = rnd(%du);" % u.arr_n,
                    "if (%s) %s->%s = %s;" % (p, p, s, tgt)], 0
        if k == "arrscan":
            return ["for (q%d = arr%d; q%d < arrend%d; q%d++) acc = acc * 3u + q%d->k + (unsigned)(q%d - arr%d);" % (
                x, x, x, x, x, x, x, x)], 0
        if k == "gval":
            slots = t.ptr_slots()
            read = "gval%d.k" % x
            if slots:
                sl, _ = r.choice(slots)
                read = "(gval%d.%s ? gval%d.%s->id : 2u)" % (x, sl, x, sl)
            return ["%s = %s;" % (p, P("rnd(%du)" % t.pool_n)),
                    "if (%s) {" % p,
                    "  gval%d = *%s;" % (x, p),
                    "  gval%d.next = NULL;" % x,
                    "}",
                    "acc += %s;" % read], 0
        if k == "regrow":
            if t.pool_n in (8, 32):
                # Through a `void *` and a size in bytes the plugin cannot
                # type: realloc links to cp_realloc_any, which knows the
                # root array by its address.  (Chosen without a draw, so
                # the other programs of every seed stay as they were.)
                return ["{ void *v = hp%d; size_t bytes = %d * sizeof(struct %s *);" % (x, t.pool_n, n),
                        "  v = realloc(v, bytes); if (!v) exit(3); hp%d = v; }" % x], 0
            if t.pool_n == 16:
                return ["hp%d = cpg_grow(hp%d, %d, sizeof(struct %s *));" % (x, x, t.pool_n, n)], 0
            if t.pool_n == 48:
                return ["hp%d = realloc(hp%d, cpg_st_mult(sizeof *hp%d, %d));" % (x, x, x, t.pool_n),
                        "if (!hp%d) exit(3);" % x], 0
            return ["hp%d = realloc(hp%d, %d * sizeof(struct %s *));" % (x, x, t.pool_n, n),
                    "if (!hp%d) exit(3);" % x], 0
        if k == "callback":
            return ["callback();"], 0
        if k == "whilewalk":
            return ["q%d = %s;" % (x, P("rnd(%du)" % t.pool_n)),
                    "if (q%d) {" % x,
                    "  acc += q%d->k;" % x,
                    "  while ((q%d = q%d->next)) acc = acc * 31u + q%d->id;" % (x, x, x),
                    "}"], 0
        if k == "walkp":
            return ["%s = %s;" % (p, P("rnd(%du)" % t.pool_n)),
                    "acc += walkp%d(%s, 0);" % (x, p)], 0
        if k == "cur":
            return ["cur%d = %s;" % (x, P("rnd(%du)" % t.pool_n)),
                    "if (cur%d && cur%d->next) acc += cur%d->next->k;" % (x, x, x)], 0
        raise AssertionError(k)

    # -- pointers to handle fields (`pp = &(*pp)->next`) ------------------
    def emit_slot_helpers(self):
        """Per type: walks, inserts and deletes through `struct T **`,
        starting at a head's `next` field (a handle slot), so the head of a
        pool slot never changes (fields may point at heads).  The `p`
        variants poll while the slot pointers are live: a switch moves them
        with the fields they point into."""
        e = self.emit
        for t in self.types:
            n, x = t.name, t.idx
            e("static struct %s **slot_at%d(struct %s **pp, unsigned n) {" % (n, x, n))
            e("  while (n-- && *pp) pp = &(*pp)->next;")
            e("  return pp;")
            e("}")
            e("static void ins_at%d(struct %s **at, unsigned n, struct %s *nn) {" % (x, n, n))
            e("  struct %s **pp = slot_at%d(at, n);" % (n, x))
            e("  nn->next = *pp;")
            e("  *pp = nn;")
            e("}")
            e("static struct %s *del_at%d(struct %s **at, unsigned n) {" % (n, x, n))
            e("  struct %s **pp = slot_at%d(at, n), *d = *pp;" % (n, x))
            e("  if (d) {")
            e("    *pp = d->next;")
            e("    d->next = NULL;")
            e("  }")
            e("  return d;")
            e("}")
            e("static unsigned long slot_sum%d(struct %s **pp) {" % (x, n))
            e("  unsigned long s = 0;")
            e("  for (; *pp; pp = &(*pp)->next) s = s * 31u + (*pp)->k + (*pp)->id;")
            e("  return s;")
            e("}")
            e("static unsigned long slot_walkp%d(struct %s **pp) {" % (x, n))
            e("  unsigned long s = 0;")
            e("  while (*pp) {")
            e("    s = s * 29u + (*pp)->id;")
            e("    pp = &(*pp)->next;")
            e("    cp_safepoint();")
            e("  }")
            e("  return s;")
            e("}")
            e("static void ins_recp%d(struct %s **pp, unsigned n, struct %s *nn) {" % (x, n, n))
            e("  cp_safepoint();")
            e("  if (n == 0 || !*pp) {")
            e("    nn->next = *pp;")
            e("    *pp = nn;")
            e("    return;")
            e("  }")
            e("  ins_recp%d(&(*pp)->next, n - 1, nn);" % x)
            e("  (*pp)->k += 1u;")
            e("}")
            # The path back kept in a local array of slot pointers (an
            # iterative AVL insertion's), live across the polls.
            e("static void ins_path%d(struct %s **at, unsigned n, struct %s *nn) {" % (x, n, n))
            e("  struct %s **path[64], **pp = at;" % n)
            e("  unsigned depth = 0;")
            e("  while (depth < n && depth < 64u && *pp) {")
            e("    path[depth++] = pp;")
            e("    pp = &(*pp)->next;")
            e("  }")
            e("  cp_safepoint();")
            e("  nn->next = *pp;")
            e("  *pp = nn;")
            e("  while (depth > 0) {")
            e("    struct %s **up = path[--depth];" % n)
            e("    (*up)->k += depth + 1u;")
            e("    if (depth % 8u == 0) cp_safepoint();")
            e("  }")
            e("}")

    def slot_kinds(self, t, polling):
        ks = ["ptrwalk", "ptrins", "ptrdel"]
        if any(f.kind == "arr" for f in t.fields):
            ks.append("ptrarr")
        if polling:
            ks += ["ptrwalkp", "ptrinsp", "ptrpath"]
        return ks

    def slot_op(self, t, polling, k):
        r = self.r
        n, x = t.name, t.idx
        p, q = "p%d" % x, "q%d" % x
        head = ["%s = %s;" % (p, self.pool(t, "rnd(%du)" % t.pool_n))]
        self.facts["slot_ops"] = self.facts.get("slot_ops", 0) + 1
        if k == "ptrwalk":
            return head + ["if (%s) acc += slot_sum%d(&%s->next);" % (p, x, p)], 0
        if k == "ptrwalkp":
            return head + ["if (%s) acc += slot_walkp%d(&%s->next);" % (p, x, p)], 0
        if k == "ptrins":
            return head + ["if (%s) {" % p,
                           "  c = rnd(%du);" % r.choice([1, 4, 16, 64]),
                           "  %s = new%d(rnd(1000u));" % (q, x),
                           "  ins_at%d(&%s->next, c, %s);" % (x, p, q),
                           "}"], 1
        if k == "ptrinsp":
            return head + ["if (%s) {" % p,
                           "  c = rnd(%du);" % r.choice([1, 4, 16, 40]),
                           "  %s = new%d(rnd(1000u));" % (q, x),
                           "  ins_recp%d(&%s->next, c, %s);" % (x, p, q),
                           "}"], 1
        if k == "ptrpath":
            return head + ["if (%s) {" % p,
                           "  c = rnd(%du);" % r.choice([1, 4, 16, 70]),
                           "  %s = new%d(rnd(1000u));" % (q, x),
                           "  ins_path%d(&%s->next, c, %s);" % (x, p, q),
                           "}"], 1
        if k == "ptrdel":
            return head + ["if (%s) {" % p,
                           "  %s = del_at%d(&%s->next, rnd(%du));" % (q, x, p, r.choice([1, 4, 16, 64])),
                           "  if (%s) { %s; frees++; }"
                           % (q, "cpg_pool_free(&cpg_pool%d, %s)" % (x, q) if t.pooled
                              else "%s(%s)" % ("cpg_hooks.deallocate" if x % 2 == 0 else "free", q)),
                           "}"], 0
        if k == "ptrarr":
            f = r.choice([f for f in t.fields if f.kind == "arr"])
            u = self.types[f.target]
            run = self.hr.choice([None, "move", "clear"])
            if run is None and self.nr.random() < 0.5:
                run = "native"
            elif run is None and self.wr.random() < 0.5:
                run = "copy"
            if run:
                self.facts["handle_runs"] = self.facts.get("handle_runs", 0) + 1
            if run == "move":
                return head + ["if (%s) {" % p,
                               "  c = rnd(%du);" % f.n,
                               "  memmove(&%s->%s[1], &%s->%s[0], c * sizeof %s->%s[0]);"
                               % (p, f.name, p, f.name, p, f.name),
                               "  j = rnd(%du);" % u.pool_n,
                               "  %s->%s[0] = %s;" % (p, f.name, self.pool(u, "j")),
                               "}"], 0
            if run == "native":
                self.facts["native_runs"] = self.facts.get("native_runs", 0) + 1
                return head + ["if (%s) {" % p,
                               "  struct %s *k[%d], *first;" % (u.name, f.n),
                               "  memcpy(k, %s->%s, sizeof %s->%s);" % (p, f.name, p, f.name),
                               "  first = k[0];",
                               "  memmove(k, k + 1, %d * sizeof k[0]);" % (f.n - 1),
                               "  k[%d] = first;" % (f.n - 1),
                               "  memcpy(%s->%s, k, sizeof k);" % (p, f.name),
                               "}"], 0
            if run == "copy":
                return head + ["if (%s) {" % p,
                               "  struct %s *o = %s;" % (t.name, self.pool(t, "rnd(%du)" % t.pool_n)),
                               "  if (o && o != %s) memcpy(%s->%s, o->%s, sizeof o->%s);"
                               % (p, p, f.name, f.name, f.name),
                               "}"], 0
            if run == "clear":
                return head + ["if (%s) {" % p,
                               "  c = rnd(%du);" % f.n,
                               "  memset(&%s->%s[c], 0, (%du - c) * sizeof(struct %s *));"
                               % (p, f.name, f.n, u.name),
                               "}"], 0
            return head + ["if (%s) {" % p,
                           "  struct %s **sp = &%s->%s[rnd(%du)];" % (u.name, p, f.name, f.n),
                           "  j = rnd(%du);" % u.pool_n,
                           "  if (!*sp) *sp = %s;" % self.pool(u, "j"),
                           "  else acc += (*sp)->k;",
                           "}"], 0
        raise AssertionError(k)

    def link_key(self, t, obj, none):
        """The key behind a random link of obj (`q0->`, `arr0[i].`), or
        none for a null link; obj's own key if t has no links."""
        slots = t.ptr_slots()
        if not slots:
            return obj + "k"
        s, _ = self.r.choice(slots)
        return "(%s%s ? %s%s->k : %s)" % (obj, s, obj, s, none)

    def block(self, polling, depth=0):
        """A list of ops, some inside loops; returns (lines, nodes)."""
        r = self.r
        lines, nodes = [], 0
        for _ in range(r.randint(1, 4)):
            t = r.choice(self.types)
            if depth == 0 and r.random() < 0.3:
                reps = r.randint(2, 3 if not polling else 40)
                inner, m = self.block(polling, depth + 1)
                form = r.choice(["for", "while", "do"])
                v = "l%d" % depth
                if form == "for":
                    lines.append("for (%s = 0; %s < %du; %s++) {" % (v, v, reps, v))
                elif form == "while":
                    lines.append("%s = 0;" % v)
                    lines.append("while (%s < %du) {" % (v, reps))
                    inner = inner + ["%s++;" % v]
                else:
                    lines.append("%s = 0;" % v)
                    lines.append("do {")
                    inner = inner + ["%s++;" % v]
                if polling:
                    inner.append("cp_safepoint();")
                lines += ["  " + s for s in inner]
                lines.append("} while (%s < %du);" % (v, reps) if form == "do" else "}")
                nodes += m if polling else reps * m
            else:
                ls, m = self.op(t, polling)
                lines += ls + [self.clear_locals()]
                nodes += m
        if polling and r.random() < 0.5:
            lines.append("cp_safepoint();")
        return lines, nodes

    def locals(self):
        ls = ["unsigned i, j, c, l0, l1, ix;"]
        for t in self.types:
            ls.append("%s *p%d, *q%d;" % (t.decl(), t.idx, t.idx))
        return ls

    def clear_locals(self):
        """No local keeps a pointer from one op to the next, so none can
        dangle across a later safepoint (a freed object's memory may be
        reused by another type, which COMPACTPTR_VERIFY rejects)."""
        return " ".join("p%d = q%d = NULL;" % (t.idx, t.idx) for t in self.types)

    def emit_steps(self):
        r = self.r
        nsteps = r.randint(2, 6)
        self.steps = []  # (name, polling, nodes)
        for s in reversed(range(nsteps)):
            polling = r.random() < 0.4 and not self.nopoll
            while True:
                body, nodes = self.block(polling)
                # a call to a later step: plain steps only call plain ones
                callees = [c for c in self.steps if polling or not c[1]]
                if callees and r.random() < 0.5:
                    c = r.choice(callees)
                    body.append("%s(r + %du);" % (c[0], r.randint(0, 9)))
                    if not polling:
                        nodes += c[2]
                    polling = polling or c[1]
                if polling and not any("cp_safepoint();" in l for l in body):
                    body.append("cp_safepoint();")
                if polling or nodes <= PLAIN_NODE_CAP:
                    break
            if self.jumps and self.jr.random() < 0.5:
                body.append("if ((r + %du) %% 5u == 0u) longjmp(cpg_env, 1);"
                            % self.jr.randint(0, 4))
            name = "step%d" % s
            self.emit("static void %s(unsigned r) {" % name)
            for l in self.locals():
                self.emit("  " + l)
            self.emit("  (void)r; (void)i; (void)j; (void)c; (void)l0; (void)l1; (void)ix;")
            for t in self.types:
                self.emit("  (void)p%d; (void)q%d;" % (t.idx, t.idx))
            for l in body:
                self.emit("  " + l)
            self.emit("}")
            self.steps.append((name, polling, nodes))
        self.facts["steps"] = len(self.steps)
        self.facts["polling_steps"] = sum(1 for s in self.steps if s[1])

    def emit_main(self):
        r = self.r
        e = self.emit
        rounds = r.randint(10, 60)
        # A list of objects with a flexible array member of bytes, one more
        # each round (some grown with realloc), printed at the end: in
        # programs whose round count is a multiple of 4 (no draw of its
        # own, so the other programs of every seed stay as they were); of
        # 8, the size held in a local first.
        flex = rounds % 4 == 0
        if flex:
            e("struct CP_COMPACT fx { struct fx *next; unsigned n; unsigned char b[]; };")
            e("static struct fx *cpg_fx;")
            e("static void cpg_fx_add(unsigned r) {")
            e("  unsigned n = r * 37u % 200u, k;")
            if rounds % 8 == 0:
                # The size held in a local first, as most C writes it.
                e("  unsigned long sz = sizeof(struct fx) + n;")
                e("  struct fx *x = malloc(sz);")
            else:
                e("  struct fx *x = malloc(sizeof *x + n);")
            e("  if (!x) exit(3);")
            e("  x->n = n;")
            e("  for (k = 0; k < n; k++) x->b[k] = (unsigned char)(r + k * 7u);")
            e("  x->next = cpg_fx;")
            e("  cpg_fx = x;")
            e("  if (r % 3u == 2u) {")
            e("    cpg_fx = realloc(cpg_fx, offsetof(struct fx, b) + n + 50u);")
            e("    if (!cpg_fx) exit(3);")
            e("    for (k = n; k < n + 50u; k++) cpg_fx->b[k] = (unsigned char)(k * 3u);")
            e("    cpg_fx->n = n + 50u;")
            e("  }")
            e("}")
            e("static unsigned long cpg_fx_digest(void) {")
            e("  unsigned long h = 5;")
            e("  const struct fx *x;")
            e("  unsigned k;")
            e("  for (x = cpg_fx; x; x = x->next)")
            e("    for (h = h * 31u + x->n, k = 0; k < x->n; k++) h = h * 131u + x->b[k];")
            e("  return h;")
            e("}")
        # A skip list whose nodes keep their forward links in a flexible
        # array member of compact pointers (or, where the round count is 6
        # more than a multiple of 8, of compact structs: a link and a
        # width), one insertion each round and a deletion every fifth
        # (through a slot pointer into the member), printed at the end: in
        # programs whose round count is 2 more than a multiple of 4 (again
        # no draw of its own).
        skip = rounds % 4 == 2
        lk = ".p" if rounds % 8 == 6 else ""
        # Of 16 (pointer links only), Pugh's own struct hack: `fw[1]`, the
        # size counting one link less, the links cleared by a memset of
        # the decayed member.
        fhack = rounds % 16 == 10
        if skip:
            if lk:
                e("struct CP_COMPACT fs { unsigned key; int lvl; struct fsl { struct fs *p; unsigned w; } fw[]; };")
            elif fhack:
                e("struct CP_COMPACT fs { unsigned key; int lvl; struct fs *fw[1]; };")
            else:
                e("struct CP_COMPACT fs { unsigned key; int lvl; struct fs *fw[]; };")
            e("static struct fs *cpg_fs;")
            e("static void cpg_fs_add(unsigned r) {")
            e("  struct fs *up[6], *x = cpg_fs, *n;")
            e("  unsigned key = r * 7919u % 1000u;")
            e("  int l, lvl = 1 + (int)(r * 2654435761u >> 29) % 6;")
            e("  if (!cpg_fs) {")
            e("    cpg_fs = calloc(1, sizeof(struct fs) + 6 * sizeof(%s));" % ("struct fsl" if lk else "struct fs *"))
            e("    if (!cpg_fs) exit(3);")
            e("    cpg_fs->lvl = 6;")
            e("    x = cpg_fs;")
            e("  }")
            e("  for (l = 5; l >= 0; l--) {")
            e("    while (x->" + "fw[l]" + lk + " && x->" + "fw[l]" + lk + "->key < key) x = x->" + "fw[l]" + lk + ";")
            e("    up[l] = x;")
            e("  }")
            if fhack:
                e("  n = malloc(sizeof(struct fs) + (unsigned long)(lvl - 1) * sizeof(struct fs *));")
                e("  if (!n) exit(3);")
                e("  memset(n->fw, 0, (unsigned long)lvl * sizeof n->fw[0]);")
            else:
                e("  n = malloc(offsetof(struct fs, fw) + (unsigned long)lvl * sizeof n->fw[0]);")
                e("  if (!n) exit(3);")
            e("  n->key = key;")
            e("  n->lvl = lvl;")
            e("  for (l = 0; l < lvl; l++) { n->" + "fw[l]" + lk + " = up[l]->" + "fw[l]" + lk + "; up[l]->" + "fw[l]" + lk + " = n; }")
            if lk:
                e("  for (l = 0; l < lvl; l++) n->fw[l].w = key * 3u + (unsigned)l;")
            e("}")
            e("static void cpg_fs_del(unsigned r) {")
            e("  unsigned key = r * 31u % 1000u;")
            e("  struct fs *v, *x = cpg_fs;")
            e("  int l;")
            e("  if (!x) return;")
            e("  for (l = 5; l >= 0; l--)")
            e("    while (x->" + "fw[l]" + lk + " && x->" + "fw[l]" + lk + "->key < key) x = x->" + "fw[l]" + lk + ";")
            e("  if (!(v = x->" + "fw[0]" + lk + ")) return;")
            e("  for (l = 0; l < v->lvl; l++) {")
            e("    struct fs **pp = &cpg_fs->" + "fw[l]" + lk + ";")
            e("    while (*pp != v) pp = &(*pp)->" + "fw[l]" + lk + ";")
            e("    *pp = v->" + "fw[l]" + lk + ";")
            e("  }")
            e("  free(v);")
            e("}")
            e("static unsigned long cpg_fs_digest(void) {")
            e("  unsigned long h = 3;")
            e("  const struct fs *x;")
            e("  int l;")
            e("  if (!cpg_fs) return 0;")
            e("  for (l = 0; l < 6; l++)")
            e("    for (x = cpg_fs->" + "fw[l]" + lk + "; x; x = x->" + "fw[l]" + lk + ") h = h * 131u + x->key + (unsigned long)x->lvl%s;" % (" + x->fw[l].w" if lk else ""))
            e("  return h;")
            e("}")
        # Untyped pointer fields of compact structs, which the switch moves
        # (CP_FIELD_ADDRESS): a generic cell's `void *data`, an intrusive
        # chain through `void *link[2]` members whose head is a field of
        # another compact object, and an address tagged in its low bit;
        # and what comes back out of them as `void *` (cpg_ub_probe).
        # One cell a round, the chain's head dropped every third: in
        # programs whose round count is 1 more than a multiple of 4 (no
        # draw of its own).
        untyped = rounds % 4 == 1
        if untyped:
            e("struct CP_COMPACT ua { unsigned key; unsigned pad; };")
            e("struct CP_COMPACT ub { void *data; void *mark; void *link[2]; struct ub *next; };")
            e("struct CP_COMPACT uo { void *first; unsigned n; };")
            e("static struct ub *cpg_ub;")
            e("static struct uo *cpg_uo;")
            e("static void cpg_ub_add(unsigned r) {")
            e("  struct ua *a = malloc(sizeof *a);")
            e("  struct ub *b;")
            e("  if (!a) exit(3);")
            e("  a->key = r * 2654435761u % 1000u;")
            e("  a->pad = r;")
            e("  b = malloc(sizeof *b);")
            e("  if (!b) exit(3);")
            e("  b->data = a;")
            e("  b->mark = (r & 1u) ? (void *)((char *)a + 1) : (void *)a;")
            e("  b->next = cpg_ub;")
            e("  cpg_ub = b;")
            e("  if (!cpg_uo) {")
            e("    cpg_uo = calloc(1, sizeof *cpg_uo);")
            e("    if (!cpg_uo) exit(3);")
            e("  }")
            e("  b->link[0] = cpg_uo->first;")
            e("  b->link[1] = NULL;")
            e("  cpg_uo->first = &b->link;")
            e("  cpg_uo->n++;")
            e("  if (r % 3u == 2u) {")
            e("    cpg_uo->first = *(void **)cpg_uo->first;")
            e("    cpg_uo->n--;")
            e("  }")
            e("}")
            e("static unsigned long cpg_ub_digest(void) {")
            e("  unsigned long h = 11;")
            e("  const struct ub *b;")
            e("  void **q;")
            e("  for (b = cpg_ub; b; b = b->next) {")
            e("    const struct ua *a = b->data;")
            e("    unsigned long t = (unsigned long)((uintptr_t)b->mark & 1u);")
            e("    h = h * 131u + a->key + a->pad * 3u + t;")
            e("    if ((void *)((char *)b->mark - t) != b->data) h ^= 0xbad;")
            e("  }")
            e("  if (cpg_uo)")
            e("    for (q = cpg_uo->first; q; q = q[0]) {")
            e("      const struct ub *x = (const struct ub *)((const char *)q - offsetof(struct ub, link));")
            e("      h = h * 7u + ((const struct ua *)x->data)->key;")
            e("    }")
            e("  return h + (cpg_uo ? cpg_uo->n : 0);")
            e("}")
            # What the plugin cannot see into, held across a safepoint: a
            # `void *` a lookup returns, the `void *data` a callback gets
            # through a function pointer, and a local struct's untyped
            # member the callback fills through `void *user`.  Each is a
            # root (Interior.cpp).
            e("typedef void (*cpg_ub_fn)(void *, void *);")
            e("struct cpg_ub_ctx { unsigned long h; void *last; };")
            e("static void *cpg_ub_find(unsigned n) {")
            e("  const struct ub *b;")
            e("  for (b = cpg_ub; b; b = b->next)")
            e("    if (n-- == 0) return b->data;")
            e("  return NULL;")
            e("}")
            # The callback's allocations stay (a list of its own, 128-byte
            # objects): a good part of each round's growth, so a switch
            # that an arena limit brings comes there now and then (seed 10:
            # exit 70 before these were roots).
            e("struct CP_COMPACT uk { unsigned key; unsigned pad[30]; struct uk *next; };")
            e("static struct uk *cpg_uk;")
            e("static void cpg_ub_visit(void *data, void *user) {")
            e("  struct cpg_ub_ctx *c = user;")
            e("  int k;")
            e("  for (k = 0; k < 8; k++) {")
            e("    struct uk *t = malloc(sizeof *t); /* a safepoint while data is held */")
            e("    if (!t) exit(3);")
            e("    t->key = ((struct ua *)data)->key + (unsigned)k;")
            e("    t->next = cpg_uk;")
            e("    cpg_uk = t;")
            e("    c->h = c->h * 31u + t->key;")
            e("  }")
            e("  c->last = data;")
            e("}")
            e("static void cpg_ub_each(cpg_ub_fn f, void *user, unsigned n) {")
            e("  const struct ub *b;")
            e("  for (b = cpg_ub; b && n; b = b->next, n--) f(b->data, user);")
            e("}")
            e("static unsigned long cpg_ub_probe(unsigned r) {")
            e("  struct cpg_ub_ctx c = {7, NULL};")
            e("  void *d = cpg_ub_find(r % 5u);")
            e("  struct ua *t;")
            e("  cpg_ub_each(cpg_ub_visit, &c, 4);")
            e("  t = malloc(sizeof *t);")
            e("  if (!t) exit(3);")
            e("  t->key = 1;")
            e("  t->pad = 2;")
            e("  free(t);")
            e("  return c.h + (d ? ((struct ua *)d)->key : 0) + (c.last ? ((struct ua *)c.last)->pad : 0);")
            e("}")
        e("int main(void) {")
        e("  unsigned r;")
        if self.ctx_type:
            e("  struct %s cpg_ctx = {0};" % self.ctx_type.name)
        for l in self.locals():
            e("  " + l)
        e("  (void)i; (void)j; (void)c; (void)l0; (void)l1; (void)ix;")
        for t in self.types:
            e("  (void)p%d; (void)q%d;" % (t.idx, t.idx))
        for t in self.types:
            if t.pooled:
                e("  cpg_pool_init(&cpg_pool%d, sizeof(struct %s));" % (t.idx, t.name))
        for t in self.types:
            if t.heap_pool:
                e("  hp%d = calloc(%d, sizeof(struct %s *));" % (t.idx, t.pool_n, t.name))
                e("  if (!hp%d) return 3;" % t.idx)
            if t.pinned_pool:
                e("  pb%d = calloc(1, sizeof *pb%d);" % (t.idx, t.idx))
                e("  if (!pb%d) return 3;" % t.idx)
                e("  pthread_mutex_init(&pb%d->mu, NULL);" % t.idx)
            if t.has_arr and t.arr_n % 4 == 0:
                e("  arr%d = calloc(1, cpg_st_mult(%d, sizeof(struct %s)));" % (
                    t.idx, t.arr_n, t.name))
            elif t.has_arr:
                e("  arr%d = %s(%d, sizeof(struct %s));" % (
                    t.idx, "cpg_xcalloc" if t.arr_n % 2 else "calloc", t.arr_n, t.name))
            if t.has_arr:
                e("  if (!arr%d) return 3;" % t.idx)
                e("  arrend%d = arr%d + %d;" % (t.idx, t.idx, t.arr_n))
                e("  for (q%d = arr%d; q%d < arrend%d; q%d++) q%d->id = ++%s;" % (
                    (t.idx,) * 6 + (self.v_serial,)))
        e("  callback = poll_cb;")
        # a starting heap of a random size (polled: main's loops)
        total = int(math.exp(r.uniform(math.log(500), math.log(20000))))
        for t in self.types:
            per = total // len(self.types) // t.pool_n
            P = self.pool(t, "i")
            e("  for (i = 0; i < %du; i++) {" % t.pool_n)
            e("    %s = new%d(i);" % (P, t.idx))
            e("    for (c = 0; c < %du; c++) {" % per)
            if t.xctor:
                # the store after the call to another file: call first
                e("      %s->next = cpg_cons%d(c, %s->next);" % (P, t.idx, P))
            else:
                e("      q%d = new%d(c);" % (t.idx, t.idx))
                e("      q%d->next = %s->next;" % (t.idx, P))
                e("      %s->next = q%d;" % (P, t.idx))
            e("    }")
            e("  }")
        e("  " + self.clear_locals())
        self.facts["initial_nodes"] = sum(
            (total // len(self.types) // t.pool_n + 1) * t.pool_n for t in self.types)
        self.facts["initial_bytes"] = sum(
            (total // len(self.types) // t.pool_n + 1) * t.pool_n * t.compact_size()
            for t in self.types)
        e("  for (r = 0; r < %du; r++) {" % rounds)
        # every step once a round, each in its own iteration of a polled
        # loop, so that at most one step's allocations fall between polls
        order = self.steps[:]
        r.shuffle(order)
        e("    for (l0 = 0; l0 < %du; l0++) {" % len(order))
        e("      switch (l0) {")
        for i, (name, _, _) in enumerate(order):
            if self.jumps:
                e("      case %d: if (setjmp(cpg_env) == 0) %s(r); else cpg_jumps++; break;"
                  % (i, name))
            else:
                e("      case %d: %s(r); break;" % (i, name))
        e("      }")
        e("    }")
        # steady growth, so that the heap's peak comes late: main's
        # polled loops append to a random chain of every type
        grow = r.randint(10, 200)
        for t in self.types:
            e("    p%d = %s;" % (t.idx, self.pool(t, "rnd(%du)" % t.pool_n)))
            e("    for (c = 0; p%d && c < %du; c++) {" % (t.idx, grow))
            e("      q%d = new%d(c);" % (t.idx, t.idx))
            e("      q%d->next = p%d->next;" % (t.idx, t.idx))
            e("      p%d->next = q%d;" % (t.idx, t.idx))
            e("    }")
        e("    " + self.clear_locals())
        # main's own work: polled loops, checked form
        if r.random() < 0.7:
            body, _ = self.block(False)
            e("    for (l1 = 0; l1 < %du; l1++) {" % r.randint(1, 3))
            for l in body:
                e("      " + l)
            e("    }")
        if self.ctx_type:
            t = self.ctx_type
            e("    cpg_ctx.k = r;")
            e("    cpg_ctx.next = %s;" % self.pool(t, "%du" % self.cr.randrange(t.pool_n)))
            e("    ctx_visit((void *)&cpg_ctx); /* not kept past the call */")
            e("    acc += cpg_ctx.k;")
            e("    cpg_ctx.next = NULL;")
        every = r.choice([1, 2, 5])
        if flex:
            e("    cpg_fx_add(r);")
        if untyped:
            e("    cpg_ub_add(r);")
            e("    acc += cpg_ub_probe(r);")
        if skip:
            e("    cpg_fs_add(r);")
            e("    if (r % 5u == 4u) cpg_fs_del(r);")
        e("    if (r %% %du == 0) printf(\"round %%u digest %%lx\\n\", r, digest());" % every)
        e("  }")
        e("  printf(\"final %lx acc %lx\\n\", digest(), acc);")
        if flex:
            e("  printf(\"flex %lx\\n\", cpg_fx_digest());")
            e("  while (cpg_fx) { struct fx *x = cpg_fx; cpg_fx = x->next; free(x); }")
        if untyped:
            e("  printf(\"untyped %lx\\n\", cpg_ub_digest());")
            e("  while (cpg_ub) { struct ub *x = cpg_ub; cpg_ub = x->next; free(x->data); free(x); }")
            e("  while (cpg_uk) { struct uk *x = cpg_uk; cpg_uk = x->next; free(x); }")
            e("  free(cpg_uo);")
        if skip:
            e("  printf(\"skip %lx\\n\", cpg_fs_digest());")
            e("  while (cpg_fs) { struct fs *x = cpg_fs; cpg_fs = x->fw[0]" + lk + "; free(x); }")
        if self.jumps:
            e("  printf(\"jumps %lu\\n\", cpg_jumps);")
        for t in self.types:
            e("  if (tqg%d) {" % t.idx)
            e("    kill%d(tqg%d->head);" % (t.idx, t.idx))
            e("    free(tqg%d);" % t.idx)
            e("    tqg%d = NULL;" % t.idx)
            e("  }")
            if t.pinned_pool:
                e("  pthread_mutex_lock(&pb%d->mu);" % t.idx)
            e("  for (i = 0; i < %du; i++) {" % t.pool_n)
            e("    if (%s) kill%d(%s);" % (self.pool(t, "i"), t.idx, self.pool(t, "i")))
            e("    %s = NULL;" % self.pool(t, "i"))
            e("  }")
            if t.pinned_pool:
                e("  pthread_mutex_unlock(&pb%d->mu);" % t.idx)
        for t in self.types:
            if t.pinned_pool:
                # after every kill: the other types' scrubs read its slots
                e("  pthread_mutex_destroy(&pb%d->mu);" % t.idx)
                e("  free(pb%d);" % t.idx)
                e("  pb%d = NULL;" % t.idx)
            if t.heap_pool and t.idx % 2:
                e("  { void *v = hp%d; free(v); } /* a root array freed as void * */" % t.idx)
            elif t.heap_pool:
                e("  free(hp%d);" % t.idx)
            if t.has_arr:
                # Cleared: with --threads the other threads go on and may
                # switch, and COMPACTPTR_VERIFY stops on a dangling root.
                e("  free(arr%d);" % t.idx)
                e("  arr%d = arrend%d = NULL;" % (t.idx, t.idx))
        e("  printf(\"allocs %%lu frees %%lu\\n\", %s, frees);" % self.v_allocs)
        e("  return %s == frees ? 0 : 4;" % self.v_allocs)
        e("}")
        self.facts["rounds"] = rounds

    def emit_ctx_visit(self):
        t = self.ctx_type
        e = self.emit
        e("/* a visitor's context, handed as void * */")
        e("static void ctx_visit(void *ctx) {")
        e("  struct %s *x = ctx;" % t.name)
        e("  x->k = x->k * 3u + 1u;")
        e("  if (x->next) x->k += x->next->k;")
        e("}")

    def generate(self):
        self.make_types()
        self.facts["types"] = len(self.types)
        if self.xtu:
            for t in self.types:
                t.xctor = self.xr.random() < 0.7
            self.types[self.xr.randrange(len(self.types))].xctor = True
        self.ctx_type = self.types[self.cr.randrange(len(self.types))] if self.ctx else None
        self.emit_types()
        self.emit_helpers()
        if self.ctx_type:
            self.emit_ctx_visit()
        self.emit_steps()
        self.emit_main()
        src = "\n".join(self.out) + "\n"
        for t in self.types:
            if t.xctor:
                src = re.sub(r"\bnew%d\(" % t.idx, "cpg_new%d(" % t.idx, src)
        return src, self.facts

    def ctor_file(self):
        """ctor.c of a two-file program (after generate), or None."""
        if not self.xtu:
            return None
        e = []
        e.append("/* generated by test/differential/cpgen.py, seed %d: the constructors"
                 " of prog.c's types %s, another translation unit */" % (
                     self.seed, ", ".join(t.name for t in self.types if t.xctor)))
        e += ["#include <compactptr.h>", "#include <stddef.h>", "#include <stdlib.h>", ""]
        e += self.type_lines
        e.append("")
        if any(t.strs() for t in self.types if t.xctor):
            e.append("static const char *const names[4] = {\"ash\", \"birch\", \"cedar\", \"damson\"};")
        e.append("unsigned long cpg_allocs; /* prog.c counts and frees too */")
        e.append("unsigned cpg_serial;")
        e += self.ctor_out
        return "\n".join(e) + "\n"


# -- macro-wrapped accesses (a separate feature) -----------------------------
#
# Real C hides its accesses in macros: accessor macros (`NEXT(p)` for
# `p->next`, as lvalues and rvalues), macros inside macros (`ACC_b(ACC_a(p))`
# for `p->a->b`), allocation macros (`NEW(T)` for `malloc(sizeof(T))`, and
# `({ T *p = malloc(sizeof(T)); if (!p) exit(3); p; })` and the
# layout-dependent `({ T *p = malloc(sizeof(T)); memset(p, 0, sizeof *p);
# p; })` for a variable's whole new value),
# statement macros in `do { } while (0)`, two statements in one macro
# left unwrapped in compact-only builds (nginx's queue macros are so;
# `CPG_SEQ`, in `do { } while (0)` in the others, whose checked functions
# refuse them), and `#`/`##` macros that touch no compact type.  For half of the seeds (drawn from a PRNG of their own, so
# the base program of every seed is unchanged) the program's text is
# rewritten that way after it is generated: the plugin must give the same
# output through the macros.

MACRO_PRELUDE = r"""/* cpgen: macro-wrapped accesses */
#include <string.h>
#define CPG_NEW(T) ((T *)malloc(sizeof(T)))
#define CPG_XNEW(T) __extension__({ T *cpg_p = malloc(sizeof(T)); if (!cpg_p) exit(3); cpg_p; })
#define CPG_ZNEW(T) __extension__({ T *cpg_z = malloc(sizeof(T)); memset(cpg_z, 0, sizeof *cpg_z); cpg_z; })
#define CPG_STMT(...) do { __VA_ARGS__ } while (0)
/* two statements, unwrapped in compact-only builds (as nginx's queue
   macros are; checked functions refuse them) */
#ifdef CPG_BARE_SEQ
#define CPG_SEQ(...) __VA_ARGS__
#else
#define CPG_SEQ(...) do { __VA_ARGS__ } while (0)
#endif
#define CPG_STR(x) #x
#define CPG_CAT(a, b) a##b
static const char *CPG_CAT(cpg_, tag) __attribute__((unused)) = CPG_STR(macro-wrapped);"""

_ACCESS = re.compile(r"(?<![\w.>])([A-Za-z_]\w*(?:\[[^\[\]]*\])?)->([A-Za-z_]\w*)")
_NESTED = re.compile(r"(CPG_ACC_\w+\([^()]*(?:\([^()]*\))?[^()]*\))->([A-Za-z_]\w*)")
_MALLOC = re.compile(r"\(struct (T\d+) \*\)malloc\(sizeof\(struct T\d+\)\)")
_WHOLE_ALLOC = re.compile(r"^\s*(?:struct T\d+ \*)?\w+ = \(struct (T\d+) \*\)malloc\(sizeof\(struct T\d+\)\);$")


def macro_wrapped(seed):
    """Whether the program of `seed` is macro-wrapped (a PRNG of its own)."""
    return random.Random(seed * 7919 + 17).random() >= 0.5


def macro_wrap(src, seed):
    """src with some member accesses, allocations and statements of its
    function bodies written through macros; (text, count of rewrites)."""
    if not macro_wrapped(seed):
        return src, 0
    r = random.Random(seed * 7919 + 17)
    r.random()  # the draw macro_wrapped made
    lines = src.split("\n")
    fields = set()
    count = 0
    out = []
    stack = []  # per open brace: is it (inside) a function body?
    for line in lines:
        in_body = bool(stack) and stack[-1]
        for ch in line.split("//")[0]:
            if ch == "{":
                stack.append(in_body or (not stack and line.rstrip().endswith(") {")))
            elif ch == "}" and stack:
                stack.pop()
        if line.startswith("#") or "\"" in line or not in_body or r.random() < 0.3:
            out.append(line)
            continue
        def acc(m):
            nonlocal count
            if r.random() < 0.3:
                return m.group(0)
            fields.add(m.group(2))
            count += 1
            return "CPG_ACC_%s(%s)" % (m.group(2), m.group(1))
        new = _ACCESS.sub(acc, line)
        for _ in range(3):
            new2 = _NESTED.sub(lambda m: (fields.add(m.group(2)) or
                                          "CPG_ACC_%s(%s)" % (m.group(2), m.group(1))), new)
            if new2 == new:
                break
            new = new2
        # Allocations that are a variable's whole new value go in turn
        # through a cast macro, a statement-expression macro that checks
        # (xmalloc-style) and one that clears the object it allocates (its
        # text depends on the layout: the allocation goes first); the rest
        # through the cast macro.
        whole = _WHOLE_ALLOC.match(new) is not None
        new, k = _MALLOC.subn(lambda m: "CPG_%sNEW(struct %s)" % (
            ("", "X", "Z")[count % 3] if whole else "", m.group(1)), new)
        count += k
        stripped = new.strip()
        if (stripped.endswith(";") and not stripped.startswith(("return", "case", "default", "break", "continue", "goto"))
                and stripped.count(";") == 1 and "{" not in stripped and "}" not in stripped
                and not stripped.startswith(("if", "for", "while", "do", "else"))
                and not re.match(r"^(struct|union|enum|unsigned|signed|int|long|short|char|"
                                 r"double|float|_Bool|void|const|static|T\d+_t)\b", stripped)
                and r.random() < 0.3):
            indent = new[:len(new) - len(new.lstrip())]
            new = "%sCPG_STMT(%s);" % (indent, stripped)
            count += 1
        out.append(new)
    count += pair_statements(out, r)
    defs = ["#define CPG_ACC_%s(p) ((p)->%s)" % (f, f) for f in sorted(fields)]
    # After the includes: the macros need no declaration.
    at = max(i for i, l in enumerate(out) if l.startswith("#include")) + 1
    out[at:at] = [MACRO_PRELUDE] + defs
    out, k = generator_wrap(out, r)
    return "\n".join(out), count + k


def _simple_statement(line):
    t = line.strip()
    return (t.endswith(";") and t.count(";") == 1 and "{" not in t and "}" not in t
            and '"' not in t and not t.startswith("#")
            and not t.startswith(("return", "case", "default", "break", "continue",
                                  "goto", "if", "for", "while", "do", "else"))
            and not re.match(r"^(struct|union|enum|unsigned|signed|int|long|short|char|"
                             r"double|float|_Bool|void|const|static|T\d+_t)\b", t))


def pair_statements(lines, r):
    """Some runs of two simple statements of a block (the line before
    them ends a statement or opens the block) written as one
    `CPG_SEQ(a; b;);`: a macro of several statements, unwrapped where
    CPG_BARE_SEQ is defined (compact-only builds); the second line is
    left empty, so lines keep their numbers.  Returns how many."""
    n = 0
    i = 1
    while i + 1 < len(lines):
        a, b, before = lines[i], lines[i + 1], lines[i - 1].rstrip()
        ind = a[:len(a) - len(a.lstrip())]
        if (ind and b.startswith(ind) and not b[len(ind)].isspace()
                and _simple_statement(a) and _simple_statement(b)
                and before.endswith((";", "{", "}")) and r.random() < 0.2):
            lines[i] = "%sCPG_SEQ(%s %s);" % (ind, a.strip(), b.strip())
            lines[i + 1] = ""
            n += 1
            i += 2
            continue
        i += 1
    return n


def generator_wrap(lines, r):
    """Some whole functions (not main) written as macros that produce
    them, defined and invoked where the function was, as generic-container
    libraries write them (`#define CPG_FN_f() static ... { ... }`, then
    `CPG_FN_f()`): the plugin spells such an expansion out in place."""
    out, count, i = [], 0, 0
    while i < len(lines):
        line = lines[i]
        m = re.match(r"^(?:static )?[^#\s].*\b(\w+)\(.*\) \{$", line)
        end = i + 1
        while m and end < len(lines) and lines[end] != "}":
            end += 1
        body = lines[i:end + 1]
        if (not m or m.group(1) == "main" or end >= len(lines) or r.random() >= 0.25
                or any('"' in l or "'" in l or l.startswith("#") or l.endswith("\\")
                       for l in body)):
            out.append(line)
            i += 1
            continue
        name = m.group(1)
        body = [l.split("//")[0].rstrip() for l in body]
        out.append("#define CPG_FN_%s() \\" % name)
        out.extend(l + " \\" for l in body[:-1])
        out.append(body[-1])
        # One line per line of the definition: the program's later lines
        # keep their numbers.
        out.append("CPG_FN_%s()" % name + "\n" * (len(body) - 1))
        count += 1
        i = end + 1
    return "\n".join(out).split("\n"), count


def generate_files(seed):
    """The program of `seed` as {file name: text}, and its facts: prog.c,
    and for two-file programs ctor.c."""
    g = Gen(seed)
    src, facts = g.generate()
    src, n = macro_wrap(src, seed)
    facts["macro_rewrites"] = n
    files = {"prog.c": src}
    ctor = g.ctor_file()
    if ctor:
        files["ctor.c"] = ctor
    return files, facts


def generate(seed):
    """prog.c of `seed` and its facts (see generate_files)."""
    files, facts = generate_files(seed)
    return files["prog.c"], facts


if __name__ == "__main__":
    import sys
    sys.stdout.write(generate(int(sys.argv[1]) if len(sys.argv) > 1 else 1)[0])


# -- multi-threaded mode (run.py --threads N) ----------------------------------
#
# The program of a seed, run by N threads at once, each on a heap of its own:
# file t<i>.c is the whole program with its main renamed cpg_main_<i> (its
# loops polled with cp_safepoint(), as the plugin polls main's), its PRNG
# seeded differently and its printf going to thread i's buffer; its
# globals are static, so every thread has its own pools, arrays, counters
# and PRNG (the types are the same text in every file, as the plugin
# requires).  main.c starts the threads (pthread_create, which plugin-built
# code links to cp_thread_create), joins them in a native region, then
# prints each thread's output in thread order and exits with the first
# non-zero status.  Before its final digest each thread waits for the
# others in a spin loop (a spin barrier), which the plugin polls, or in
# the barrier of barrier.c, a file without compact types that checked code
# calls out of rewritten code: the threads done first wait while the
# others may switch.  The output
# depends on the seed and N only.

THREADED_MAIN = r'''#include <compactptr.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { N = %(n)d };
%(decls)s
static int (*const mains[N])(void) = {%(mains)s};
static char *out[N];
static size_t len[N], cap[N];
static int status[N];
int cpg_arrived; /* the threads' spin barrier (t<i>.c) */

int cpg_printf(int t, const char *fmt, ...) {
  char buf[256];
  va_list ap;
  int n;
  va_start(ap, fmt);
  n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (n < 0 || (size_t)n >= sizeof buf)
    abort();
  if (len[t] + (size_t)n > cap[t]) {
    cap[t] = 2 * cap[t] + (size_t)n + 256;
    out[t] = realloc(out[t], cap[t]);
    if (!out[t])
      exit(3);
  }
  memcpy(out[t] + len[t], buf, (size_t)n);
  len[t] += (size_t)n;
  return n;
}

static void *run(void *arg) {
  int t = (int)(long)arg;
  status[t] = mains[t]();
  return NULL;
}

int main(void) {
  pthread_t th[N];
  int t;
  for (t = 0; t < N; t++) {
    if (pthread_create(&th[t], NULL, run, (void *)(long)t) != 0)
      return 5;
  }
  for (t = 0; t < N; t++) {
    CP_NATIVE(pthread_join(th[t], NULL));
  }
  for (t = 0; t < N; t++) {
    printf("== thread %%d\n", t);
    fwrite(out[t], 1, len[t], stdout);
  }
  for (t = 0; t < N; t++) {
    if (status[t])
      return status[t];
  }
  return 0;
}
'''


# The barrier's forms: a busy spin on an atomic builtin, one that yields,
# and a call to a barrier of a file of its own (barrier.c, no compact
# type): the threads done first block in its pthread_cond_wait, called out
# of rewritten code, while the others may switch.
SPIN_BARRIER = [
    "  { extern int cpg_arrived; __atomic_fetch_add(&cpg_arrived, 1, __ATOMIC_SEQ_CST);\n"
    "    while (__atomic_load_n(&cpg_arrived, __ATOMIC_ACQUIRE) < %(n)d) ; }\n",
    "  { extern int cpg_arrived; extern int sched_yield(void);\n"
    "    __atomic_fetch_add(&cpg_arrived, 1, __ATOMIC_SEQ_CST);\n"
    "    while (__atomic_load_n(&cpg_arrived, __ATOMIC_ACQUIRE) < %(n)d) sched_yield(); }\n",
    "  { extern void cpg_barrier_wait(int); cpg_barrier_wait(%(n)d); }\n",
]

BARRIER_FILE = r'''/* A barrier of a file of its own: no compact type here. */
#include <pthread.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static int arrived;

void cpg_barrier_wait(int n) {
  pthread_mutex_lock(&mu);
  if (++arrived == n)
    pthread_cond_broadcast(&cv);
  while (arrived < n)
    pthread_cond_wait(&cv, &mu);
  pthread_mutex_unlock(&mu);
}
'''


def thread_file(seed, i, src, nthreads, before_final, between_steps=None):
    """Thread (or task) i's copy of a program of `seed` (see above): its
    main renamed cpg_main_<i> and its loops polled by hand, its printf
    going to buffer i (cpg_printf), before_final put before the final
    digest, between_steps (a statement, or None) at the start of every
    iteration of the loop that runs the steps, its PRNG seeded for i, and
    the names it shares with its ctor.c (c<i>.c) made its own."""
    lines = src.split("\n")
    last_include = max(k for k, l in enumerate(lines) if l.startswith("#include"))
    lines.insert(last_include + 1,
                 "int cpg_printf(int, const char *, ...);\n"
                 "#define printf(...) cpg_printf(%d, __VA_ARGS__)" % i)
    text = "\n".join(lines)
    text, n = re.subn(r"^int main\(void\) \{$", "int cpg_main_%d(void) {" % i,
                      text, count=1, flags=re.M)
    assert n == 1, "no main in the generated program"
    # main's loops are polled by the plugin; cpg_main_<i>'s by hand
    head, sep, body = text.partition("int cpg_main_%d(void) {" % i)
    body = re.sub(r"^(\s*for \(.*\) \{)$", r"\1 cp_safepoint();", body,
                  flags=re.M)
    if between_steps:
        body, n = re.subn(r"^(    for \(l0 = 0; l0 < \d+u; l0\+\+\) \{ cp_safepoint\(\);)$",
                          r"\1 " + between_steps.replace("\\", "\\\\"), body,
                          count=1, flags=re.M)
        assert n == 1, "no loop over the steps in the generated program"
    if before_final:
        body, n = re.subn(r'^(  printf\("final )', before_final.replace("\\", "\\\\") + r"\1",
                          body, count=1, flags=re.M)
        assert n == 1, "no final digest in the generated program"
    text = head + sep + body
    # each thread's file is its own translation unit: the globals with
    # external linkage get names of their own
    text = rename_shared(text, i)
    rs = random.Random(seed * 1000003 + i).randrange(1, 1 << 63)
    text, n = re.subn(r"^static unsigned long long rs = \d+ULL;",
                      "static unsigned long long rs = %dULL;" % rs,
                      text, count=1, flags=re.M)
    assert n == 1, "no PRNG state in the generated program"
    return text


def rename_shared(text, i):
    """Thread i's names for a program's globals of external linkage: the
    forward-declared global values and what prog.c shares with ctor.c."""
    text = re.sub(r"\bfc(\d+)\b", r"fc\1_t%d" % i, text)
    return re.sub(r"\b(cpg_(?:new|cons)\d+|cpg_allocs|cpg_serial)\b", r"\1_t%d" % i, text)


def generate_threaded(seed, nthreads):
    """The program of `seed` run by `nthreads` threads, each on its own heap
    (see above): returns ({file name: text}, facts)."""
    prog, facts = generate_files(seed)
    files = {}
    for i in range(nthreads):
        files["t%d.c" % i] = thread_file(
            seed, i, prog["prog.c"], nthreads,
            # a spin barrier before the final digest: the threads done
            # first wait in a spin loop (which the plugin polls) while the
            # others still allocate and may switch
            SPIN_BARRIER[seed % len(SPIN_BARRIER)] % {"n": nthreads})
        if "ctor.c" in prog:
            files["c%d.c" % i] = rename_shared(prog["ctor.c"], i)
    files["barrier.c"] = BARRIER_FILE
    files["main.c"] = THREADED_MAIN % {
        "n": nthreads,
        "decls": "\n".join("int cpg_main_%d(void);" % i for i in range(nthreads)),
        "mains": ", ".join("cpg_main_%d" % i for i in range(nthreads)),
    }
    facts = dict(facts)
    facts["threads"] = nthreads
    facts["nopoll"] = False  # the thread mains poll by hand (above)
    facts["initial_nodes"] *= nthreads
    facts["initial_bytes"] *= nthreads
    return files, facts


# -- library threads (run.py --library-threads N) -------------------------------
#
# The program of a seed run as N tasks (t<i>.c, as above, each ending in a
# task function `void cpg_task_<i>(void *status)`, an entry of its file)
# by the threads of a library: libpool.c is built without the plugin and
# without compactptr.h, as the thread pool or event library of another
# project is, so its threads come from libc's pthread_create and the
# runtime never met them when they first call a task (it counts them
# while they are inside, and the switch waits for them).  Chosen by the
# seed (a PRNG of its own):
#   spawn: one thread per task, which runs it and exits; joined by the
#          library, or detached and counted down on a condition variable;
#          the tasks all run at once and wait for each other before their
#          final digest (a spin barrier, or the library's barrier);
#   queue: a pool of 1..N workers (mutex, condition variables, a task
#          queue) running several tasks each, main waiting for them on the
#          pool's condition variable, half of the time running queued
#          tasks itself while it waits (a known thread calling an entry
#          back out of its own call out).
# main.c hands the tasks out and waits in the library: in three cases of
# four main keeps a compact record of every task it handed out (its file
# is rewritten: the wait is a call out, the records are roots across it),
# in the others main.c has no compact type and waits in CP_NATIVE(...) or
# plainly (its file is rewritten as any main's: the wait is a call out).
# The tasks' printf is the library's log (cpg_printf, a call into the
# native file), and in half of the programs the tasks also call back into
# the library between their steps and before their first allocation
# (cpg_lib_yield: a lock of its own and sched_yield).  Main prints the outputs in task order: the output depends
# on the seed and N only.

LIBRARY_POOL = r'''/* generated by test/differential/cpgen.py: a library built without the
 * plugin and without compactptr.h (a thread pool, an event library): its
 * threads come from libc's pthread_create, and the runtime has never met
 * them when they first call a task of a rewritten file. */
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAXT = 64 };

/* The tasks' log: a buffer per task, written out in task order. */
static char *out[MAXT];
static size_t len[MAXT], cap[MAXT];

int cpg_printf(int t, const char *fmt, ...) {
  char buf[256];
  va_list ap;
  int n;
  va_start(ap, fmt);
  n = vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  if (t < 0 || t >= MAXT || n < 0 || (size_t)n >= sizeof buf)
    abort();
  if (len[t] + (size_t)n > cap[t]) {
    cap[t] = 2 * cap[t] + (size_t)n + 256;
    out[t] = realloc(out[t], cap[t]);
    if (!out[t])
      exit(3);
  }
  memcpy(out[t] + len[t], buf, (size_t)n);
  len[t] += (size_t)n;
  return n;
}

void cpg_lib_flush(int t) {
  if (len[t])
    fwrite(out[t], 1, len[t], stdout);
  free(out[t]);
  out[t] = NULL;
  len[t] = cap[t] = 0;
}

/* Called back by the tasks between their steps. */
static pthread_mutex_t tick_mu = PTHREAD_MUTEX_INITIALIZER;
static unsigned long ticks;

void cpg_lib_yield(int t, unsigned n) {
  pthread_mutex_lock(&tick_mu);
  ticks += n + (unsigned)t;
  pthread_mutex_unlock(&tick_mu);
  if ((n + (unsigned)t) % 8u == 0)
    sched_yield();
}

/* A barrier, for tasks that all run at once. */
static pthread_mutex_t bar_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t bar_cv = PTHREAD_COND_INITIALIZER;
static int arrived;

void cpg_barrier_wait(int n) {
  pthread_mutex_lock(&bar_mu);
  if (++arrived == n)
    pthread_cond_broadcast(&bar_cv);
  while (arrived < n)
    pthread_cond_wait(&bar_cv, &bar_mu);
  pthread_mutex_unlock(&bar_mu);
}

/* A thread per task, which exits after it: joined, or detached and
 * counted down. */
struct one {
  void (*fn)(void *);
  void *arg;
  int detached;
};
static pthread_mutex_t sp_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sp_cv = PTHREAD_COND_INITIALIZER;
static int sp_running, sp_n;
static pthread_t sp_tids[MAXT];

static void *one_main(void *a) {
  struct one o = *(struct one *)a;
  free(a);
  o.fn(o.arg);
  if (o.detached) {
    pthread_mutex_lock(&sp_mu);
    if (--sp_running == 0)
      pthread_cond_broadcast(&sp_cv);
    pthread_mutex_unlock(&sp_mu);
  }
  return NULL;
}

void cpg_lib_spawn(void (*fn)(void *), void *arg, int detached) {
  struct one *o = malloc(sizeof *o);
  pthread_t th;
  if (!o || sp_n >= MAXT)
    exit(3);
  o->fn = fn;
  o->arg = arg;
  o->detached = detached;
  pthread_mutex_lock(&sp_mu);
  sp_running += detached;
  pthread_mutex_unlock(&sp_mu);
  if (pthread_create(&th, NULL, one_main, o) != 0)
    exit(5);
  if (detached)
    pthread_detach(th);
  else
    sp_tids[sp_n++] = th;
}

void cpg_lib_wait_spawned(void) {
  int i;
  pthread_mutex_lock(&sp_mu);
  while (sp_running)
    pthread_cond_wait(&sp_cv, &sp_mu);
  pthread_mutex_unlock(&sp_mu);
  for (i = 0; i < sp_n; i++)
    pthread_join(sp_tids[i], NULL);
  sp_n = 0;
}

/* A pool: workers wait for tasks on a queue. */
struct qtask {
  void (*fn)(void *);
  void *arg;
  struct qtask *next;
};
struct cpg_pool {
  pthread_mutex_t mu;
  pthread_cond_t work, idle;
  struct qtask *head, *tail;
  int active, stop, n;
  pthread_t tids[MAXT];
};

/* The next task, counted active; p->mu held. */
static struct qtask *take(struct cpg_pool *p) {
  struct qtask *t = p->head;
  p->head = t->next;
  if (!p->head)
    p->tail = NULL;
  p->active++;
  return t;
}

/* Runs t without the lock; p->mu held before and after. */
static void run(struct cpg_pool *p, struct qtask *t) {
  pthread_mutex_unlock(&p->mu);
  t->fn(t->arg);
  free(t);
  pthread_mutex_lock(&p->mu);
  if (--p->active == 0 && !p->head)
    pthread_cond_broadcast(&p->idle);
}

static void *worker(void *a) {
  struct cpg_pool *p = a;
  pthread_mutex_lock(&p->mu);
  for (;;) {
    while (!p->head && !p->stop)
      pthread_cond_wait(&p->work, &p->mu);
    if (!p->head)
      break;
    run(p, take(p));
  }
  pthread_mutex_unlock(&p->mu);
  return NULL;
}

struct cpg_pool *cpg_pool_start(int n) {
  struct cpg_pool *p = calloc(1, sizeof *p);
  int i;
  if (!p || n < 1 || n > MAXT)
    exit(3);
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->work, NULL);
  pthread_cond_init(&p->idle, NULL);
  p->n = n;
  for (i = 0; i < n; i++)
    if (pthread_create(&p->tids[i], NULL, worker, p) != 0)
      exit(5);
  return p;
}

void cpg_pool_submit(struct cpg_pool *p, void (*fn)(void *), void *arg) {
  struct qtask *t = malloc(sizeof *t);
  if (!t)
    exit(3);
  t->fn = fn;
  t->arg = arg;
  t->next = NULL;
  pthread_mutex_lock(&p->mu);
  if (p->tail)
    p->tail->next = t;
  else
    p->head = t;
  p->tail = t;
  pthread_cond_signal(&p->work);
  pthread_mutex_unlock(&p->mu);
}

/* Until every task submitted has run; with help, the caller runs queued
 * tasks itself meanwhile. */
void cpg_pool_wait(struct cpg_pool *p, int help) {
  pthread_mutex_lock(&p->mu);
  for (;;) {
    if (help && p->head)
      run(p, take(p));
    else if (p->head || p->active)
      pthread_cond_wait(&p->idle, &p->mu);
    else
      break;
  }
  pthread_mutex_unlock(&p->mu);
}

void cpg_pool_stop(struct cpg_pool *p) {
  int i;
  pthread_mutex_lock(&p->mu);
  p->stop = 1;
  pthread_cond_broadcast(&p->work);
  pthread_mutex_unlock(&p->mu);
  for (i = 0; i < p->n; i++)
    pthread_join(p->tids[i], NULL);
  pthread_mutex_destroy(&p->mu);
  pthread_cond_destroy(&p->work);
  pthread_cond_destroy(&p->idle);
  free(p);
}
'''

LIBRARY_MAIN = r'''/* generated by test/differential/cpgen.py, seed %(seed)d: %(what)s */
#include <compactptr.h>
#include <stdio.h>
#include <stdlib.h>

enum { N = %(n)d };
%(decls)s
static void (*const tasks[N])(void *) = {%(tasks)s};
static int status[N];
int cpg_arrived; /* the tasks' spin barrier (t<i>.c) */

/* libpool.c: built without the plugin */
struct cpg_pool;
struct cpg_pool *cpg_pool_start(int workers);
void cpg_pool_submit(struct cpg_pool *p, void (*fn)(void *), void *arg);
void cpg_pool_wait(struct cpg_pool *p, int help);
void cpg_pool_stop(struct cpg_pool *p);
void cpg_lib_spawn(void (*fn)(void *), void *arg, int detached);
void cpg_lib_wait_spawned(void);
void cpg_lib_flush(int t);
%(body)s
'''

# main with a compact record of every task handed out, live across the
# wait (its file is rewritten: the wait is a call out)
LIBRARY_MAIN_RECORDS = r'''
struct CP_COMPACT cpg_job {
  struct cpg_job *next;
  int t;
};

int main(void) {
  struct cpg_job *jobs = NULL, *j;
  int t;
%(start)s  for (t = N - 1; t >= 0; t--) {
    j = malloc(sizeof *j);
    if (!j)
      return 3;
    j->t = t;
    j->next = jobs;
    jobs = j;
  }
  for (j = jobs; j; j = j->next)
    %(hand)stasks[j->t], &status[j->t]%(hand_more)s);
  %(wait)s; /* a call out: the tasks run meanwhile */
%(stop)s  for (j = jobs; j; j = j->next) {
    printf("== thread %%d\n", j->t);
    cpg_lib_flush(j->t);
  }
  while (jobs) {
    j = jobs;
    jobs = j->next;
    free(j);
  }
  for (t = 0; t < N; t++) {
    if (status[t])
      return status[t];
  }
  return 0;
}'''

# main of a file without compact types: its wait in a native region
LIBRARY_MAIN_THIN = r'''
int main(void) {
  int t;
%(start)s  for (t = 0; t < N; t++)
    %(hand)stasks[t], &status[t]%(hand_more)s);
  %(wait_stmt)s
%(stop)s  for (t = 0; t < N; t++) {
    printf("== thread %%d\n", t);
    cpg_lib_flush(t);
  }
  for (t = 0; t < N; t++) {
    if (status[t])
      return status[t];
  }
  return 0;
}'''

# The barrier before the final digest of tasks that all run at once: the
# spin barriers, or the library's (a call out to the native file).
LIBRARY_BARRIER = SPIN_BARRIER[:2] + [
    "  { extern void cpg_barrier_wait(int); cpg_barrier_wait(%(n)d); }\n"]


def library_variant(seed, ntasks):
    """How the tasks of `seed` are run (a PRNG of its own): a dict with
    kind (spawn-join, spawn-detach or queue), workers, help, records,
    yields and barrier."""
    r = random.Random(seed * 7919 + 29)
    v = {"kind": r.choice(["spawn-join", "spawn-detach", "queue", "queue"])}
    v["workers"] = r.randint(1, ntasks) if v["kind"] == "queue" else ntasks
    v["help"] = v["kind"] == "queue" and r.random() < 0.5
    v["records"] = r.random() < 0.75
    v["yields"] = r.random() < 0.5
    v["barrier"] = r.randrange(len(LIBRARY_BARRIER)) if v["kind"] != "queue" else None
    return v


def generate_library(seed, ntasks):
    """The program of `seed` run as `ntasks` tasks by the threads of a
    library built without the plugin (see above): returns ({file name:
    text}, facts); facts["native_files"] names the files to build without
    the plugin."""
    prog, facts = generate_files(seed)
    v = library_variant(seed, ntasks)
    files = {}
    for i in range(ntasks):
        text = thread_file(
            seed, i, prog["prog.c"], ntasks,
            LIBRARY_BARRIER[v["barrier"]] % {"n": ntasks} if v["barrier"] is not None else None,
            "cpg_lib_yield(%d, r * 64u + l0);" % i if v["yields"] else None)
        if v["yields"]:
            last_include = max(k for k, l in enumerate(text.split("\n")) if l.startswith("#include"))
            ls = text.split("\n")
            ls.insert(last_include + 1, "void cpg_lib_yield(int, unsigned); /* libpool.c */")
            text = "\n".join(ls)
        text += ("/* a task of the library's threads (libpool.c) */\n"
                 "void cpg_task_%d(void *status) {\n" % i)
        if v["yields"]:
            # before the task allocates: on a thread the runtime has not
            # met yet, a call out of an entry it is counted inside
            text += "  cpg_lib_yield(%d, 0u);\n" % i
        text += ("  *(int *)status = cpg_main_%d();\n"
                 "}\n" % i)
        files["t%d.c" % i] = text
        if "ctor.c" in prog:
            files["c%d.c" % i] = rename_shared(prog["ctor.c"], i)
    files["libpool.c"] = LIBRARY_POOL
    if v["kind"] == "queue":
        what = "%d tasks run by a pool of %d thread%s%s" % (
            ntasks, v["workers"], "s" if v["workers"] > 1 else "",
            ", main helping while it waits" if v["help"] else "")
        parts = {"start": "  struct cpg_pool *p = cpg_pool_start(%d);\n" % v["workers"],
                 "hand": "cpg_pool_submit(p, ", "hand_more": "",
                 "wait": "cpg_pool_wait(p, %d)" % v["help"],
                 "stop": "  cpg_pool_stop(p);\n"}
    else:
        what = "%d tasks, one thread each, %s" % (
            ntasks, "joined" if v["kind"] == "spawn-join" else "detached")
        parts = {"start": "", "hand": "cpg_lib_spawn(", "hand_more": ", %d" % (v["kind"] == "spawn-detach"),
                 "wait": "cpg_lib_wait_spawned()", "stop": ""}
    # A main without compact types waits in CP_NATIVE(...), or, where the
    # tasks yield (no draw of its own), plainly: its file is rewritten all
    # the same, and the wait is a call out.
    parts["wait_stmt"] = ("%s;" if v["yields"] else "CP_NATIVE(%s);") % parts["wait"]
    what += (", main keeping a compact record of each" if v["records"] else
             ", main in a file without compact types waiting %s" %
             ("plainly" if v["yields"] else "in CP_NATIVE"))
    body = (LIBRARY_MAIN_RECORDS if v["records"] else LIBRARY_MAIN_THIN) % parts
    files["main.c"] = LIBRARY_MAIN % {
        "seed": seed, "what": what, "n": ntasks,
        "decls": "\n".join("void cpg_task_%d(void *);" % i for i in range(ntasks)),
        "tasks": ", ".join("cpg_task_%d" % i for i in range(ntasks)),
        "body": body}
    facts = dict(facts)
    facts["threads"] = ntasks
    facts["library"] = "%s%s%s%s" % (
        v["kind"], " workers=%d" % v["workers"] if v["kind"] == "queue" else "",
        " help" if v["help"] else "", " yields" if v["yields"] else "")
    facts["records"] = v["records"]
    facts["native_files"] = ["libpool.c"]
    facts["nopoll"] = False  # the task mains poll by hand (above)
    facts["initial_nodes"] *= ntasks
    facts["initial_bytes"] *= ntasks
    return files, facts
