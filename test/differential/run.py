#!/usr/bin/env python3
"""test/differential/run.py - randomized differential test of the plugin.

For each seed, cpgen.py writes a random C program over a few compact node
types.  The program is built natively (clang, no plugin) and with
compactptr.so, and both builds run; their stdout and exit status must be
identical.  Everything about a case follows from its seed: the program, the
optimisation level (-O0/-O1/-O2), the plugin mode and the environment:

  70%  switchable with an arena limit.  A first run without a limit
       gives the compact heap's peak (COMPACTPTR_STATS);
       COMPACTPTR_ARENA_LIMIT and COMPACTPTR_HIGH_WATER put the high-water
       mark at 0.6-0.97 times that peak for four fifths of these (mostly
       crossed while the step functions run) and at 0.1-0.6 times it for
       the rest (often while main builds the starting heap), with 320 KiB
       of arena above the mark.  A quarter of them also run with COMPACTPTR_VERIFY=1
       (the whole heap checked before and after the switch), and 15% are
       built with -DCOMPACTPTR_CHECKED_DECODE and run with
       COMPACTPTR_DEBUG=1 (every decode checked against the heap).
  10%  switchable with no limit (stays in compact mode)
  10%  compact-only
  10%  wide

With --threads N (N >= 2) each case is the same program run by N threads
at once, each on a heap of its own (cpgen.generate_threaded: one
translation unit per thread and a main that prints the threads' outputs in
thread order); the switch then stops every thread, and the output must
still be the native build's.

With --library-threads N each case is the same program run as N tasks,
each on a heap of its own, by the threads of a library
(cpgen.generate_library): libpool.c is built by clang alone, without the
plugin and without compactptr.h, and linked into both builds, so its
threads come from libc's pthread_create and the runtime has never met
them when they first call a task.  The seed picks one thread per task
(joined, or detached and counted down) or a pool of 1..N workers with a
task queue (main helping with the queue while it waits, or not), whether
main keeps compact records of the tasks across its wait in the library
(a call out) or waits in CP_NATIVE from a file without compact types, and
whether the tasks call back into the library between their steps and
before their first allocation.

In every mode a third of the programs have the constructors of some
types in a file of their own (ctor.c, or c<i>.c per thread), called from
the other file's builder loops.

A failure prints the seed, what differed and the command that reproduces
the case alone; its files (program, builds, outputs) are kept in --keep.
The run fails if fewer than --min-switched of the limited switchable cases
switched after the starting heap was built (the STATS line says after how
many allocations), so the test cannot quietly stop testing the switch in
the middle of the program's work; the same holds for the programs that
call no cp_safepoint() (half of them: there every switch runs at an
allocation or at a poll the plugin put in main's loops).  A third of the
programs call their steps under setjmp and longjmp out of some of them;
the run reports how many of their limited cases switched in the steps.
Half of them keep a visitor's context, a struct of compact type, on
main's stack and hand it to the visitor as `void *` every round.

Usage:
  run.py --build-dir BUILD [--count N] [--seed S | --seed random] [--jobs J]
         [--threads N | --library-threads N]
  run.py --build-dir BUILD --seed S --count 1 --show   # print the program
Exit status: 0 all cases agree, 1 a case failed, 2 bad usage or setup.
"""

import argparse
import concurrent.futures
import os
import re
import random
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import cpgen  # noqa: E402

RUN_TIMEOUT = 60  # seconds per run; a generated program takes well under 1 s


def case_config(seed):
    """Everything but the program text that the seed decides: optimisation
    level, plugin mode, extra flags, environment, and for limited cases the
    arena limit as a fraction of the heap's peak (see limit_for)."""
    r = random.Random(seed * 7919 + 1)
    opt = r.choice(["-O0", "-O1", "-O2"])
    x = r.random()
    env, extra, frac = {}, [], None
    if x < 0.7:
        mode = "switchable"
        # Mostly between 1.0 and 1.4 times the peak over the high-water
        # fraction: the mark is crossed late, while the step functions run;
        # sometimes far below it: the switch comes while main builds the heap.
        frac = r.uniform(0.6, 0.97) if r.random() < 0.8 else r.uniform(0.1, 0.6)
        y = r.random()
        if y < 0.25:
            env["COMPACTPTR_VERIFY"] = "1"
        elif y < 0.4:
            # every decode checked: a stale or foreign handle stops the run
            extra = ["-DCOMPACTPTR_CHECKED_DECODE"]
            env["COMPACTPTR_DEBUG"] = "1"
    elif x < 0.8:
        mode = "switchable"
    elif x < 0.9:
        mode = "compact-only"
    else:
        mode = "wide"
    env["COMPACTPTR_STATS"] = "1"
    return opt, mode, extra, env, frac


PEAK_RE = re.compile(r"(\d+) KiB peak use")
SWITCH_RE = re.compile(r"compactptr: switch to wide mode[^\n]* after (\d+) allocations")


def limit_for(peak_kib, frac, threads=1):
    """COMPACTPTR_ARENA_LIMIT and COMPACTPTR_HIGH_WATER putting the
    high-water mark at frac times the compact heap's peak with
    cpgen.HEADROOM bytes of arena above it per thread (each thread
    allocates until its next safepoint, from slabs of its own)."""
    mark = max(64, int(peak_kib * frac))
    limit = mark + threads * cpgen.HEADROOM // 1024
    return "%dK" % limit, str(max(1, 100 * mark // limit))


class Setup:
    def __init__(self, args):
        b = os.path.abspath(args.build_dir)
        self.clang = args.clang
        self.plugin = os.path.join(b, "passes", "compactptr.so")
        self.runtime = os.path.join(b, "runtime", "libcompactptr.a")
        self.incs = ["-I" + os.path.join(ROOT, "include"), "-I" + os.path.join(b, "include")]
        for f in (self.plugin, self.runtime):
            if not os.path.exists(f):
                setup_error("%s does not exist; build the compactptr-plugin and "
                            "compactptr_static targets of %s first" % (f, b))
        if not shutil.which(self.clang):
            setup_error("compiler %r not found (--clang)" % self.clang)


def setup_error(msg):
    sys.stderr.write("run.py: %s\n" % msg)
    sys.exit(2)


def run(cmd, env=None, timeout=RUN_TIMEOUT):
    e = dict(os.environ)
    for k in list(e):
        if k.startswith("COMPACTPTR_"):
            del e[k]
    e.update(env or {})
    try:
        p = subprocess.run(cmd, env=e, capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        return "timeout after %d s" % timeout, "", ""


def one_case(setup, seed, keep, threads=1, library=False):
    """Returns (seed, failure message or None, when it switched, mode, limited,
    nopoll, jumps, facts): when is None (no switch), "build" (while main
    built the starting heap) or "late"; nopoll: the program calls no
    cp_safepoint(); jumps: it recovers from errors with setjmp and
    longjmp."""
    d = tempfile.mkdtemp(prefix="cpdiff-%d-" % seed)
    try:
        return (seed,) + check_case(setup, seed, keep, d, threads, library)
    finally:
        shutil.rmtree(d, ignore_errors=True)


def check_case(setup, seed, keep, d, threads=1, library=False):
    if library:
        files, facts = cpgen.generate_library(seed, threads)
    elif threads > 1:
        files, facts = cpgen.generate_threaded(seed, threads)
    else:
        files, facts = cpgen.generate_files(seed)
    opt, mode, extra, env, frac = case_config(seed)
    srcs, objs = [], []
    for name, text in sorted(files.items()):
        path = os.path.join(d, name)
        with open(path, "w") as f:
            f.write(text)
        if name in facts.get("native_files", ()):
            objs.append(path)
        else:
            srcs.append(path)
    native, plugged = os.path.join(d, "native"), os.path.join(d, "plugin")
    flags = [opt, "-Wall", "-Wno-unused-function"] + setup.incs
    if mode == "compact-only":
        flags.append("-DCPG_BARE_SEQ")  # cpgen's CPG_SEQ unwrapped
    what, when = None, None
    # a library's files: built once, by clang alone (no plugin, nor the
    # project's include directories), and linked into both builds
    for i, path in enumerate(objs):
        objs[i] = os.path.splitext(path)[0] + ".o"
        rc, _, err = run([setup.clang, opt, "-Wall", "-Werror", "-c", path, "-o", objs[i]])
        if rc != 0:
            what = "the library %s failed to build:\n%s" % (os.path.basename(path), err)
            break
    if not what:
        rc, _, err = run([setup.clang] + flags + srcs + objs + ["-lpthread", "-o", native])
        if rc != 0:
            what = "the native build failed:\n" + err
    if not what:
        rc, _, err = run([setup.clang] + flags + extra + [
            "-Werror", "-fplugin=" + setup.plugin,
            # the cleanup shape's refills allocate: warned, on purpose
            "-fplugin-arg-compactptr-Wno-compactptr-callback-safepoint",
            # the allocation hook (malloc) is warned for other hooks, on purpose
            "-fplugin-arg-compactptr-Wno-compactptr-foreign-object",
            "-fplugin-arg-compactptr-mode=" + mode] + srcs + objs + [setup.runtime,
            "-lpthread", "-o", plugged])
        if rc != 0:
            what = "the plugin build failed (exit %s):\n%s" % (rc, err)
    if not what and frac is not None:
        # the compact heap's peak, from a run with no limit
        rc, _, err = run([plugged], {"COMPACTPTR_STATS": "1"})
        m = PEAK_RE.search(err)
        if rc != 0 or not m:
            what = "the plugin build without a limit exited %s:\n%s" % (rc, err[-2000:])
        else:
            env["COMPACTPTR_ARENA_LIMIT"], env["COMPACTPTR_HIGH_WATER"] = limit_for(
                int(m.group(1)), frac, threads)
    if not what:
        nrc, nout, nerr = run([native])
        prc, pout, perr = run([plugged], env)
        m = SWITCH_RE.search(perr)
        if m:
            when = "build" if int(m.group(1)) <= facts["initial_nodes"] else "late"
        if nrc != 0:
            what = "the native build exited %s:\n%s" % (nrc, nerr[-2000:])
        elif prc != nrc or pout != nout:
            what = "the plugin build (exit %s) differs from native (exit %s)%s" % (
                prc, nrc, "; stderr:\n" + perr[-3000:] if perr else "")
            with open(os.path.join(d, "native.out"), "w") as f:
                f.write(nout)
            with open(os.path.join(d, "plugin.out"), "w") as f:
                f.write(pout)
    if what:
        dest = os.path.join(keep, "seed-%d" % seed)
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(d, dest)
        envs = " ".join("%s=%s" % kv for kv in sorted(env.items()))
        what = ("seed %d (%s%s, mode=%s, %s): %s\n  files: %s\n  reproduce: python3 %s "
                "--build-dir BUILD%s%s --seed %d --count 1" % (
                    seed, opt, "".join(" " + x for x in extra), mode, envs or "no env",
                    what.rstrip(), dest, os.path.relpath(os.path.abspath(__file__)),
                    "" if setup.clang == "clang-19" else " --clang " + setup.clang,
                    (" --library-threads %d" if library else " --threads %d") % threads
                    if threads > 1 or library else "", seed))
    return what, when, mode, frac is not None, facts["nopoll"], facts["jumps"], facts


def main():
    p = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="The longer run documented in docs/switch.md: --count 5000 --seed random.")
    p.add_argument("--build-dir", required=True,
                   help="CMake build tree with passes/compactptr.so and runtime/libcompactptr.a")
    p.add_argument("--count", type=int, default=200, help="number of programs (default 200)")
    p.add_argument("--seed", default="1",
                   help="first seed (programs use SEED..SEED+COUNT-1), or 'random'")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 2,
                   help="cases run in parallel (default: the number of CPUs)")
    p.add_argument("--clang", default="clang-19", help="compiler (default clang-19)")
    p.add_argument("--keep", default=None,
                   help="where failing cases are kept (default BUILD/test/differential-failures)")
    p.add_argument("--min-switched", type=float, default=0.4,
                   help="least fraction of limited switchable cases that must switch "
                        "after main built its starting heap, while step functions run "
                        "(default 0.4; checked when there are at least 20 of them)")
    p.add_argument("--threads", type=int, default=1,
                   help="multi-threaded mode: each program runs in this many "
                        "threads at once, each on its own heap (default 1: off)")
    p.add_argument("--library-threads", type=int, default=0, metavar="N",
                   help="library-threads mode: each program runs as N tasks, each on "
                        "its own heap, by the threads of a library built without the "
                        "plugin (libpool.c; default 0: off)")
    p.add_argument("--show", action="store_true", help="print the first seed's program and its configuration, run nothing")
    args = p.parse_args()
    if args.count < 1 or args.jobs < 1 or not 1 <= args.threads <= 64:
        p.error("--count and --jobs must be at least 1, --threads 1 to 64")
    if not 0 <= args.library_threads <= 64 or (args.library_threads and args.threads > 1):
        p.error("--library-threads must be 1 to 64, and not with --threads")
    library = args.library_threads > 0
    threads = args.library_threads or args.threads
    if args.seed == "random":
        base = random.SystemRandom().randrange(1, 1 << 40)
    else:
        try:
            base = int(args.seed)
        except ValueError:
            p.error("--seed must be an integer or 'random', not %r" % args.seed)
    if args.show:
        if library:
            files, facts = cpgen.generate_library(base, threads)
        elif threads > 1:
            files, facts = cpgen.generate_threaded(base, threads)
        else:
            files, facts = cpgen.generate_files(base)
        opt, mode, extra, env, frac = case_config(base)
        print("/* %s %s, mode=%s, %s%s, %s */" % (
            opt, " ".join(extra), mode, env,
            ", high-water mark at %.2f x the arena's peak + %d KiB of arena above it" % (
                frac, cpgen.HEADROOM // 1024) if frac else "", facts))
        for name, text in sorted(files.items()):
            if len(files) > 1:
                print("/* ==== %s%s ==== */" % (
                    name, ", built without the plugin" if name in facts.get(
                        "native_files", ()) else ""))
            sys.stdout.write(text)
        return 0
    setup = Setup(args)
    keep = args.keep or os.path.join(os.path.abspath(args.build_dir), "test", "differential-failures")
    os.makedirs(keep, exist_ok=True)
    print("differential: %d programs, seeds %d..%d, %d jobs%s" % (
        args.count, base, base + args.count - 1, args.jobs,
        ", %d tasks each run by a library's threads" % threads if library else
        ", %d threads each" % threads if threads > 1 else ""), flush=True)
    t0 = time.time()
    failed, limited, modes, whens = [], 0, {}, {"build": 0, "late": 0}
    nopolls, nopoll_limited, nopoll_late = 0, 0, 0
    jumps, jumps_limited, jumps_late = 0, 0, 0
    ctors, natives, kinds = 0, 0, {}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        futs = [ex.submit(one_case, setup, s, keep, threads, library)
                for s in range(base, base + args.count)]
        for f in concurrent.futures.as_completed(futs):
            seed, what, when, mode, lim, nopoll, jump, facts = f.result()
            modes[mode] = modes.get(mode, 0) + 1
            ctors += facts["ctor_file"]
            natives += facts.get("native_runs", 0) > 0
            if library:
                k = facts["library"].split()[0] + ("" if facts["records"] else " thin-main")
                kinds[k] = kinds.get(k, 0) + 1
            nopolls += nopoll
            jumps += jump
            if lim:
                limited += 1
                if when:
                    whens[when] += 1
                if nopoll:
                    nopoll_limited += 1
                    nopoll_late += when == "late"
                if jump:
                    jumps_limited += 1
                    jumps_late += when == "late"
            if what:
                failed.append(seed)
                print("FAIL: " + what, flush=True)
    print("differential: %d programs (%s) in %.0f s; of %d with an arena limit, %d switched "
          "while the step functions ran and %d while main built the heap; %d failed%s" % (
              args.count, ", ".join("%s %d" % kv for kv in sorted(modes.items())),
              time.time() - t0, limited, whens["late"], whens["build"], len(failed),
              " (seeds %s)" % " ".join(map(str, sorted(failed))) if failed else ""))
    print("differential: %d of %d programs call no cp_safepoint(); of their %d limited cases "
          "%d switched while the step functions ran" % (
              nopolls, args.count, nopoll_limited, nopoll_late))
    print("differential: %d of %d programs recover from errors with setjmp and longjmp; "
          "of their %d limited cases %d switched while the step functions ran" % (
              jumps, args.count, jumps_limited, jumps_late))
    print("differential: %d of %d programs have their constructors in a file of their own" % (
        ctors, args.count))
    print("differential: %d of %d programs copy handle arrays through local arrays of "
          "pointers" % (natives, args.count))
    if library:
        print("differential: the library's threads: %s" % ", ".join(
            "%s %d" % kv for kv in sorted(kinds.items())))
    if failed:
        return 1
    if limited >= 20 and whens["late"] < args.min_switched * limited:
        print("FAIL: only %d of %d cases with an arena limit switched while the step "
              "functions ran (want %.0f%%): the generated programs no longer outgrow "
              "the arena there (seeds %d..%d)" % (
                  whens["late"], limited, 100 * args.min_switched, base, base + args.count - 1))
        return 1
    if nopoll_limited >= 20 and nopoll_late < args.min_switched * nopoll_limited:
        print("FAIL: only %d of %d cases with an arena limit that call no cp_safepoint() "
              "switched while the step functions ran (want %.0f%%): allocations no longer "
              "switch there (seeds %d..%d)" % (
                  nopoll_late, nopoll_limited, 100 * args.min_switched, base,
                  base + args.count - 1))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
