"""Run the plugin and compactptr-advise over the same C files and compare
the lines they report.

For each file: the lines of the plugin's errors and warnings (with the
file's types marked as they are in the source), and the lines of advise's
blockers for the structs the file marks CP_COMPACT (advise reports them as
"annotated").  Prints one line per file, "agree", "DISAGREE" or "skipped"
(the file does not compile with these flags alone), and exits 0; the lit
test checks the words.

usage: compare-diagnostics.py CLANG "CFLAGS" PLUGIN ADVISE FILE...
"""
import json
import os
import re
import shlex
import subprocess
import sys


def plugin_lines(clang, cflags, plugin, path):
    r = subprocess.run([clang] + cflags + ["-fplugin=" + plugin, "-fsyntax-only", "-ferror-limit=0", path],
                       capture_output=True, text=True)
    name = re.escape(os.path.basename(path))
    pat = re.compile(r"^(?:.*/)?" + name + r":(\d+):\d+: (?:error|warning):")
    # clang's own warnings carry their flag ("[-Wfoo]"); the plugin's errors
    # carry none and its warnings carry "[-Wcompactptr-NAME]".
    ours = re.compile(r"(?<!\])$|\[(-Werror,)?-Wcompactptr-[a-z-]+\]$")
    return sorted({int(m.group(1)) for line in r.stderr.splitlines()
                   for m in [pat.match(line)] if m and ours.search(line)})


def advise_lines(advise, cflags, path):
    r = subprocess.run([advise, "--json", path, "--"] + cflags, capture_output=True, text=True)
    if r.returncode not in (0, 3):  # 3: an annotated struct is blocked
        return None
    lines = set()
    for s in json.loads(r.stdout)["structs"]:
        if s["annotated"]:
            lines.update(b["line"] for b in s["blockers"]
                         if os.path.basename(b["file"]) == os.path.basename(path))
    return sorted(lines)


def main():
    clang, cflags, plugin, advise = sys.argv[1:5]
    cflags = shlex.split(cflags)
    for path in sorted(sys.argv[5:]):
        p = plugin_lines(clang, cflags, plugin, path)
        a = advise_lines(advise, cflags, path)
        if a is None:  # needs flags of its own test, or does not compile
            print("%s: skipped" % os.path.basename(path))
            continue
        word = "agree" if p == a else "DISAGREE"
        print("%s: %s plugin=%s advise=%s" % (os.path.basename(path), word, p, a))


if __name__ == "__main__":
    main()
