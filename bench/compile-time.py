#!/usr/bin/env python3
"""compile-time.py - compile time with and without compactptr.so, side by side.

Usage: bench/compile-time.py BUILD_DIR [-O LEVEL] [-n REPS] FILE...

Compiles each FILE with `clang-19 -c` natively and with
-fplugin=BUILD_DIR/passes/compactptr.so, interleaved, REPS times each, and
reports per file the median CPU time (user+sys of the compiler process) and
the ratio plugin/native, then the totals.  CPU time, not wall time, because
the build machine is shared.
"""
import argparse, os, statistics, subprocess, sys, tempfile

def cpu(cmd):
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    if status != 0:
        sys.exit("failed: " + " ".join(cmd) + "\n" + p.stderr.read().decode())
    return ru.ru_utime + ru.ru_stime

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("-O", default="2")
    ap.add_argument("-n", type=int, default=5)
    ap.add_argument("--cc", default="clang-19")
    ap.add_argument("-I", action="append", default=[])
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    inc = ["-I" + os.path.join(root, "include"), "-I" + os.path.join(a.build, "include")]
    inc += ["-I" + i for i in a.I]
    plugin = os.path.join(a.build, "passes", "compactptr.so")
    out = os.path.join(tempfile.mkdtemp(), "x.o")
    tn = tp = 0.0
    print("%-40s %9s %9s %6s" % ("file (-O%s)" % a.O, "native s", "plugin s", "ratio"))
    for f in a.files:
        base = [a.cc, "-O" + a.O, "-c", f, "-o", out] + inc
        n, p = [], []
        for _ in range(a.n):
            n.append(cpu(base))
            p.append(cpu(base + ["-fplugin=" + plugin]))
        mn, mp = statistics.median(n), statistics.median(p)
        tn += mn
        tp += mp
        print("%-40s %9.3f %9.3f %6.2f" % (os.path.basename(f), mn, mp, mp / mn))
    print("%-40s %9.3f %9.3f %6.2f" % ("total", tn, tp, tp / tn))

if __name__ == "__main__":
    main()
