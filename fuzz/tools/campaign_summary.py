#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
#
# Writes reports/fuzz/README.md: one row per fuzz target and engine, from the
# figures fuzz/campaign recorded in reports/fuzz/data/<target>.<engine>.json
# (the latest campaign of each), with each crash's status taken from
# fuzz/regression/<target>/README.md (a status starting with "fixed" counts
# as fixed; the regression replay, `bazel test //fuzz/...`, proves it).
#
#   fuzz/tools/campaign_summary.py
import glob
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TARGETS = ("pte_load_verify", "pte_execute", "bpte_load", "ptd_load", "npy_parse",
           "planner", "kernel_diff")


def regression_status(target):
    """Maps regression file name -> status column of its README row."""
    status = {}
    path = os.path.join(ROOT, "fuzz", "regression", target, "README.md")
    if os.path.exists(path):
        for line in open(path, encoding="utf-8"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            if len(cells) >= 5 and cells[0].startswith("`"):
                status[cells[0].strip("`")] = cells[-1]
    return status


def main():
    rows, notes = [], []
    for target in TARGETS:
        status = regression_status(target)
        seen = set()
        for path in sorted(glob.glob(os.path.join(ROOT, "reports", "fuzz", "data",
                                                  target + ".*.json"))):
            d = json.load(open(path, encoding="utf-8"))
            cov = d.get("coverage", {})
            if "cov" in cov:
                reached = "cov %d, ft %d (of %s PCs)" % (cov["cov"], cov["ft"],
                                                         cov.get("total_pcs", "?"))
            else:
                reached = ", ".join("%s %s" % kv for kv in sorted(cov.items())
                                    if kv[0] != "unit")
            crashes = d.get("crashes", {})
            seen.update(c["file"] for c in crashes.values())
            fixed = sum(1 for c in crashes.values()
                        if status.get(c["file"], "").startswith("fixed"))
            for c in crashes.values():
                notes.append("- `%s` `fuzz/regression/%s/%s` (%s, %d file(s)): %s" % (
                    target, target, c["file"], c["kind"], c["count"],
                    status.get(c["file"], "not triaged")))
            rows.append("| [%s](%s.md) | %s | %s | %.0f s | %d | %.1f | %s | %d / %d | `%s` |" % (
                target, target, d["engine"], d["started"][:16].replace("T", " "),
                d["elapsed_seconds"], d["total_execs"],
                d["execs_per_second"], reached, len(crashes), fixed,
                d["campaign_command"]))
        for name in sorted(set(status) - seen):
            notes.append("- `%s` `fuzz/regression/%s/%s` (found outside the campaign above, "
                         "earlier): %s" % (target, target, name, status[name]))
    text = [
        "# Fuzz campaigns",
        "",
        "One row per target and engine: the latest campaign of each, as "
        "`fuzz/campaign` recorded it (details, coverage over time and the engine "
        "commands in `<target>.md`, raw figures in `data/`). Written by "
        "`fuzz/tools/campaign_summary.py`. Machine: 2 cores shared with other "
        "work, every fuzzer at `nice -n 19`, one job each, two campaigns at a "
        "time; execs/s are what that delivered, not what the harnesses can do. "
        "Total execs are libFuzzer's count at its last status line (in fork "
        "mode it prints one only when a job adds coverage), so a lower bound.",
        "",
        "Coverage is libFuzzer's: `cov` counts covered PCs (edges) of the "
        "instrumented binary (etref plus the harness), `ft` libFuzzer's "
        "features (edges with hit-count buckets); the total is every "
        "instrumented PC of that binary. Crashes are unique after "
        "deduplication by kind and top three etref frames; \"fixed\" means the "
        "root cause is fixed and the case is replayed by `bazel test //fuzz/...`.",
        "",
        "| target | engine | started (UTC) | duration | total execs | execs/s | coverage reached "
        "| crashes found / fixed | command |",
        "| --- | --- | --- | ---: | ---: | ---: | --- | ---: | --- |",
    ] + rows
    if notes:
        text += ["", "Crashes:", ""] + notes
    out = os.path.join(ROOT, "reports", "fuzz", "README.md")
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(text) + "\n")
    sys.stdout.write("wrote %s\n" % os.path.relpath(out, ROOT))


if __name__ == "__main__":
    main()
