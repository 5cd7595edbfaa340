# compactptr's gdb extension (docs/debugging.md).
#
# In compact mode a heap object of a compact type is stored in its compact
# layout: fields reordered, 32-bit handles instead of pointers.  gdb reads
# memory through the C definition, so `p *root` would show garbage.  This
# extension reads the type descriptors the plugin generated from the
# inferior and shows such objects field by field, handles decoded:
#
#   p *root                       a pretty-printer for every compact type
#   p $cp("root->right->key")     follows compact pointers (->, ., [i])
#   p *$cp("root->left")          the object it names, decoded
#   cp-print root->right          the same as a command
#   cp-info                       mode, arena, and the descriptors found
#
# After the switch every object is in its wide (C) layout, which gdb reads
# by itself; the printer then steps aside and `$cp` follows plain pointers.
#
# Loaded automatically from the .debug_gdb_scripts section of the runtime
# (gdb asks for `set auto-load safe-path`), or by hand:
#   (gdb) source <prefix>/share/compactptr/gdb/compactptr.py
#
# The descriptors are read as raw memory (layout version CP_ABI_VERSION 5,
# include/compactptr.h), so neither the runtime nor the program needs
# debug information for them; the program needs -g for its own types.
import re
import struct

import gdb
import gdb.printing

ABI_VERSION = 5
# A slot-pointer field (FIELD_SLOT) and an untyped address field
# (FIELD_ADDRESS) are native pointers in both layouts: read as plain
# memory, as bytes are.
FIELD_BYTES, FIELD_HANDLE, FIELD_STRUCT, FIELD_FLEX, FIELD_SLOT, FIELD_ADDRESS = 0, 1, 2, 3, 4, 5
# cp_type_desc_t: abi, granule_shift, build, name, compact_size,
# compact_align, wide_size, wide_align, nfields, fields, module, rt.
TYPE_DESC = struct.Struct("<III4xQIIIII4xQQQ")
# cp_field_desc_t: name, compact_offset, wide_offset, kind, count, size, target.
FIELD_DESC = struct.Struct("<QIIIII4xQ")
# cp_module_t: types_begin, types_end, roots_begin, roots_end, casts_begin,
# casts_end, next, registered.
MODULE = struct.Struct("<QQQQQQQI")


class Field(object):
    def __init__(self, name, offset, wide_offset, kind, count, size, target):
        self.name, self.offset, self.wide_offset = name, offset, wide_offset
        self.kind, self.count, self.size, self.target = kind, count, size, target


class TypeDesc(object):
    def __init__(self, name, shift, compact_size, wide_size, fields):
        self.name, self.shift = name, shift
        self.compact_size, self.wide_size = compact_size, wide_size
        self.fields = fields  # name -> Field


def _read(addr, n):
    return bytes(gdb.selected_inferior().read_memory(addr, n))


def _cstring(addr, limit=256):
    if not addr:
        return None
    data = _read(addr, limit)
    return data.split(b"\0", 1)[0].decode("utf-8", "replace")


def _symbol_value(expr):
    """An integer from the inferior, or None when the symbol is missing."""
    try:
        return int(gdb.parse_and_eval(expr))
    except gdb.error:
        return None


class Runtime(object):
    """What the extension knows of the running program."""

    def __init__(self):
        self.descs = None
        self.key = None

    def _descriptor_addresses(self):
        seen = []
        m = _symbol_value("(unsigned long)cp__modules")
        while m:
            begin, end, _, _, _, _, nxt, _ = MODULE.unpack(_read(m, MODULE.size))
            for p in range(begin, end, 8):
                seen.append(struct.unpack("<Q", _read(p, 8))[0])
            m = nxt
        if not seen:  # before the runtime registered its first module
            begin = _symbol_value("(unsigned long)&__start_compactptr_types")
            end = _symbol_value("(unsigned long)&__stop_compactptr_types")
            if begin and end:
                for p in range(begin, end, 8):
                    seen.append(struct.unpack("<Q", _read(p, 8))[0])
        return seen

    def descriptors(self):
        inf = gdb.selected_inferior()
        key = (inf.num, inf.pid)
        if self.descs is not None and self.key == key:
            return self.descs
        descs = {}
        for addr in self._descriptor_addresses():
            if not addr:
                continue
            (abi, shift, _build, name_p, csize, _calign, wsize, _walign,
             nfields, fields_p, _module, _rt) = TYPE_DESC.unpack(_read(addr, TYPE_DESC.size))
            if abi != ABI_VERSION:
                raise gdb.GdbError("compactptr: descriptor at 0x%x has layout "
                                   "version %d; this extension reads %d"
                                   % (addr, abi, ABI_VERSION))
            name = _cstring(name_p)
            if name in descs:
                continue
            fields = {}
            for i in range(nfields):
                fname_p, coff, woff, kind, count, size, target = FIELD_DESC.unpack(
                    _read(fields_p + i * FIELD_DESC.size, FIELD_DESC.size))
                tname = None
                if target:
                    tname = _cstring(struct.unpack("<Q", _read(target + 16, 8))[0])
                fields[_cstring(fname_p)] = Field(_cstring(fname_p), coff, woff,
                                                  kind, count, size, tname)
            descs[name] = TypeDesc(name, shift, csize, wsize, fields)
        if descs:  # none yet: the program has not started, ask again later
            self.descs, self.key = descs, key
        return descs

    def compact_mode(self):
        wide = _symbol_value("(int)cp__wide")
        return wide == 0

    def arena(self):
        """(start, end) of the compact arena, or None in wide mode."""
        if not self.compact_mode():
            return None
        start = _symbol_value("(unsigned long)cp__debug_arena_start")
        end = _symbol_value("(unsigned long)cp__debug_arena_end")
        if not start or not end or not self.descriptors():
            return None
        return start, end

    def decode(self, handle):
        # Handles are zero-based: the address divided by the granule.
        shift = next(iter(self.descriptors().values())).shift
        return handle << shift

    def in_arena(self, addr):
        a = self.arena()
        return a is not None and a[0] <= addr < a[1]

    def desc_of(self, gdb_type):
        """The descriptor of a struct type (by tag or typedef name)."""
        descs = self.descriptors()
        t = gdb_type
        while True:
            for n in (t.name, getattr(t, "tag", None)):
                if n and n.startswith("struct "):
                    n = n[len("struct "):]
                if n in descs:
                    return descs[n]
            if t.code != gdb.TYPE_CODE_TYPEDEF:
                return None
            t = t.target()


RUNTIME = Runtime()


def bitfield_value(desc, addr, field):
    """A bit-field of the compact object at addr.  The descriptor names a
    run of bit-fields by its first one, with the bytes it spans in each
    layout; inside them every bit has the same place in both."""
    pos = field.bitpos
    for f in desc.fields.values():
        if f.kind == FIELD_BYTES and f.wide_offset * 8 <= pos < (f.wide_offset + f.size) * 8:
            bit = f.offset * 8 + pos - f.wide_offset * 8
            raw = int.from_bytes(_read(addr + bit // 8, (bit % 8 + field.bitsize + 7) // 8),
                                 "little")
            v = (raw >> (bit % 8)) & ((1 << field.bitsize) - 1)
            t = field.type.strip_typedefs()
            signed = getattr(t, "is_signed", t.code == gdb.TYPE_CODE_INT and
                             not str(t).startswith("unsigned"))
            if signed and v >> (field.bitsize - 1):
                v -= 1 << field.bitsize
            return gdb.Value(v).cast(field.type)
    raise gdb.GdbError("compactptr: '%s' has no run of bit-fields holding '%s' "
                       "in its descriptor" % (desc.name, field.name))


class HandleRun(object):
    """A flexible array member of compact pointers (value None) or of
    compact values of type `value`, elements `stride` bytes apart from
    `at`: its length is the allocation's, so it is read by index only."""

    def __init__(self, at, elem, stride, value):
        self.at, self.elem, self.stride, self.value = at, elem, stride, value

    def __getitem__(self, i):
        addr = self.at + self.stride * i
        if self.value is not None:
            return gdb.Value(addr).cast(self.value.pointer()).dereference()
        h = struct.unpack("<I", _read(addr, 4))[0]
        return gdb.Value(RUNTIME.decode(h)).cast(self.elem)

    def __str__(self):
        return "{compact %s at 0x%x: index them, $cp(\"...[i]\")}" % (
            "pointers" if self.value is None else "values", self.at)


def field_value(desc, addr, field):
    """The value of `field` of the compact object at addr (a gdb.Value),
    handles decoded into pointers of the field's C type."""
    if field.bitsize:
        return bitfield_value(desc, addr, field)
    f = desc.fields.get(field.name)
    if f is None:
        raise gdb.GdbError("compactptr: '%s' has no field '%s' in its "
                           "descriptor" % (desc.name, field.name))
    at = addr + f.offset
    if f.kind == FIELD_FLEX and f.count in (FIELD_HANDLE, FIELD_STRUCT):
        # Compact pointers or values past the object's fields, as many as
        # it was allocated with: read one by index (follow), never all.
        elem = field.type.strip_typedefs().target()
        if f.count == FIELD_HANDLE:
            return HandleRun(at, elem, 4, None)
        return HandleRun(at, elem, RUNTIME.descriptors()[f.target].compact_size,
                         elem)
    if f.kind == FIELD_HANDLE:
        handles = struct.unpack("<%dI" % f.count, _read(at, 4 * f.count))
        ptrs = [RUNTIME.decode(h) for h in handles]
        if f.count == 1 and field.type.strip_typedefs().code == gdb.TYPE_CODE_PTR:
            return gdb.Value(ptrs[0]).cast(field.type)
        elem = field.type.strip_typedefs().target()
        return ["(%s) 0x%x" % (elem, p) for p in ptrs]
    return gdb.Value(at).cast(field.type.pointer()).dereference()


class CompactObjectPrinter(object):
    """A compact object in the arena, printed in declaration order."""

    def __init__(self, val, desc):
        self.val, self.desc = val, desc

    def to_string(self):
        return None

    def children(self):
        addr = int(self.val.address)
        for field in self.val.type.strip_typedefs().fields():
            if not field.name and field.bitsize:
                continue  # an unnamed bit-field: padding
            v = field_value(self.desc, addr, field)
            if isinstance(v, list):
                v = "{" + ", ".join(v) + "}"
            elif isinstance(v, HandleRun):
                v = str(v)
            yield field.name, v

    def display_hint(self):
        return None


def lookup_printer(val):
    try:
        t = val.type.strip_typedefs()
        if t.code != gdb.TYPE_CODE_STRUCT or val.address is None:
            return None
        desc = RUNTIME.desc_of(val.type)
        if desc is None or not RUNTIME.in_arena(int(val.address)):
            return None
        return CompactObjectPrinter(val, desc)
    except gdb.error:
        return None


_STEP = re.compile(r"\s*(->|\.)\s*([A-Za-z_]\w*)|\s*\[([^\]]+)\]")


def follow(expr):
    """Evaluates a C access path over compact objects: a base expression
    followed by ->field, .field and [index] steps, each step through the
    descriptors while the object is in the arena."""
    m = re.match(r"\s*([A-Za-z_$][\w$]*(?:\s*\([^()]*\))?)", expr)
    if not m:
        raise gdb.GdbError("compactptr: cannot follow '%s'" % expr)
    cur = gdb.parse_and_eval(m.group(1))
    rest = expr[m.end():]
    while rest.strip():
        s = _STEP.match(rest)
        if not s:
            raise gdb.GdbError("compactptr: cannot follow '%s' at '%s'"
                               % (expr, rest.strip()))
        rest = rest[s.end():]
        op, name, index = s.group(1), s.group(2), s.group(3)
        if index is not None:
            cur = cur[int(gdb.parse_and_eval(index))]  # also a HandleRun's
            continue
        obj = cur.dereference() if op == "->" else cur
        t = obj.type.strip_typedefs()
        addr = int(obj.address) if obj.address is not None else None
        desc = RUNTIME.desc_of(obj.type)
        if desc is None or addr is None or not RUNTIME.in_arena(addr):
            cur = obj[name]
            continue
        field = next((f for f in t.fields() if f.name == name), None)
        if field is None:
            raise gdb.GdbError("compactptr: %s has no field '%s'" % (t, name))
        v = field_value(desc, addr, field)
        if isinstance(v, list):
            raise gdb.GdbError("compactptr: '%s' is a handle array; index it "
                               "in the path (%s[i])" % (name, name))
        cur = v
    if isinstance(cur, HandleRun):
        raise gdb.GdbError("compactptr: a flexible array member of compact "
                           "pointers or values; index it in the path (...[i])")
    return cur


class CpFunction(gdb.Function):
    """$cp("PATH"): the value of a C access path over compact objects,
    e.g. $cp("root->right->key"); $cp("root->left") is a pointer whose
    object `p *` prints decoded."""

    def __init__(self):
        super(CpFunction, self).__init__("cp")

    def invoke(self, path):
        return follow(path.string())


class CpPrint(gdb.Command):
    """cp-print PATH: print a C access path over compact objects,
    following compact pointers (root->right->key)."""

    def __init__(self):
        super(CpPrint, self).__init__("cp-print", gdb.COMMAND_DATA)

    def invoke(self, arg, from_tty):
        v = follow(arg)
        gdb.write("%s\n" % v.format_string())


class CpInfo(gdb.Command):
    """cp-info: the process's mode, its arena, and the compact types."""

    def __init__(self):
        super(CpInfo, self).__init__("cp-info", gdb.COMMAND_STATUS)

    def invoke(self, arg, from_tty):
        RUNTIME.descs = None
        a = RUNTIME.arena()
        gdb.write("mode: %s\n" % ("compact" if RUNTIME.compact_mode() else "wide"))
        if a:
            gdb.write("arena: 0x%x-0x%x\n" % a)
        for name, d in sorted(RUNTIME.descriptors().items()):
            gdb.write("type %s: compact %d bytes, wide %d bytes; fields %s\n" % (
                name, d.compact_size, d.wide_size,
                " ".join("%s@%d%s" % (f.name, f.offset,
                                      "(handle)" if f.kind == FIELD_HANDLE else "")
                         for f in sorted(d.fields.values(), key=lambda f: f.offset))))


def _invalidate(_event):
    RUNTIME.descs = None


if not getattr(gdb, "_compactptr_loaded", False):
    gdb._compactptr_loaded = True
    gdb.printing.register_pretty_printer(None, lookup_printer)
    CpFunction()
    CpPrint()
    CpInfo()
    gdb.events.new_objfile.connect(_invalidate)
    gdb.events.exited.connect(_invalidate)
