#!/usr/bin/env python3
"""Instruction counts (callgrind) of compact-only against switchable builds.

Switchable runs without an arena limit, so it stays in compact mode: the
ratio is what switchability costs a program that never switches.  The
workloads run at their quick sizes, the run-test programs at the sizes of
test/switchable/programs.test; every build is `clang-19 -O2` with the
plugin.  Callgrind runs with --aspace-minaddr=0x100000000 so valgrind's own
mappings stay out of the low range and the arena goes where it does
natively.

  python3 bench/instructions.py --build-dir build [--only a,b] [--jobs 2]
  python3 bench/instructions.py --variants compact-only,switchable,NAME=HEADER_DIR

A variant NAME=DIR builds compact-only with DIR searched first for
headers (a changed compactptr.h, e.g. without the encode check).
Prints one row per program (millions of instructions and the ratio of the
second variant to the first) and the geomeans."""
import argparse
import concurrent.futures
import math
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
WL = os.path.join(HERE, "workloads")
PR = os.path.join(ROOT, "test", "Inputs", "programs")

# name, directory, sources, arguments
PROGRAMS = [
    ("bintree", WL, ["bintree.c"], ["18", "20"]),
    ("bitonic", WL, ["bitonic.c"], ["16", "4"]),
    ("quadtree", WL, ["quadtree.c"], ["14", "10"]),
    ("tsp", WL, ["tsp.c"], ["50000", "10"]),
    ("list-seq", WL, ["list.c"], ["200000", "seq", "20"]),
    ("list-shuffled", WL, ["list.c"], ["100000", "shuffled", "5"]),
    ("hashtable", WL, ["hashtable.c"], ["100000", "4"]),
    ("rbtree", WL, ["rbtree.c"], ["50000", "3"]),
    ("graph", WL, ["graph.c"], ["15000", "3", "6"]),
    ("sortedlist", WL, ["sortedlist.c"], ["1000", "20000"]),
    ("lru", WL, ["lru.c"], ["8192", "2000000"]),
    ("exprtree", WL, ["exprtree.c"], ["4000", "300"]),
    ("extsum", WL, ["extsum/main.c", "extsum/sum.c"], ["21", "100"]),
    ("programs/slist", PR, ["slist.c"], ["200000"]),
    ("programs/dlist", PR, ["dlist.c"], ["50000"]),
    ("programs/bst", PR, ["bst.c"], ["200000"]),
    ("programs/ntree", PR, ["ntree.c"], ["100000"]),
    ("programs/hashtab", PR, ["hashtab.c"], ["200000"]),
    ("programs/graph", PR, ["graph.c"], ["6000"]),
    ("programs/churn", PR, ["churn.c"], ["100000"]),
    ("programs/byvalue", PR, ["byvalue.c"], ["200000"]),
    ("programs/compound", PR, ["compound.c"], ["3000"]),
    ("programs/heaparray", PR, ["heaparray.c"], ["4000"]),
    ("programs/globals", PR, ["globals.c"], ["50000"]),
    ("programs/knr", PR, ["knr.c"], ["200000"]),
    ("programs/multifile", PR, ["multifile/main.c", "multifile/shapes.c"],
     ["50000"]),
    ("programs/safepoint_calls", PR, ["safepoint_calls.c"], ["50000"]),
    ("programs/safepoint_main", PR, ["safepoint_main.c"], ["50000"]),
]


def variant(spec):
    if "=" in spec:
        name, hdr = spec.split("=", 1)
        return name, "compact-only", os.path.abspath(hdr)
    return spec, spec, None


def build_and_count(bd, cc, work, prog, var):
    name, d, srcs, argv = prog
    vname, mode, hdr = var
    exe = os.path.join(work, name.replace("/", "_") + "." + vname)
    incs = ([] if hdr is None else ["-I" + hdr]) + [
        "-I" + os.path.join(ROOT, "include"), "-I" + os.path.join(bd, "include")]
    cmd = [cc, "-O2"] + incs + [
        "-fplugin=" + os.path.join(bd, "passes", "compactptr.so"),
        "-fplugin-arg-compactptr-mode=" + mode] + [
        os.path.join(d, s) for s in srcs] + [
        "-o", exe, os.path.join(bd, "runtime", "libcompactptr.a"), "-lpthread"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    out = exe + ".cg"
    r = subprocess.run(["valgrind", "--tool=callgrind",
                        "--aspace-minaddr=0x100000000",
                        "--callgrind-out-file=" + out, exe] + argv,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                       text=True, env=dict(os.environ, COMPACTPTR_ARENA_LIMIT=""))
    m = re.search(r"Collected : (\d+)", r.stderr)
    if r.returncode != 0 or not m:
        sys.exit("%s %s failed:\n%s" % (name, vname, r.stderr[-2000:]))
    return int(m.group(1))


def main():
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--build-dir", default=os.path.join(ROOT, "build"))
    p.add_argument("--cc", default="clang-19")
    p.add_argument("--only", help="comma-separated names")
    p.add_argument("--variants", default="compact-only,switchable")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--work-dir")
    a = p.parse_args()
    bd = os.path.abspath(a.build_dir)
    work = a.work_dir or tempfile.mkdtemp(prefix="cp-instr-")
    os.makedirs(work, exist_ok=True)
    vars_ = [variant(v) for v in a.variants.split(",")]
    progs = [q for q in PROGRAMS
             if not a.only or q[0] in a.only.split(",")]
    with concurrent.futures.ThreadPoolExecutor(a.jobs) as ex:
        futs = {(q[0], v[0]): ex.submit(build_and_count, bd, a.cc, work, q, v)
                for q in progs for v in vars_}
        res = {k: f.result() for k, f in futs.items()}
    logs = [[] for _ in vars_]
    print("| program | " + " | ".join(v[0] for v in vars_) + " |")
    print("|---" * (len(vars_) + 1) + "|")
    for q in progs:
        base = res[(q[0], vars_[0][0])]
        cells = ["%.1f" % (base / 1e6)]
        for i, v in enumerate(vars_[1:], 1):
            n = res[(q[0], v[0])]
            logs[i].append(math.log(n / base))
            cells.append("%.1f (%.3f)" % (n / 1e6, n / base))
        print("| %s | %s |" % (q[0], " | ".join(cells)))
    for i, v in enumerate(vars_[1:], 1):
        g = math.exp(sum(logs[i]) / len(logs[i]))
        print("geomean %s / %s: %.4f (speed %.3fx)" % (v[0], vars_[0][0], g, 1 / g))


if __name__ == "__main__":
    main()
