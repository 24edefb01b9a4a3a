# SPDX-License-Identifier: Apache-2.0
"""reports/bench/: results.json (bench.py) -> README.md and SVG charts.

Figures derived here, from the run's own measurements:
  * time per execution: median thread CPU time over the rounds, minus the
    runtime's execute() time on an empty program (single-op cases);
  * GFLOP/s and GB/s from prof/cost_model.h's FLOPs and compulsory bytes;
  * % of roofline: against min(peak, intensity x bandwidth), with the FMA
    peak and the bandwidth measured in this run, the bandwidth of the level
    the case's working set fits in (L1 / L2 / L3 / DRAM, by the CPU's cache
    sizes) and of the access pattern the operator has (read for reductions,
    triad for ops reading two or more tensors, copy for the rest). Where
    the run measured a roof alongside the case, interleaved with its own
    rounds, that one is used: the FMA peak for GEMM and convolution
    (peak_interleaved), the copy or triad bandwidth for DRAM and L2
    elementwise cases (bandwidth_interleaved); elsewhere the mean of the
    run's start and end measurements. In DRAM the bandwidth is the better of the loop
    with ordinary and with streaming (non-temporal) stores: an ordinary
    store reads each line it writes, a streaming one does not.
Can be rerun alone: python3 report.py results.json OUT_DIR.
"""

import json
import math
import statistics
import sys
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import svg_charts

RUNTIMES = [("etref_reference", "etref reference"), ("etref_optimized", "etref optimized"),
            ("executorch", "ExecuTorch kernels (pip)"), ("executorch_xnnpack", "ExecuTorch + XNNPACK")]
# Whole models also run with the optimized kernels fused at load
# (ops_optimized/fuse/fuse.h, `etref run --fuse`), as XNNPACK fuses what it
# is delegated.
MODEL_RUNTIMES = RUNTIMES[:2] + [("etref_fused", "etref optimized, fused")] + RUNTIMES[2:]


def model_runtimes(models: List[Dict[str, Any]]) -> List[Tuple[str, str]]:
    """MODEL_RUNTIMES, without the fused column for results that predate it."""
    if all("etref_fused" in m["times"] for m in models):
        return MODEL_RUNTIMES
    return RUNTIMES
# Below this net time (seconds) the Python-timed ExecuTorch figure is
# replaced by the ETDump's kernel time (see derive()).
ETDUMP_BELOW = 2e-6
SIMPLE_ELEMENTWISE = ("relu", "hardtanh", "add", "sub", "mul")
TRANSCENDENTAL = ("sigmoid", "tanh", "gelu", "exp")


class Roof:
    """The run's measured roofline (start and end measurements averaged)."""

    def __init__(self, results: Dict[str, Any]) -> None:
        measurements = [results[k] for k in ("roofline_start", "roofline_end") if k in results]
        self.peak = statistics.mean(m["peak"]["gflops"]["median"] for m in measurements)
        self.peak_min = min(m["peak"]["gflops"]["min"] for m in measurements)
        self.peak_max = max(m["peak"]["gflops"]["max"] for m in measurements)
        self.isa = measurements[0]["peak"]["isa"]
        self.bandwidth: Dict[str, Dict[str, float]] = {}
        for level in measurements[0]["bandwidth"]:
            self.bandwidth[level] = {
                pattern: statistics.mean(m["bandwidth"][level][pattern]["median"]
                                         for m in measurements)
                for pattern in measurements[0]["bandwidth"][level]}
        caches = results["machine"]["caches"]
        self.limits = [("L1", 0.75 * caches.get("L1", 32768)),
                       ("L2", 0.8 * caches.get("L2", 1 << 20)),
                       ("L3", 0.5 * caches.get("L3", 16 << 20)), ("DRAM", math.inf)]

    def level(self, nbytes: float) -> str:
        for level, limit in self.limits:
            if nbytes <= limit and level in self.bandwidth:
                return level
        return "DRAM" if "DRAM" in self.bandwidth else list(self.bandwidth)[-1]

    def best(self, level: str, pattern: str) -> Tuple[Optional[float], str]:
        """(GB/s, "ordinary" or "streaming"): the better of the `pattern`
        loop with ordinary stores and, where the run measured it (DRAM),
        with streaming ones."""
        measured = self.bandwidth.get(level, {})
        ordinary, streaming = measured.get(pattern), measured.get(f"{pattern}_stream")
        if streaming is not None and (ordinary is None or streaming > ordinary):
            return streaming, "streaming"
        return ordinary, "ordinary"

    def attainable(self, flops: float, nbytes: float, pattern: str,
                   peak: Optional[float] = None,
                   bandwidth: Optional[float] = None) -> Tuple[float, bool, str]:
        """(attainable GFLOP/s, or GB/s when flops is 0; memory bound?; level),
        against `peak` and `bandwidth` (the case's own, measured alongside)
        where given, else the run's start/end figures."""
        level = self.level(nbytes)
        bandwidth = bandwidth if bandwidth else self.best(level, pattern)[0]
        if flops <= 0:
            return bandwidth, True, level
        peak = peak if peak else self.peak
        memory_roof = flops / max(nbytes, 1.0) * bandwidth
        return min(memory_roof, peak), memory_roof < peak, level


def pattern_of(case: Dict[str, Any]) -> str:
    if case["group"] == "reduction":
        return "read"
    if case["group"] == "elementwise" and case.get("tensor_args", 1) >= 2:
        return "triad"
    return "copy"


def overhead(results: Dict[str, Any], runtime: str) -> float:
    values = [results[k][runtime]["cpu"]["median"] for k in ("overhead_start", "overhead_end")
              if k in results]
    return statistics.mean(values) if values else 0.0


def case_seconds(case: Dict[str, Any], runtime: str, results: Dict[str, Any]) -> Optional[float]:
    entry = case.get("times", {}).get(runtime)
    if entry is None:
        return None
    base = overhead(results, "etref" if runtime.startswith("etref") else "executorch")
    return entry["cpu"]["median"] - base


def model_seconds(model: Dict[str, Any], runtime: str, results: Dict[str, Any],
                  field: str = "median") -> float:
    base = overhead(results, "etref" if runtime.startswith("etref") else "executorch")
    return model["times"][runtime]["cpu"][field] - base


def spread(entry: Dict[str, Any]) -> float:
    cpu = entry["cpu"]
    return (cpu["max"] - cpu["min"]) / cpu["median"] if cpu["median"] > 0 else 0.0


def derive(results: Dict[str, Any], roof: Roof) -> List[Dict[str, Any]]:
    """Per measured case: times, rates and roofline figures."""
    rows = []
    for case in results["cases"]:
        if "times" not in case:
            continue
        row = dict(case)
        for runtime, _ in RUNTIMES:
            row[runtime] = case_seconds(case, runtime, results)
        # ExecuTorch's kernel time: timed from Python (minus the binding's
        # empty-program call) where that is well above the binding's own
        # ~1.6 us; below it, the ETDump's kernel-call time, recorded inside
        # the C++ runtime (the kernel alone: no instruction dispatch, so the
        # comparison leans in ExecuTorch's favour).
        row["executorch_python"] = row["executorch"]
        row["executorch_source"] = "python"
        etdump = (case.get("executorch_etdump") or {}).get("kernel")
        if etdump is not None:
            row["executorch_etdump_kernel"] = etdump["median"]
            if row["executorch"] is None or row["executorch"] < ETDUMP_BELOW:
                row["executorch"] = etdump["median"]
                row["executorch_source"] = "etdump"
        optimized = row["etref_optimized"]
        # A compute-bound case's FMA peak, measured in its own interleaved
        # rounds where the run recorded it (else the run's start/end peak).
        side_peak = (case.get("peak_interleaved") or {}).get("gflops")
        row["peak"] = side_peak if side_peak else roof.peak
        row["peak_alongside"] = bool(side_peak)
        # A DRAM or L2 case's bandwidth, likewise, where the loop measured
        # alongside it has the case's level and pattern (runs before
        # 2026-12-07 measured it for DRAM cases only, without "level").
        side_bandwidth = case.get("bandwidth_interleaved") or {}
        if (roof.level(case["bytes"]) != side_bandwidth.get("level", "DRAM")
                or side_bandwidth.get("pattern") != pattern_of(case)):
            side_bandwidth = {}
        row["bandwidth_alongside"] = bool(side_bandwidth.get("gbs"))
        attainable, memory_bound, level = roof.attainable(case["flops"], case["bytes"],
                                                          pattern_of(case), side_peak,
                                                          side_bandwidth.get("gbs"))
        row.update(level=level, memory_bound=memory_bound, pattern=pattern_of(case))
        row["rate"] = None
        if optimized and optimized > 0:
            if case["flops"] > 0:
                row["rate"] = case["flops"] / optimized * 1e-9
            else:
                row["rate"] = case["bytes"] / optimized * 1e-9
            row["roof_percent"] = 100.0 * row["rate"] / attainable
            row["bandwidth_gbs"] = case["bytes"] / optimized * 1e-9
        rows.append(row)
    return rows


def alongside_peak_lines(rows: List[Dict[str, Any]]) -> List[str]:
    """The FMA peaks measured alongside the GEMM and convolution cases, in
    brief (shows how far the clock moved during the run)."""
    sides = [r["peak_interleaved"] for r in rows if r.get("peak_interleaved")]
    if not sides:
        return []
    medians = [p["gflops"] for p in sides]
    lengths = [p["sample_ms"] for p in sides if "sample_ms" in p]
    length = f" of {statistics.median(lengths):.1f} ms" if lengths else ""
    return [f"FMA peak measured alongside each of the {len(sides)} GEMM and convolution cases"
            f" (the same loop, {statistics.median(p['rounds'] for p in sides):.0f} samples{length}"
            " per case, one in each round of the case's own batches, in bench_server's one"
            " thread on the same pinned CPU, thread CPU time): per-case"
            f" medians {min(medians):.1f} to {max(medians):.1f} GFLOP/s (median"
            f" {statistics.median(medians):.1f}), single samples"
            f" {min(p['gflops_min'] for p in sides):.1f} to"
            f" {max(p['gflops_max'] for p in sides):.1f}.", ""]


def fmt_time(seconds: Optional[float]) -> str:
    if seconds is None:
        return "-"
    if seconds <= 0:
        return "<ovh"
    if seconds >= 1:
        return f"{seconds:.2f} s"
    if seconds >= 1e-3:
        return f"{seconds * 1e3:.2f} ms"
    if seconds >= 1e-6:
        return f"{seconds * 1e6:.2f} us"
    return f"{seconds * 1e9:.0f} ns"


def ratio(numerator: Optional[float], denominator: Optional[float]) -> Optional[float]:
    if numerator is None or denominator is None or numerator <= 0 or denominator <= 0:
        return None
    return numerator / denominator


def fmt_ratio(value: Optional[float]) -> str:
    return "-" if value is None else (f"{value:.1f}x" if value >= 10 else f"{value:.2f}x")


def verdict(ok: bool) -> str:
    return "PASS" if ok else "**MISS**"


def targets(rows: List[Dict[str, Any]], models: List[Dict[str, Any]], roof: Roof,
            results: Dict[str, Any]) -> Tuple[List[str], Dict[str, Any]]:
    env = results["environment_md"]["peak_avx512_gflops"]
    lines = ["| target (issue 4, item 5) | case | measured | result |", "| --- | --- | --- | --- |"]
    summary: Dict[str, Any] = {}
    by_id = {r["id"]: r for r in rows}
    for n in (256, 384, 512, 768, 1024):
        row = by_id.get(f"mm-{n}")
        if row is None or row.get("rate") is None:
            continue
        share = row["rate"] / row["peak"]
        where = " measured alongside" if row["peak_alongside"] else ""
        lines.append(f"| fp32 GEMM >= 80% of measured peak | mm {n}x{n}x{n} | {row['rate']:.0f} GFLOP/s"
                     f" = {100 * share:.0f}% of {row['peak']:.0f}{where} ({100 * row['rate'] / env:.0f}% of"
                     f" ENVIRONMENT.md's {env:.0f}) | {verdict(share >= 0.8)} |")
    conv_rows = [r for r in rows if r["group"] == "conv" and r.get("roof_percent") is not None]
    for row in conv_rows:
        if "standard" not in row["sources"]:
            continue
        bound = ("memory-bound" if row["memory_bound"] else
                 f"vs peak {row['peak']:.0f}{' measured alongside' if row['peak_alongside'] else ''}")
        lines.append(f"| conv2d >= 70% of roofline | {row['id']} | {row['rate']:.0f} GFLOP/s ="
                     f" {row['roof_percent']:.0f}% ({bound}, {row['level']}) |"
                     f" {verdict(row['roof_percent'] >= 70)} |")
    model_convs = [r for r in conv_rows if "standard" not in r["sources"]]
    if model_convs:
        passing = sum(r["roof_percent"] >= 70 for r in model_convs)
        median = statistics.median(r["roof_percent"] for r in model_convs)
        alongside = [r["peak"] for r in model_convs if r["peak_alongside"]]
        span = f"{min(alongside):.0f}" if alongside else ""
        if alongside and f"{max(alongside):.0f}" != span:
            span += f"-{max(alongside):.0f}"
        against = (f"each vs min(the peak measured alongside it, {span} GFLOP/s, memory roof)"
                   if alongside else f"vs min(peak {roof.peak:.0f}, memory roof)")
        lines.append(f"| conv2d >= 70% of roofline | the datasets' {len(model_convs)} distinct conv"
                     f" layers | {passing} at >= 70%; median {median:.0f}% ({against}) |"
                     f" {verdict(passing == len(model_convs))} |")
    for row in rows:
        name, _, level = row["id"].rpartition("-")
        if row["group"] != "elementwise" or level not in ("L1", "L2", "DRAM"):
            continue
        if name not in SIMPLE_ELEMENTWISE + TRANSCENDENTAL + ("div", "sqrt"):
            continue
        if row.get("bandwidth_gbs") is None:
            continue
        bandwidth, store = roof.best(row["level"], row["pattern"])
        # The bandwidth measured in the case's own interleaved rounds, where
        # the run recorded it for the case's level and pattern.
        side = row.get("bandwidth_interleaved") if row["bandwidth_alongside"] else None
        where = ""
        if side:
            bandwidth = side["gbs"]
            store = side.get("store", "ordinary")
            where = " measured alongside"
        stores = " (streaming stores)" if store == "streaming" else ""
        if bandwidth is None:
            continue
        share = row["bandwidth_gbs"] / bandwidth
        # Judged where the op is bound by memory: DRAM for every op, L2 for
        # the ones with a few instructions per element. In L1 (8 KiB per
        # array) one call lasts ~100 ns, so the kernel's fixed per-call cost
        # is part of the figure; transcendentals in cache are bound by their
        # polynomial, not by bandwidth.
        if level == "DRAM" or (level == "L2" and name in SIMPLE_ELEMENTWISE):
            result = verdict(share >= 0.8)
        elif level == "L1":
            result = "info (L1: per-call cost dominates)"
        else:
            result = "info (compute-bound in cache)"
        lines.append(f"| memory-bound elementwise >= 80% of bandwidth | {row['id']} |"
                     f" {row['bandwidth_gbs']:.1f} GB/s = {100 * share:.0f}% of {row['level']}"
                     f" {row['pattern']}{stores}{where} {bandwidth:.1f} GB/s | {result} |")
    compared = [(r, ratio(r["executorch"], r["etref_optimized"])) for r in rows]
    compared = [(r, v) for r, v in compared if v is not None]
    slower = sorted([(r, v) for r, v in compared if v < 1.0], key=lambda item: item[1])
    summary["slower"] = slower
    # The target names ExecuTorch's portable kernels. Where the wheel serves
    # an operator with an optimized kernel its portable twin is not in the
    # wheel: that comparison is against the faster kernel, reported apart.
    for kind, label in (("portable", "every op at least as fast as ExecuTorch's portable kernel"),
                        ("optimized", "(stricter, portable twin not in the wheel) at least as"
                         " fast as ExecuTorch's optimized kernel")):
        everyone = [(r, v) for r, v in compared if r["executorch_kernel"] == kind]
        members = [(r, v) for r, v in everyone if not r.get("more_work")]
        apart = [(r, v) for r, v in everyone if r.get("more_work")]
        behind = [(r, v) for r, v in members if v < 1.0]
        worst = min((v for _, v in members), default=None)
        ops = len({r["op"] for r, _ in members})
        aside = "".join(f"; not judged: {r['id']} {fmt_ratio(v)} ({r['more_work']})"
                        for r, v in apart)
        lines.append(f"| {label} | {len(members)} cases, {ops} operators | faster on"
                     f" {len(members) - len(behind)}, slower on {len(behind)} (listed below);"
                     f" worst ratio {fmt_ratio(worst)}{aside} | {verdict(not behind)} |")
    for model in models:
        if model["name"] not in ("cnn", "mobilenet_v2", "resnet", "mobilenet_v3", "transformer"):
            continue
        plain = model_seconds(model, "etref_optimized", results)
        theirs = model_seconds(model, "executorch_xnnpack", results)
        if "etref_fused" in model["times"]:
            fused = model_seconds(model, "etref_fused", results)
            lines.append(f"| whole model no slower than ExecuTorch + XNNPACK (1 thread) | {model['name']}"
                         f" | fused {fmt_time(fused)} vs {fmt_time(theirs)} ({theirs / fused:.2f}x);"
                         f" unfused {fmt_time(plain)} ({theirs / plain:.2f}x) |"
                         f" {verdict(fused <= theirs)} |")
            continue
        lines.append(f"| whole model no slower than ExecuTorch + XNNPACK (1 thread) | {model['name']}"
                     f" | {fmt_time(plain)} vs {fmt_time(theirs)} ({theirs / plain:.2f}x) |"
                     f" {verdict(plain <= theirs)} |")
    return lines, summary


def describe_check(check: Dict[str, Any]) -> str:
    if "mismatches" in check:
        what = f"{check['mismatches']} elements differ"
    elif "max_abs_diff" in check:
        what = f"max |difference| {check['max_abs_diff']:.3g} (values up to {check['scale']:.3g})"
    else:
        what = "differs"
    return what + (f" ({check['why']})" if check.get("why") else "")


def coverage_lines(results: Dict[str, Any]) -> List[str]:
    """Which of the operators etref registers this run measured, and why
    the others were not."""
    coverage = results.get("operator_coverage")
    if not coverage:
        return []
    measured = {c["op"] for c in results["cases"] if "times" in c}
    registered = coverage["registered"]
    missing = [op for op in registered if op not in measured]
    lines = ["## Operator coverage", "",
             f"{len(registered) - len(missing)} of the {len(registered)} operators etref registers"
             f" were measured in this run"
             + (f" (with `--only '{coverage['selected']}'`)" if coverage.get("selected") else "")
             + "; the others:", ""]
    reasons = coverage.get("not_benchmarked", {})
    for op in missing:
        skips = [c["skip"] for c in results["cases"] if c["op"] == op and "skip" in c]
        why = reasons.get(op) or (skips[0] if skips else "not selected in this run")
        lines.append(f"* `{op}`: {why}")
    return lines + [""]


def write(results: Dict[str, Any], out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    roof = Roof(results)
    rows = derive(results, roof)
    models = results.get("models", [])
    machine = results["machine"]
    load = results["load"]
    env = results["environment_md"]
    md: List[str] = [
        "# etref kernel benchmark",
        "",
        f"Generated by `{results['command']}` on {results['date']} in"
        f" {results['elapsed_seconds'] / 60:.1f} min; the figures below come from that one run"
        " (raw data: `results.json`). Do not edit by hand.",
        "",
        f"* Machine: {machine['cpu']}, {machine['cpus']} CPUs, flags"
        f" {' '.join(machine['flags'])}; caches"
        f" {', '.join(f'{k} {v // 1024} KiB' for k, v in sorted(machine['caches'].items()))};"
        f" Linux {machine['kernel']}; torch {machine['torch']}, executorch {machine['executorch']}.",
        *([f"* etref's kernels forced to {machine['etref_isa_forced']} (`ETREF_ISA`):"
           " ExecuTorch, XNNPACK and the FMA peak and bandwidth loops run as the machine"
           " allows, so the targets' percentages are of the machine's widest ISA's limits."]
          if machine.get("etref_isa_forced") else []),
        f"* Load during the run (1-minute load average, sampled after every case): min"
        f" {load['min']:.1f}, median {load['median']:.1f}, max {load['max']:.1f} on"
        f" {machine['cpus']} CPUs. The machine was shared (other sessions' builds and tests,"
        f" fuzz campaigns at nice 19) while this ran at nice {machine.get('nice', '?')}, pinned to"
        f" CPU {','.join(str(c) for c in machine.get('pinned_to', [])) or '?'}: every figure is a"
        f" median over interleaved rounds, in thread CPU time, and ratios are taken within one"
        f" run.",
        f"* Timing: {results['timing']}. Empty-program execute() time: etref"
        f" {fmt_time(overhead(results, 'etref'))}, ExecuTorch (Python bindings)"
        f" {fmt_time(overhead(results, 'executorch'))}; `<ovh` marks a time within it.",
        f"* Single thread everywhere: etref is single-threaded; torch.set_num_threads(1),"
        f" OMP/MKL/OpenBLAS threads 1, ExecuTorch threadpool (XNNPACK's) reset to 1 thread.",
        f"* ExecuTorch's kernels: the pip wheel's runtime links one kernel library,"
        f" `libexecutorch_kernels_optimized.so`: ExecuTorch's optimized kernels where it has"
        f" them ({len(results['executorch_kernels']['optimized_symbols'])} `opt_*` entry points:"
        f" {', '.join(s[4:] for s in results['executorch_kernels']['optimized_symbols'])}) and the"
        f" portable kernel for every other operator. Portable and optimized cannot be selected"
        f" separately in this runtime, and the portable twin of an operator the optimized"
        f" library covers is not in the wheel: so the column \"ExecuTorch kernels\" is"
        f" \"ExecuTorch's kernels as linked in the pip runtime\", and each row says which kind"
        f" ran (by symbol name).",
        f"* XNNPACK: the same module lowered with `to_edge_transform_and_lower(partitioner="
        f"[XnnpackPartitioner()])`; `-` where the partitioner delegates nothing.",
        "",
        "## Roofline measured in this run",
        "",
        f"fp32 FMA peak, one core ({roof.isa}, 24 independent FMA chains): **{roof.peak:.1f} GFLOP/s**"
        f" (samples {roof.peak_min:.1f} to {roof.peak_max:.1f}); ENVIRONMENT.md quotes"
        f" {env['peak_avx512_gflops']:.0f} GFLOP/s (AVX-512) for its Cascade Lake machines, DRAM"
        f" {env['dram_gbs']:.0f} GB/s, L2 {env['l2_gbs']:.0f} GB/s: this run's CPU is the one named"
        " above, and every % below is against this run's own measurements. The bold peak and"
        " the table below are the means of the start and end measurements; they are the roofs"
        " of the roofline figure and of every case without a roof of its own. GEMM and"
        " convolution cases have one: the FMA peak measured alongside them, and DRAM and L2"
        " elementwise cases the copy or triad bandwidth of their level measured alongside them"
        " (each loop interleaved with the case's own rounds), as the clock and the bandwidth"
        " of this shared VM move by up to 20% within a run.",
        "", *alongside_peak_lines(rows),
        "Outputs whose arrays (inputs and out) reach half the last-level cache (every DRAM"
        " case) are written by the elementwise kernels with non-temporal (streaming) stores,"
        " which skip the read of each line an ordinary store does first"
        " (ops_optimized/common/stream.h). So in DRAM the copy and triad loops"
        " are measured both ways, and a DRAM case is judged against the better of the two"
        " (streaming, on this machine); in cache ordinary stores are the faster ones."
        " The streaming copy also prefetches every line it reads 2 KiB ahead, as the"
        " unary kernels' streaming loops do (ops_optimized/bench/roofline_avx512.c).",
        "",
        "| level (floats per array) | read GB/s | copy GB/s | triad GB/s |"
        " copy, streaming stores GB/s | triad, streaming stores GB/s |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for level, patterns in roof.bandwidth.items():
        streamed = [f"{patterns[p]:.1f}" if p in patterns else "-"
                    for p in ("copy_stream", "triad_stream")]
        md.append(f"| {level} ({results['bandwidth_floats'][level]}) | {patterns['read']:.1f} |"
                  f" {patterns['copy']:.1f} | {patterns['triad']:.1f} | {streamed[0]} |"
                  f" {streamed[1]} |")
    target_lines, summary = targets(rows, models, roof, results)
    judged = [line for line in target_lines[2:] if line.endswith(("| PASS |", "| **MISS** |"))]
    passes = sum(line.endswith("| PASS |") for line in judged)
    md += ["", "## Targets", "",
           f"{passes} of {len(judged)} judged rows PASS, {len(judged) - passes} MISS. GEMM is"
           " judged against the median of the FMA peak samples measured alongside it (each row"
           " gives it); conv2d against min(that peak of its own, arithmetic intensity x bandwidth"
           " of the level its working set fits in, from the table above); elementwise ops"
           " against the bandwidth of their level and access pattern, judged in DRAM (every op)"
           " and L2 (the ops with a few instructions per element), shown for information"
           " elsewhere (in DRAM against the better of the copy or triad loop with ordinary and"
           " with streaming stores, in L2 against the loop with ordinary ones, each measured"
           " alongside, interleaved with the case's own rounds, since a neighbour on this"
           " shared VM moves the bandwidth one core gets by up to 20% within a run); \"as fast as ExecuTorch\" compares etref's whole execute() of the"
           " one-op program with ExecuTorch's kernel time (see Per operator for how it is timed);"
           " whole models are single-thread latency per forward, judged with the optimized"
           " kernels fused at load (`--fuse`, ops_optimized/fuse/fuse.h: each convolution with"
           " the batch norm and hardtanh/relu after it, and runs of elementwise ops such as"
           " hardswish's five or a residual add + relu in one pass, outputs bit for bit those"
           " of the unfused kernels), the configuration comparable to XNNPACK, which fuses"
           " the same blocks when it is delegated them; the unfused figure is shown beside it.",
           "", *target_lines, ""]
    if summary["slower"]:
        md += ["Cases where etref's optimized kernel is slower than ExecuTorch's kernel"
               " (ratio = ExecuTorch time / etref time; spread = (max - min) / median of etref's"
               " rounds):", "",
               "| case | operator | shape | ExecuTorch kernel | ratio | etref spread |",
               "| --- | --- | --- | --- | --- | --- |"]
        for row, value in summary["slower"]:
            md.append(f"| {row['id']} | `{row['op']}` | {row['label']} | {row['executorch_kernel']}"
                      f" | {value:.2f}x | {100 * spread(row['times']['etref_optimized']):.0f}% |")
        md.append("")
    if models:
        runtimes = model_runtimes(models)
        md += ["## Whole models", "",
               "Per execution of `forward` on the dataset's input: median thread CPU time over"
               f" {results['settings']['model_rounds']} interleaved rounds (min-max in brackets),"
               " minus the runtime's empty-program execute() time (above; for ExecuTorch it is"
               " mostly the Python binding's call, which a C++ caller would not pay)."
               " Each execution runs on inputs set just before it, in both runtimes (the"
               " programs' memory plans give a dead input's bytes to later tensors, so an"
               " execution that does not set them again computes on leftovers); the settings'"
               " own time is measured in a batch of their own and subtracted. The outputs"
               " checked are those of the last timed execution."
               " etref and ExecuTorch run the checked-in `datasets/models/<name>/model.pte`;"
               " the XNNPACK program is lowered from the same model definition, seed and weights"
               " (datasets/generate.py). Outputs are checked against PyTorch eager.", "",
               "| model | " + " | ".join(label for _, label in runtimes)
               + " | optimized vs ExecuTorch | optimized vs XNNPACK | outputs |",
               "| --- | " + " | ".join("---" for _ in runtimes) + " | --- | --- | --- |"]
        for model in models:
            cells = []
            for runtime, _ in runtimes:
                cells.append(f"{fmt_time(model_seconds(model, runtime, results))}"
                             f" ({fmt_time(model_seconds(model, runtime, results, 'min'))}-"
                             f"{fmt_time(model_seconds(model, runtime, results, 'max'))})")
            mine = model_seconds(model, "etref_optimized", results)
            checks = ", ".join(f"{name.replace('executorch', 'et')}"
                               f" {'ok' if check and check.get('ok') else 'DIFF'}"
                               for name, check in model["checks"].items())
            md.append(f"| {model['name']} | " + " | ".join(cells)
                      + f" | {fmt_ratio(model_seconds(model, 'executorch', results) / mine)}"
                      + f" | {fmt_ratio(model_seconds(model, 'executorch_xnnpack', results) / mine)}"
                      + f" | {checks} |")
        md += ["", "![whole models](models.svg)", ""]
        latencies = {m["name"]: {r: model_seconds(m, r, results) for r, _ in runtimes}
                     for m in models}
        svg_charts.models_chart(latencies, runtimes, out / "models.svg")
    md += ["## Per operator", "",
           "Times per execution after subtracting the empty-program time. Speedup = reference /"
           " optimized. Rate = GFLOP/s (GB/s for data movement) of etref optimized; roof = % of"
           " the attainable rate, min(FMA peak, arithmetic intensity x bandwidth) at the case's"
           " level and pattern, with the peak measured alongside the case for GEMM and"
           " convolution and the bandwidth measured alongside it for DRAM and L2 elementwise cases"
           " (the run's start/end figures for the rest)."
           " A convolution's FLOPs are the direct sum's (2 x input channels x kernel taps per"
           " output): a 3x3 stride-1 layer that takes the Winograd F(2x2, 3x3) kernels"
           " (ops_optimized/conv/winograd_avx512.c, 16 products per 2x2 outputs instead of 36)"
           " shows that rate, up to 2.25x the work it does, and so more than 100% of the"
           " FMA peak."
           " vs ET = ExecuTorch kernel time / etref optimized time (> 1: etref is faster), kind"
           " `opt`/`port` = which ExecuTorch kernel ran. Sources: `standard` or the models whose"
           " programs hold that call. check = etref's output against PyTorch eager's on the same inputs (ref/opt; random and uninitialized outputs, marked random, by shape and dtype only). `no kernel`: the wheel has no kernel for the operator (its runtime refuses the program)."
           " ExecuTorch times marked <sup>e</sup> are below 2 us from Python, where the binding's"
           " own call (~1.6 us, subtracted) swamps them; they are the kernel-call time the ETDump"
           " recorded inside ExecuTorch's C++ runtime instead (the kernel alone, no instruction"
           " dispatch: a comparison that favours ExecuTorch). XNNPACK times are always timed from"
           " Python, so a tiny XNNPACK case is within the binding's noise. Cases marked"
           " <sup>f</sup> have a memory plan that gives part of an input's bytes to another value"
           " (split's second output over its input): they are timed back to back as the others"
           " (these data-movement ops take the same time whatever the values) and their outputs"
           " are checked after one more execution on inputs set again.", "",
           "![speedups: vs reference, ExecuTorch, XNNPACK](speedups.svg)", "",
           "![% of roofline](roof_percent.svg)", "", "![roofline](roofline.svg)", ""]
    svg_charts.speedup_chart(rows, out / "speedups.svg")
    svg_charts.roof_percent_chart(rows, out / "roof_percent.svg")
    svg_charts.roofline_chart(rows, roof, out / "roofline.svg")
    for group in ("gemm", "conv", "elementwise", "reduction", "softmax", "norm", "pool",
                  "resample", "movement", "backward", "fft", "quantized", "random"):
        members = [r for r in rows if r["group"] == group]
        if not members:
            continue
        md += [f"### {group}", "",
               "| case | operator | shape | sources | reference | optimized | speedup | rate |"
               " level | roof | ExecuTorch (kind) | vs ET | XNNPACK | vs XNNPACK | spread | check |",
               "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
               " --- | --- | --- |"]
        for r in members:
            unit = "GFLOP/s" if r["flops"] > 0 else "GB/s"
            rate = f"{r['rate']:.1f} {unit}" if r.get("rate") is not None else "-"
            roof_text = f"{r['roof_percent']:.0f}%" if r.get("roof_percent") is not None else "-"
            kind = {"optimized": "opt", "none": "no kernel"}.get(r["executorch_kernel"], "port")
            checks = "/".join("ok" if (r["checks"].get(k) or {}).get("ok") else "DIFF"
                              for k in ("etref_reference", "etref_optimized"))
            sources = ", ".join(r["sources"])
            sources = sources if len(sources) < 40 else sources[:37] + "..."
            md.append(
                f"| {r['id']}{'<sup>f</sup>' if r.get('inputs_reused') else ''} |"
                f" `{r['op'].split('::')[1]}` | {r['label'][:60]} | {sources} |"
                f" {fmt_time(r['etref_reference'])} | {fmt_time(r['etref_optimized'])} |"
                f" {fmt_ratio(ratio(r['etref_reference'], r['etref_optimized']))} | {rate} |"
                f" {r['level']} | {roof_text} | {fmt_time(r['executorch'])}"
                f"{'<sup>e</sup>' if r['executorch_source'] == 'etdump' else ''} ({kind}) |"
                f" {fmt_ratio(ratio(r['executorch'], r['etref_optimized']))} |"
                f" {fmt_time(r['executorch_xnnpack'])} |"
                f" {fmt_ratio(ratio(r['executorch_xnnpack'], r['etref_optimized']))} |"
                f" {100 * spread(r['times']['etref_optimized']):.0f}% | {checks} |")
        md.append("")
    differing = [(r, name) for r in rows for name in ("executorch", "executorch_xnnpack")
                 if (r["checks"].get(name) or {}).get("ok") is False]
    if differing:
        md += ["## ExecuTorch outputs that differ from PyTorch eager", "",
               "Found while checking every runtime against eager on the same inputs (etref's"
               " own checks are in the tables above):", ""]
        runtime_names = {"executorch": "ExecuTorch kernels",
                         "executorch_xnnpack": "ExecuTorch + XNNPACK"}
        md += [f"* `{r['id']}` (`{r['op']}`), {runtime_names[name]}:"
               f" {describe_check(r['checks'][name])}" for r, name in differing]
        md.append("")
    md += coverage_lines(results)
    skipped = [c for c in results["cases"] if "skip" in c]
    if skipped or results.get("skipped_model_calls"):
        md += ["## Not measured", ""]
        md += [f"* `{c['id']}` (`{c['op']}`): {c['skip']}" for c in skipped]
        md += [f"* model call {note}" for note in results.get("skipped_model_calls", [])]
        md.append("")
    (out / "README.md").write_text("\n".join(md) + "\n")


if __name__ == "__main__":
    write(json.loads(Path(sys.argv[1]).read_text()), Path(sys.argv[2]))
