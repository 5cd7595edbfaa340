#!/usr/bin/env python3
"""test/corpus/run.py - the corpus of real C shapes, judged the way users judge.

Every program in programs/ is ordinary C whose only compactptr-specific
text is `#include <compactptr.h>` and CP_COMPACT on its node structs.  The
promise under test: with the plugin, in every mode, it builds and prints
exactly what its native build prints.  Each program is built and run in
these configurations:

  native          clang -O2 -Wall -Werror, no plugin: the reference output
                  (run twice; the two runs must agree)
  gcc             gcc -O2 -Wall -Werror, no plugin: same output as native
  compact-only    plugin, mode=compact-only
  switchable      plugin, mode=switchable, no arena limit (stays compact);
                  its COMPACTPTR_STATS report gives the compact heap's peak P
  switch          the switchable build with COMPACTPTR_ARENA_LIMIT and
                  COMPACTPTR_HIGH_WATER putting the high-water mark at P/2
                  with 2P of arena above it (the placement of bench/run), so
                  the switch is due half-way through the heap's growth and
                  the arena cannot run out before a safepoint; passes only if
                  the STATS report shows that the switch happened
  switch-verify   the same with COMPACTPTR_VERIFY=1
  wide            plugin, mode=wide

--opt O0,O1 adds compact-only, switch and wide at those levels
(`compact-only@O0`, ...).  Every run compares stdout and exit status with
native and is classified as one of

  pass            builds, same output (and, for switch*, it switched)
  no-switch       same output, but the switch never happened
  diagnostic      the plugin refused the program: the first error is quoted
  compiler-crash  the compiler died (signal, or clang's crash report)
  link-error      compiled, did not link
  fatal           a runtime stop: exit 70 and a `compactptr:` message
  crash           killed by a signal
  wrong-output    exit status as native, different stdout (first difference)
  exit-status     a different exit status
  timeout         ran longer than --timeout seconds
  blocked         switch*: no run of the program reported the heap's peak

The expectations manifest (--expect, default expected.txt next to this
script) says per program and configuration either `pass` or `xfail REASON
TEXT`, where TEXT must occur in "<class>: <detail>" of the failure (see
README.md).  A run fails (exit 1) on any regression, on a failure that
changed, and on any unexpected pass, so the manifest follows the toolchain.

Usage:
  run.py --build-dir BUILD [--jobs 2] [--only a,b] [--json FILE] [--opt O0,O1]
  run.py --build-dir BUILD --write-expectations NEW.txt   # today's truth
Exit status: 0 every result as expected, 1 a result differs from the
manifest, 2 bad usage, setup or a corpus program that is not valid C.
"""

import argparse
import concurrent.futures
import fnmatch
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PROGRAMS_DIR = os.path.join(HERE, "programs")

BASE_CONFIGS = ["native", "gcc", "compact-only", "switchable", "switch", "switch-verify", "wide"]
SHORT = {"pass": "pass", "no-switch": "nosw", "diagnostic": "diag", "compiler-crash": "CCRASH",
         "link-error": "link", "fatal": "fatal", "crash": "CRASH", "wrong-output": "WRONG",
         "exit-status": "exit", "timeout": "tmo", "blocked": "blkd"}
RUN_TIMEOUT = 60
FATAL_STATUS = 70

PEAK_RE = re.compile(r"(\d+) KiB peak use")
SWITCH_RE = re.compile(r"compactptr: switch to wide mode \(([^)]*)\) after (\d+) allocations")
TYPE_ROW_RE = re.compile(r"^compactptr: (\S+)\s+\d+\s+\d+\s+\d+\s+\d+\s+(\d+)\s+\d+$", re.M)


class SetupError(Exception):
    pass


# ---------------------------------------------------------------------------
# the expectations manifest

class Manifest:
    """Lines `PROGRAM CONFIG pass` or `PROGRAM CONFIG xfail REASON TEXT`.
    PROGRAM and CONFIG are fnmatch patterns (`*`, `switch*`, ...); CONFIG may
    be a comma-separated list of them.  For each (program, config) the last
    matching line wins, so specific lines follow general ones."""

    LINE_RE = re.compile(r"^(\S+)\s+(\S+)\s+(pass|xfail)\b\s*(.*)$")

    def __init__(self, path):
        self.path = path
        self.rules = []   # (lineno, program pattern, config patterns, kind, reason, text)
        if path is None:
            return
        with open(path) as f:
            for n, raw in enumerate(f, 1):
                line = raw.strip()
                if not line or line.startswith("#"):
                    continue
                m = self.LINE_RE.match(line)
                if not m:
                    raise SetupError("%s:%d: expected 'PROGRAM CONFIG pass' or 'PROGRAM CONFIG "
                                     "xfail REASON TEXT', got %r" % (path, n, line))
                prog, cfgs, kind, rest = m.groups()
                reason = text = ""
                if kind == "xfail":
                    parts = rest.split(None, 1)
                    if len(parts) != 2:
                        raise SetupError("%s:%d: xfail needs a REASON and the TEXT expected in "
                                         "the failure" % (path, n))
                    reason, text = parts[0], parts[1].strip()
                    if len(text) >= 2 and text[0] == text[-1] == '"':
                        text = text[1:-1]
                elif rest:
                    raise SetupError("%s:%d: nothing may follow 'pass'" % (path, n))
                self.rules.append((n, prog, cfgs.split(","), kind, reason, text))

    def lookup(self, program, config):
        """Returns (kind, reason, text, line number) or None."""
        found = None
        for n, prog, cfgs, kind, reason, text in self.rules:
            if fnmatch.fnmatchcase(program, prog) and any(
                    fnmatch.fnmatchcase(config, c) for c in cfgs):
                found = (kind, reason, text, n)
        return found


def judge(result, expectation):
    """Returns (verdict, message): verdict is 'ok', 'xfail', 'regression',
    'changed', 'xpass' or 'unlisted'."""
    summary = "%s: %s" % (result["class"], result["detail"]) if result["detail"] else result["class"]
    if expectation is None:
        return ("ok", "") if result["class"] == "pass" else ("unlisted", summary)
    kind, reason, text, line = expectation
    if kind == "pass":
        if result["class"] == "pass":
            return "ok", ""
        return "regression", summary
    if result["class"] == "pass":
        return "xpass", "expected to fail (%s, manifest line %d) but passes: update the manifest" % (
            reason, line)
    if text.lower() in summary.lower():
        return "xfail", reason
    return "changed", "%s (manifest line %d expected %s: %r)" % (summary, line, reason, text)


# ---------------------------------------------------------------------------
# building and running

def clean_env(extra=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("COMPACTPTR_")}
    env.update(extra or {})
    return env


def run_cmd(cmd, env=None, timeout=RUN_TIMEOUT, cwd=None):
    """Returns (status, stdout, stderr); status is an int (negative: signal)
    or 'timeout'."""
    try:
        p = subprocess.run(cmd, env=clean_env(env), capture_output=True, timeout=timeout, cwd=cwd)
        return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"").decode("utf-8", "replace")
        err = (e.stderr or b"").decode("utf-8", "replace")
        return "timeout", out, err


def first_line(text, pattern):
    for line in text.splitlines():
        if re.search(pattern, line):
            return line.strip()
    return None


def strip_path(line, src):
    """`/abs/path/prog.c:12:3: error: x` -> `prog.c:12:3: error: x`."""
    return line.replace(os.path.dirname(src) + os.sep, "")


def signame(status):
    try:
        return signal.Signals(-status).name
    except ValueError:
        return "signal %d" % -status


class Tools:
    def __init__(self, args):
        b = os.path.abspath(args.build_dir)
        self.clang, self.gcc = args.clang, args.gcc
        self.plugin = os.path.join(b, "passes", "compactptr.so")
        self.runtime = os.path.join(b, "runtime", "libcompactptr.a")
        self.incs = ["-I" + os.path.join(ROOT, "include"), "-I" + os.path.join(b, "include")]
        for f in (self.plugin, self.runtime, os.path.join(b, "include", "compactptr_config.h")):
            if not os.path.exists(f):
                raise SetupError("%s does not exist; build the compactptr-plugin and "
                                 "compactptr_static targets of %s first" % (f, b))
        for c in (self.clang, self.gcc):
            if not shutil.which(c):
                raise SetupError("compiler %r not found" % c)

    def build_cmd(self, kind, src, out, opt="-O2"):
        libs = ["-lm", "-lpthread"]
        if kind == "native":
            return [self.clang, opt, "-Wall", "-Werror"] + self.incs + [src, "-o", out] + libs
        if kind == "gcc":
            return [self.gcc, opt, "-Wall", "-Werror"] + self.incs + [src, "-o", out] + libs
        return ([self.clang, opt, "-Wall"] + self.incs +
                ["-fplugin=" + self.plugin, "-fplugin-arg-compactptr-mode=" + kind, src,
                 self.runtime, "-o", out] + libs)


def classify_build(status, err, src, cc):
    """A failed build: diagnostic, compiler-crash or link-error."""
    crash = (isinstance(status, int) and status < 0) or status == "timeout" or re.search(
        r"PLEASE submit a bug report|Stack dump:|internal compiler error|clang frontend command failed",
        err)
    if crash:
        line = first_line(err, r"error:|Assertion|Stack dump|Segmentation|signal") or str(status)
        return "compiler-crash", strip_path(line, src)
    err_line = first_line(err, r"\berror:")
    if err_line and ("ld:" in err_line or "linker command failed" in err_line or
                     "undefined reference" in err):
        return "link-error", strip_path(first_line(err, r"undefined reference|ld:") or err_line, src)
    if err_line:
        n = len([l for l in err.splitlines() if re.search(r"\berror:", l)])
        more = " (+%d more errors)" % (n - 1) if n > 1 else ""
        return "diagnostic", strip_path(err_line, src) + more
    return "diagnostic", "%s exited %s: %s" % (cc, status, err.strip()[-300:])


def first_difference(expected, got):
    e, g = expected.splitlines(), got.splitlines()
    for i in range(max(len(e), len(g))):
        a = e[i] if i < len(e) else "<end of output>"
        b = g[i] if i < len(g) else "<end of output>"
        if a != b:
            return "line %d: expected %r, got %r" % (i + 1, a[:120], b[:120])
    return "outputs differ"


def is_stats_line(line):
    """A line of the COMPACTPTR_STATS report (not a runtime error)."""
    return bool(re.match(r"compactptr: (mode |type |switch|no switch happened)", line) or
                TYPE_ROW_RE.match(line))


def runtime_message(err):
    """The first `compactptr:` line that is not part of the STATS report."""
    for line in err.splitlines():
        if line.startswith("compactptr:") and not is_stats_line(line):
            return line.strip()
    return None


def classify_run(status, out, err, ref, limited, mark_kib=None):
    """Classifies one run against the native (status, stdout)."""
    nstatus, nout = ref
    switched = switch_detail(err)
    after = " after the switch (%s)" % switched if switched else ""
    msg = runtime_message(err)
    if status == "timeout":
        return "timeout", "no exit after %d s%s" % (RUN_TIMEOUT, after)
    if isinstance(status, int) and status < 0:
        return "crash", "%s%s%s" % (signame(status), after, "; " + msg if msg else "")
    if status != nstatus:
        if status == FATAL_STATUS and msg:
            return "fatal", msg
        line = msg or first_line(err, r"\S") or ""
        return "exit-status", "exit %s (native %s)%s%s" % (
            status, nstatus, after, "; stderr: " + line[:200] if line else "")
    if out != nout:
        return "wrong-output", first_difference(nout, out) + after
    if limited and not switched:
        m = PEAK_RE.search(err)
        if m and mark_kib:
            return "no-switch", ("no switch happened, though the arena's peak use (%s KiB) "
                                 "passed the high-water mark (%d KiB)" % (m.group(1), mark_kib))
        return "no-switch", "no switch happened"
    return "pass", ""


def switch_detail(err):
    """`after 41% of 589823 allocations (reason)` from a STATS report."""
    m = SWITCH_RE.search(err)
    if not m:
        return None
    total = sum(int(a) for _, a in TYPE_ROW_RE.findall(err))
    at = int(m.group(2))
    frac = " (%d%% of %d)" % (100 * at // total, total) if total else ""
    return "after %d allocations%s, %s" % (at, frac, m.group(1))


def limit_for(peak_kib):
    """The placement of bench/run: the high-water mark at P/2 with an arena
    of P/2 + 2P, so the mark is crossed while the heap grows and the arena
    cannot run out before the next safepoint (2P: the buddy aligns large
    runs to their size)."""
    mark = max(64, peak_kib // 2)
    limit = max(128, mark + 2 * peak_kib)
    hw = max(1, 100 * mark // limit)
    return ({"COMPACTPTR_ARENA_LIMIT": "%dK" % limit, "COMPACTPTR_HIGH_WATER": str(hw)},
            limit * hw // 100)


def run_program(tools, name, args, opts, keep_root, programs_dir=PROGRAMS_DIR):
    """Builds and runs one program in every configuration; returns a list of
    result dicts.  Raises SetupError when the program itself is not valid
    (native build fails or its output is not deterministic)."""
    src = os.path.join(programs_dir, name + ".c")
    work = tempfile.mkdtemp(prefix="cpcorpus-%s-" % name)
    results, keep = [], False
    try:
        def res(config, cls, detail="", **kw):
            r = {"program": name, "config": config, "class": cls, "detail": detail}
            r.update(kw)
            results.append(r)
            return r

        # native: the reference
        exe = os.path.join(work, "native")
        cmd = tools.build_cmd("native", src, exe)
        st, _, err = run_cmd(cmd, timeout=300)
        if st != 0:
            raise SetupError("%s does not build natively with %s:\n%s" % (
                name, " ".join(cmd), err.strip()))
        n1 = run_cmd([exe] + args)
        n2 = run_cmd([exe] + args)
        if n1[0] != 0 or n1[:2] != n2[:2]:
            raise SetupError("%s: the native build %s" % (
                name, "exited %s: %s" % (n1[0], n1[2].strip()[-500:]) if n1[0] != 0
                else "printed different outputs in two runs"))
        ref = (n1[0], n1[1])
        res("native", "pass", build=cmd, run=[exe] + args)

        # gcc: the same C, another compiler
        exe = os.path.join(work, "gcc")
        cmd = tools.build_cmd("gcc", src, exe)
        st, _, err = run_cmd(cmd, timeout=300)
        if st != 0:
            res("gcc", "diagnostic", strip_path(first_line(err, r"error|warning") or err, src),
                build=cmd)
        else:
            st, out, err = run_cmd([exe] + args)
            cls, det = classify_run(st, out, err, ref, False)
            res("gcc", cls, det, build=cmd, run=[exe] + args)

        peak = None
        for opt in opts:
            sfx = "" if opt == "-O2" else "@" + opt[1:]
            builds = {}
            for mode in ("compact-only", "switchable", "wide"):
                exe = os.path.join(work, mode + sfx.replace("@", "-"))
                cmd = tools.build_cmd(mode, src, exe, opt)
                st, _, err = run_cmd(cmd, timeout=300)
                warnings = [strip_path(l.strip(), src) for l in err.splitlines()
                            if re.search(r"\bwarning:", l)]
                if st != 0:
                    builds[mode] = (None, classify_build(st, err, src, tools.clang), cmd, warnings)
                else:
                    builds[mode] = (exe, None, cmd, warnings)

            def run_config(config, mode, env, mark_kib=None):
                exe, failed, cmd, warnings = builds[mode]
                if failed:
                    return res(config + sfx, failed[0], failed[1], build=cmd, warnings=warnings)
                env = dict(env, COMPACTPTR_STATS="1")
                st, out, err = run_cmd([exe] + args, env)
                cls, det = classify_run(st, out, err, ref, mark_kib is not None, mark_kib)
                r = res(config + sfx, cls, det, build=cmd, run=[exe] + args, env=env,
                        warnings=warnings, switched=switch_detail(err))
                m = PEAK_RE.search(err)
                r["peak_kib"] = int(m.group(1)) if m else None
                if cls != "pass":
                    r["stderr"] = err[-3000:]
                return r

            r = run_config("compact-only", "compact-only", {})
            if peak is None and r.get("peak_kib"):
                peak = r["peak_kib"]
            if opt == "-O2":
                r = run_config("switchable", "switchable", {})
                if r.get("peak_kib"):
                    peak = r["peak_kib"]
            limited = ["switch", "switch-verify"] if opt == "-O2" else ["switch"]
            for config in limited:
                if builds["switchable"][1] is None and not peak:
                    res(config + sfx, "blocked", "no run reported the compact heap's peak "
                        "(compact-only and switchable runs failed)")
                    continue
                env, mark = limit_for(peak) if peak else ({}, 0)
                if config == "switch-verify":
                    env["COMPACTPTR_VERIFY"] = "1"
                run_config(config, "switchable", env, mark)
            run_config("wide", "wide", {})
        keep = any(r["class"] != "pass" for r in results)
    finally:
        if keep and keep_root:
            dest = os.path.join(keep_root, name)
            shutil.rmtree(dest, ignore_errors=True)
            shutil.copytree(work, dest)
            for r in results:
                for k in ("build", "run"):
                    if r.get(k):
                        r[k] = [a.replace(work, dest) for a in r[k]]
        shutil.rmtree(work, ignore_errors=True)
    return results


# ---------------------------------------------------------------------------
# the driver

def program_args(name):
    """Programs take their size from argv; the corpus runs the defaults."""
    return []


def list_programs(programs_dir):
    return sorted(f[:-2] for f in os.listdir(programs_dir) if f.endswith(".c"))


def print_table(results, configs, verdicts):
    progs = sorted({r["program"] for r in results})
    by = {(r["program"], r["config"]): r for r in results}
    w = max(len(p) for p in progs) + 1
    cw = [max(len(c), 6) for c in configs]
    print("%-*s %s" % (w, "program", " ".join("%-*s" % (cw[i], c) for i, c in enumerate(configs))))
    for p in progs:
        cells = []
        for i, c in enumerate(configs):
            r = by.get((p, c))
            if not r:
                cells.append("%-*s" % (cw[i], "-"))
                continue
            mark = {"regression": "!", "changed": "!", "xpass": "+", "unlisted": "?"}.get(
                verdicts[(p, c)][0], "")
            cells.append("%-*s" % (cw[i], SHORT[r["class"]] + mark))
        print("%-*s %s" % (w, p, " ".join(cells)))
    print("(pass; nosw: no switch; diag: plugin error; CCRASH: compiler crash; link; fatal: "
          "runtime stop; CRASH: signal; WRONG: wrong output; exit: exit status; tmo; blkd; "
          "'!': not as the manifest says; '+': unexpected pass; '?': not in the manifest)")


def write_expectations(path, results, manifest):
    """Today's truth as a manifest; reasons are kept from the old manifest
    where the same failure is expected there, 'unexplained' otherwise."""
    lines = ["# program config expectation (written by run.py --write-expectations)"]
    for p in sorted({r["program"] for r in results}):
        rs = [r for r in results if r["program"] == p]
        for r in rs:
            if r["class"] == "pass":
                lines.append("%-14s %-16s pass" % (p, r["config"]))
                continue
            old = manifest.lookup(p, r["config"])
            summary = "%s: %s" % (r["class"], r["detail"])
            if old and old[0] == "xfail" and old[2].lower() in summary.lower():
                reason, text = old[1], old[2]
            else:
                reason, text = "unexplained", summary[:90]
            lines.append('%-14s %-16s xfail %s "%s"' % (p, r["config"], reason, text))
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("--build-dir", required=True,
                   help="CMake build tree with passes/compactptr.so and runtime/libcompactptr.a")
    p.add_argument("--clang", default="clang-19", help="compiler (default clang-19)")
    p.add_argument("--gcc", default="gcc", help="the second native compiler (default gcc)")
    p.add_argument("--jobs", type=int, default=2, help="programs run in parallel (default 2)")
    p.add_argument("--only", help="comma-separated program names")
    p.add_argument("--programs", default=PROGRAMS_DIR,
                   help="directory of programs (default: programs/ next to this script)")
    p.add_argument("--opt", default="", help="extra optimisation levels, e.g. O0,O1")
    p.add_argument("--expect", default=os.path.join(HERE, "expected.txt"),
                   help="expectations manifest (default: expected.txt next to this script; "
                        "'none' judges every failure as unlisted)")
    p.add_argument("--json", help="write every result as JSON to this file")
    p.add_argument("--keep", help="keep the builds of programs with a failure here")
    p.add_argument("--write-expectations", metavar="FILE",
                   help="write today's results as a manifest to FILE")
    p.add_argument("-v", "--verbose", action="store_true",
                   help="print warnings and commands of every failing configuration")
    args = p.parse_args()
    if args.jobs < 1:
        p.error("--jobs must be at least 1")
    try:
        tools = Tools(args)
        manifest = Manifest(None if args.expect == "none" else args.expect)
        names = list_programs(args.programs)
        if args.only:
            want = args.only.split(",")
            bad = [n for n in want if n not in names]
            if bad:
                raise SetupError("no such program: %s (have: %s)" % (", ".join(bad), " ".join(names)))
            names = want
        opts = ["-O2"] + ["-" + o.strip().lstrip("-") for o in args.opt.split(",") if o.strip()]
    except SetupError as e:
        sys.stderr.write("run.py: %s\n" % e)
        return 2
    configs = list(BASE_CONFIGS)
    for o in opts[1:]:
        configs += ["compact-only@" + o[1:], "switch@" + o[1:], "wide@" + o[1:]]

    t0 = time.time()
    print("corpus: %d programs x %d configurations, %d jobs" % (len(names), len(configs), args.jobs),
          flush=True)
    results, errors = [], []
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as ex:
        futs = {ex.submit(run_program, tools, n, program_args(n), opts, args.keep, args.programs): n
                for n in names}
        for f in concurrent.futures.as_completed(futs):
            try:
                results += f.result()
            except SetupError as e:
                errors.append(str(e))
    if errors:
        for e in errors:
            sys.stderr.write("run.py: %s\n" % e)
        return 2

    verdicts = {}
    for r in results:
        verdicts[(r["program"], r["config"])] = judge(r, manifest.lookup(r["program"], r["config"]))
        r["verdict"], r["verdict_detail"] = verdicts[(r["program"], r["config"])]
    print_table(results, configs, verdicts)

    print("\nnot passing:")
    for r in sorted(results, key=lambda r: (r["program"], configs.index(r["config"]))):
        if r["class"] == "pass":
            continue
        v, why = verdicts[(r["program"], r["config"])]
        tag = {"xfail": "xfail %s" % why, "regression": "REGRESSION", "changed": "CHANGED",
               "unlisted": "NOT IN MANIFEST"}.get(v, v)
        print("  %-12s %-15s %-13s %s  [%s]" % (r["program"], r["config"], r["class"],
                                               r["detail"], tag))
        if args.verbose or v not in ("xfail",):
            for w in r.get("warnings") or []:
                print("      warning: %s" % w.split("warning:", 1)[-1].strip())
            if r.get("build"):
                print("      build: %s" % " ".join(shlex.quote(a) for a in r["build"]))
            if r.get("run"):
                env = " ".join("%s=%s" % kv for kv in sorted((r.get("env") or {}).items()))
                print("      run:   %s%s" % (env + " " if env else "",
                                             " ".join(shlex.quote(a) for a in r["run"])))
    if args.verbose:
        print("\nwhere the switch happened:")
        for r in sorted(results, key=lambda r: (r["program"], r["config"])):
            if r.get("switched"):
                print("  %-12s %-15s %s" % (r["program"], r["config"], r["switched"]))

    bad = [(k, v) for k, v in verdicts.items() if v[0] in ("regression", "changed", "xpass",
                                                          "unlisted")]
    counts = {}
    for r in results:
        counts[r["class"]] = counts.get(r["class"], 0) + 1
    print("\ncorpus: %d results in %.0f s: %s; %d as the manifest expects, %d not" % (
        len(results), time.time() - t0,
        ", ".join("%s %d" % kv for kv in sorted(counts.items())), len(results) - len(bad), len(bad)))
    for (prog, cfg), (v, why) in sorted(bad):
        print("  %s %s/%s: %s" % ({"regression": "REGRESSION", "changed": "CHANGED",
                                   "xpass": "UNEXPECTED PASS", "unlisted": "NOT IN MANIFEST"}[v],
                                  prog, cfg, why))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"configs": configs, "results": results}, f, indent=1)
    if args.write_expectations:
        write_expectations(args.write_expectations, results, manifest)
        print("wrote %s" % args.write_expectations)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
