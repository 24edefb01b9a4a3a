# SPDX-License-Identifier: Apache-2.0
"""Checks a benchmark output directory (bench.py --out) for completeness:
results.json parses and holds the roofline, the overheads, measured cases
with all their runtimes, and the models; README.md has its sections; every
SVG is well-formed XML. Timing values are only checked to be positive: this
is a check of the command, not of the machine.

    check_report.py OUT_DIR
"""

import json
import sys
import xml.etree.ElementTree as ElementTree
from pathlib import Path


def fail(message: str) -> None:
    print(f"check_report: FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def check_peak_interleaved(case) -> None:
    """A GEMM or convolution case has the FMA peak measured alongside it
    (report.py judges it against that): positive GFLOP/s, min <= median <=
    max, one sample per round it ran and a sample length; no other case has
    one."""
    peak = case.get("peak_interleaved")
    if case.get("group") not in ("gemm", "conv"):
        if peak is not None:
            fail(f"{case['id']}: an FMA peak measured alongside a {case.get('group')} case")
        return
    if not isinstance(peak, dict):
        fail(f"{case['id']}: no FMA peak measured alongside")
    for key in ("gflops", "gflops_min", "gflops_max", "rounds", "sample_ms"):
        if not isinstance(peak.get(key), (int, float)) or not peak[key] > 0:
            fail(f"{case['id']}: peak_interleaved.{key} is {peak.get(key)!r}, not a positive number")
    if not peak["gflops_min"] <= peak["gflops"] <= peak["gflops_max"]:
        fail(f"{case['id']}: peak_interleaved is not min <= median <= max: {peak}")
    if peak["rounds"] != int(peak["rounds"]):
        fail(f"{case['id']}: peak_interleaved.rounds is {peak['rounds']!r}, not a count")


def check_bandwidth(case) -> None:
    """A DRAM elementwise case has the copy or triad loop measured alongside
    it with both stores, and is judged against the better one; an L2 one
    has it with ordinary stores."""
    level = case["id"].rpartition("-")[2]
    if case.get("group") != "elementwise" or level not in ("DRAM", "L2"):
        return
    side = case.get("bandwidth_interleaved")
    if not isinstance(side, dict):
        fail(f"{case['id']}: no bandwidth measured alongside")
    if side.get("level") != level:
        fail(f"{case['id']}: bandwidth measured alongside in {side.get('level')!r}")
    stores = side.get("stores") or {}
    expected = ("ordinary", "streaming") if level == "DRAM" else ("ordinary",)
    if sorted(stores) != sorted(expected):
        fail(f"{case['id']}: bandwidth_interleaved.stores has {sorted(stores)}")
    for store in expected:
        entry = stores.get(store) or {}
        if not 0 < entry.get("gbs_min", 0) <= entry.get("gbs", 0) <= entry.get("gbs_max", 0):
            fail(f"{case['id']}: bandwidth_interleaved.stores.{store} is {entry!r}")
    if side["gbs"] != max(stores[s]["gbs"] for s in stores) or side.get("store") not in stores:
        fail(f"{case['id']}: bandwidth_interleaved is not its better store: {side!r}")


def main() -> None:
    out = Path(sys.argv[1])
    results = json.loads((out / "results.json").read_text())
    for key in ("machine", "roofline_start", "roofline_end", "overhead_start", "cases", "models",
                "load", "executorch_kernels"):
        if key not in results:
            fail(f"results.json has no {key}")
    if results["roofline_start"]["peak"]["gflops"]["median"] <= 0:
        fail("no FMA peak")
    measured = [c for c in results["cases"] if "times" in c]
    if not measured:
        fail("no case was measured: " + "; ".join(c.get("skip", "") for c in results["cases"]))
    for case in measured:
        # ExecuTorch is timed wherever the wheel has a kernel for the op.
        missing = case.get("executorch_missing")
        if missing and case.get("executorch_kernel") != "none":
            fail(f"{case['id']}: ExecuTorch did not run ({missing}) but the kind is not none")
        runtimes = ("etref_reference", "etref_optimized") + (() if missing else ("executorch",))
        for runtime in runtimes:
            entry = case["times"].get(runtime)
            if entry is None or entry["cpu"]["median"] <= 0:
                fail(f"{case['id']}: no time for {runtime}")
        etdump = (case.get("executorch_etdump") or {}).get("kernel") or {}
        if not missing and not etdump.get("median", 0) > 0:
            fail(f"{case['id']}: no ExecuTorch kernel time from the ETDump")
        if not isinstance(case.get("inputs_reused"), bool):
            fail(f"{case['id']}: no inputs_reused (whether its plan reuses an input's bytes)")
        check_peak_interleaved(case)
        check_bandwidth(case)
        for runtime in ("etref_reference", "etref_optimized"):
            check = case["checks"].get(runtime)
            if not check or not check.get("ok"):
                fail(f"{case['id']}: {runtime}'s output differs from PyTorch eager's: {check}")
    for model in results["models"]:
        for runtime in ("etref_reference", "etref_optimized", "etref_fused", "executorch",
                        "executorch_xnnpack"):
            if model["times"][runtime]["cpu"]["median"] <= 0:
                fail(f"model {model['name']}: no time for {runtime}")
            if not (model["checks"].get(runtime) or {}).get("ok"):
                fail(f"model {model['name']}: {runtime}'s output differs from eager")
    readme = (out / "README.md").read_text()
    for heading in ("# etref kernel benchmark", "## Roofline measured in this run", "## Targets",
                    "## Whole models", "## Per operator"):
        if heading not in readme:
            fail(f"README.md lacks '{heading}'")
    svgs = sorted(out.glob("*.svg"))
    if len(svgs) < 4:
        fail(f"expected 4 SVG charts, found {len(svgs)}")
    for svg in svgs:
        try:
            ElementTree.parse(svg)
        except ElementTree.ParseError as error:
            fail(f"{svg.name}: {error}")
    print(f"check_report: {len(measured)} cases, {len(results['models'])} models, {len(svgs)} charts")


if __name__ == "__main__":
    main()
