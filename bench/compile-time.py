#!/usr/bin/env python3
"""compile-time.py - compile time with and without compactptr.so, side by side.

Usage: bench/compile-time.py BUILD_DIR [-O LEVEL] [-n REPS]
                             [--baseline PLUGIN.so] FILE...

Compiles each FILE with `clang-19 -c` natively and with
-fplugin=BUILD_DIR/passes/compactptr.so, interleaved, REPS times each, and
reports per file the median CPU time (user+sys of the compiler process) and
the ratio plugin/native, then the totals.  With --baseline, a second plugin
(another branch's build) is measured in the same interleaved rounds, and
the table adds its time and the ratio plugin/baseline: two branches side by
side in one run.  CPU time, not wall time, because the build machine is
shared.
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
    ap.add_argument("--baseline", help="another compactptr.so to compare with")
    ap.add_argument("files", nargs="+")
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    inc = ["-I" + os.path.join(root, "include"), "-I" + os.path.join(a.build, "include")]
    inc += ["-I" + i for i in a.I]
    plugin = os.path.join(a.build, "passes", "compactptr.so")
    out = os.path.join(tempfile.mkdtemp(), "x.o")
    tn = tp = tb = 0.0
    if a.baseline:
        print("%-32s %9s %9s %6s %9s %6s %6s" % ("file (-O%s)" % a.O, "native s",
              "plugin s", "ratio", "base s", "ratio", "p/base"))
    else:
        print("%-40s %9s %9s %6s" % ("file (-O%s)" % a.O, "native s", "plugin s", "ratio"))
    for f in a.files:
        base = [a.cc, "-O" + a.O, "-c", f, "-o", out] + inc
        n, p, b = [], [], []
        for _ in range(a.n):
            n.append(cpu(base))
            p.append(cpu(base + ["-fplugin=" + plugin]))
            if a.baseline:
                b.append(cpu(base + ["-fplugin=" + a.baseline]))
        mn, mp = statistics.median(n), statistics.median(p)
        tn += mn
        tp += mp
        if a.baseline:
            mb = statistics.median(b)
            tb += mb
            print("%-32s %9.3f %9.3f %6.2f %9.3f %6.2f %6.2f" % (
                os.path.basename(f), mn, mp, mp / mn, mb, mb / mn, mp / mb))
        else:
            print("%-40s %9.3f %9.3f %6.2f" % (os.path.basename(f), mn, mp, mp / mn))
    if a.baseline:
        print("%-32s %9.3f %9.3f %6.2f %9.3f %6.2f %6.2f" % (
            "total", tn, tp, tp / tn, tb, tb / tn, tp / tb))
    else:
        print("%-40s %9.3f %9.3f %6.2f" % ("total", tn, tp, tp / tn))

if __name__ == "__main__":
    main()
