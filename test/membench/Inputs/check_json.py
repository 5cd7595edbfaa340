#!/usr/bin/env python3
"""Check a compactptr-membench --json report against the script contract.

usage: check_json.py SUBCOMMAND FILE [EXPECTED_PAGE_KINDS]
Exits non-zero with a message on the first violation.  Checks shape and
types only, never timings.
"""
import json
import math
import sys


def fail(msg):
    sys.exit("check_json: " + msg)


def number(v, where, allow_null=False):
    if v is None and allow_null:
        return
    if not isinstance(v, (int, float)) or isinstance(v, bool) or not math.isfinite(v):
        fail("%s: expected a number, got %r" % (where, v))


def net(v, below, resolution, where):
    """A net time: null when below its resolution, else at least it."""
    number(resolution, where + " resolution")
    if below:
        if v is not None:
            fail("%s below resolution but %r" % (where, v))
    else:
        number(v, where)
        if v < resolution:
            fail("%s %r below its resolution %r" % (where, v, resolution))


def main():
    cmd, path = sys.argv[1], sys.argv[2]
    with open(path) as f:
        text = f.read()
    doc = json.loads(text)  # exactly one object: trailing data raises
    if not isinstance(doc, dict):
        fail("top level is not an object")
    if doc.get("subcommand") != cmd:
        fail("subcommand is %r" % doc.get("subcommand"))
    number(doc["machine"]["tsc_hz"], "machine.tsc_hz")
    for name, c in doc["counters"].items():
        if not c["available"] and not c["reason"]:
            fail("counter %s unavailable without a reason" % name)
    res = doc["results"]
    if not isinstance(res, list) or not res:
        fail("results is empty")
    if cmd == "chase":
        kinds = set(sys.argv[3].split(",")) if len(sys.argv) > 3 else {"4K", "2M"}
        seen = set()
        for i, r in enumerate(res):
            for k in ("bytes", "page", "ns_per_load", "cycles_per_load", "hugepage_fraction"):
                if k not in r:
                    fail("results[%d] lacks %s" % (i, k))
            if not isinstance(r["bytes"], int) or r["bytes"] <= 0:
                fail("results[%d].bytes = %r" % (i, r["bytes"]))
            if r["page"] not in ("4K", "2M"):
                fail("results[%d].page = %r" % (i, r["page"]))
            number(r["ns_per_load"], "ns_per_load")
            number(r["cycles_per_load"], "cycles_per_load")
            number(r["hugepage_fraction"], "hugepage_fraction", allow_null=True)
            hf = r["hugepage_fraction"]
            if hf is not None and not 0 <= hf <= 1:
                fail("hugepage_fraction %r outside [0, 1]" % hf)
            if r["page"] == "2M" and hf is not None and hf < 0.999 and not r["fallback_reason"]:
                fail("2M run without huge pages and without a reason")
            seen.add((r["bytes"], r["page"]))
        sizes = sorted({b for b, _ in seen})
        for b in sizes:
            for k in kinds:
                if (b, k) not in seen:
                    fail("no %s result for %d bytes" % (k, b))
    elif cmd == "stride":
        orders = {r["order"] for r in res}
        if orders != {"linear", "page-stride", "line-stride"}:
            fail("orders %r" % orders)
        for r in res:
            # A net time below resolution is null, never negative.
            if r["net_below_resolution"]:
                if r["ns_per_touch"] is not None:
                    fail("net below resolution but ns_per_touch %r" % r["ns_per_touch"])
            else:
                number(r["ns_per_touch"], "ns_per_touch")
                if r["ns_per_touch"] < r["net_resolution_ns"]:
                    fail("net %r below its resolution %r" %
                         (r["ns_per_touch"], r["net_resolution_ns"]))
            number(r["net_resolution_ns"], "net_resolution_ns")
            number(r["ratio_to_linear"], "ratio_to_linear")
    elif cmd == "tlb":
        for r in res:
            number(r["cycles_per_load"], "cycles_per_load")
        for r in doc["refill"]:
            net(r["refill_cycles_per_page"], r["refill_below_resolution"],
                r["refill_resolution_cycles"], "refill_cycles_per_page")
        modes = {r["mode"] for r in doc["pingpong"]}
        if modes != {"processes", "threads"}:
            fail("pingpong modes %r" % modes)
    elif cmd == "coldwarm":
        for r in res:
            if r["available"]:
                for side in ("warm", "cold"):
                    net(r[side + "_cycles"], r[side + "_below_resolution"],
                        r[side + "_resolution_cycles"], side + "_cycles")
            elif not r["reason"]:
                fail("%s unavailable without a reason" % r["op"])
    elif cmd == "walk":
        seen = set()
        for r in res:
            if r["link"] not in ("ptr64", "ptr64-alu", "u32"):
                fail("link %r" % r["link"])
            if r["link"] != "u32" and r["stride"] < 16:
                fail("%s at stride %r (needs 16)" % (r["link"], r["stride"]))
            number(r["ns_per_node"], "ns_per_node")
            number(r["cycles_per_node"], "cycles_per_node")
            number(r["ratio_to_ptr64"], "ratio_to_ptr64",
                   allow_null=r["stride"] < 16)
            seen.add((r["stride"], r["link"]))
        for stride in {s for s, _ in seen}:
            if stride >= 16 and (stride, "ptr64") not in seen:
                fail("no ptr64 row at stride %d" % stride)
    print("ok: %s, %d results" % (cmd, len(res)))


main()
