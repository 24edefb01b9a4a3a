#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""etref's kernel benchmark (issue 4), one run, side by side:

  * every case of cases.py (standard sizes, and every distinct kernel call
    of the datasets' models) through etref's reference kernels, etref's
    optimized kernels, ExecuTorch's runtime with the kernels its pip wheel
    links (timed from Python, and once more with an ETDump whose kernel-call
    events resolve kernels shorter than the Python binding's call), and
    ExecuTorch with the program lowered to XNNPACK;
  * the whole models (mlp, cnn, mobilenet_v2, transformer, lstm) through
    the same four;
  * this machine's roofline (FMA peak, bandwidth per cache level and
    pattern), measured at the start and the end of the run.

Single thread everywhere: etref is single-threaded; torch, OpenMP, MKL and
ExecuTorch's threadpool (XNNPACK's) are set to one thread before anything
runs. Results go to OUT/results.json; report.py turns them into
OUT/README.md and SVG charts. Run it through ops_optimized/bench/run.sh,
which builds bench_server and picks the interpreter.

    bench.py --server PATH [--out DIR] [--work DIR] [--smoke] [--only REGEX]
             [--rounds N] [--batch-ms MS] [--no-ops] [--no-models]
"""

import os
import sys

# Exports must not depend on hash randomisation (as datasets/generate.py).
if os.environ.get("PYTHONHASHSEED") != "0":
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable] + sys.argv)
for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import datetime  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import re  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, Dict, List  # noqa: E402

sys.path.insert(0, str(Path(__file__).absolute().parent))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import cases as bench_cases  # noqa: E402
import measure  # noqa: E402
import programs  # noqa: E402

BENCH_COMMAND = "ops_optimized/bench/run.sh"
# ../shared/ENVIRONMENT.md, "This machine's measured limits".
ENVIRONMENT_FIGURES = {"peak_avx512_gflops": 147.0, "peak_avx2_gflops": 84.0,
                       "dram_gbs": 12.0, "l2_gbs": 88.0}
# Floats per array of the bandwidth loops, per level (the elementwise cases
# use the same sizes: cases.ELEMENTWISE_LEVELS rows of 1024).
BANDWIDTH_FLOATS = {"L1": 2 * 1024, "L2": 64 * 1024, "L3": 1024 * 1024,
                    "DRAM": 16384 * 1024}
# The copy and triad loops again with non-temporal stores (roofline.h):
# in DRAM an ordinary store also reads each line it writes, so the better
# of the two is the bandwidth a kernel can get there.
STREAM_PATTERNS = ("copy_stream", "triad_stream")
# A conversion to BFloat16 in the smoke run: a case whose out dtype is not
# its input's, and an output numpy cannot hold (compared widened); and a
# split whose plan puts its second output over its input (checked on
# inputs set again).
SMOKE_CASES = ["add-L1", "mm-256", "to-f32-bf16-64x56", "split-2x64x56"]
# Length of one FMA-peak sample interleaved with a GEMM or convolution case
# (at most --batch-ms): the loop is steady, and the ~60 such cases of a full
# run pay it every round (60 x 7 x 4 ms: about 2 s).
PEAK_SAMPLE_SECONDS = 0.004


def log(message: str) -> None:
    print(message, flush=True)


def single_thread() -> None:
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    measure.single_threaded_executorch()


def load_average() -> float:
    with open("/proc/loadavg") as file:
        return float(file.read().split()[0])


def cache_sizes() -> Dict[str, int]:
    sizes = {}
    for index in sorted(Path("/sys/devices/system/cpu/cpu0/cache").glob("index*")):
        try:
            level = (index / "level").read_text().strip()
            kind = (index / "type").read_text().strip()
            text = (index / "size").read_text().strip()
        except OSError:
            continue
        scale = {"K": 1024, "M": 1024 * 1024}.get(text[-1], 1)
        value = int(text.rstrip("KM")) * scale
        if kind in ("Data", "Unified"):
            sizes[f"L{level}"] = value
    return sizes


def machine_info() -> Dict[str, Any]:
    model, flags = "unknown", ""
    ident: Dict[str, str] = {}  # vendor, family, model, stepping: the
    # microarchitecture, which a VM's "model name" often hides
    with open("/proc/cpuinfo") as file:
        for line in file:
            key = line.split(":", 1)[0].strip()
            if key == "model name" and model == "unknown":
                model = line.split(":", 1)[1].strip()
            elif key == "flags" and not flags:
                flags = line.split(":", 1)[1]
            elif key in ("vendor_id", "cpu family", "model", "stepping") and key not in ident:
                ident[key] = line.split(":", 1)[1].strip()
    if ident:
        model += " ({})".format(", ".join(
            f"{k.replace('vendor_id', 'vendor')} {v}" for k, v in ident.items()))
    wanted = ["avx2", "fma", "f16c", "avx512f", "avx512bw", "avx512dq", "avx512vl",
              "avx512_vnni", "avx512_bf16", "amx_tile"]
    return {"cpu": model, "flags": [f for f in wanted if f in flags.split()],
            "cpus": os.cpu_count(), "pinned_to": sorted(os.sched_getaffinity(0)),
            "nice": os.nice(0), "caches": cache_sizes(), "kernel": platform.release(),
            # ETREF_ISA forces etref's kernels to one ISA (ops_optimized/isa.c);
            # the roofline loops still run the machine's widest.
            "etref_isa_forced": os.environ.get("ETREF_ISA") or None,
            "python": platform.python_version(), **programs.versions()}


def executorch_optimized_ops() -> Dict[str, Any]:
    """Which operators the pip wheel serves with an optimized kernel: the
    wheel's pybindings link libexecutorch_kernels_optimized.so, which holds
    ExecuTorch's optimized kernels (opt_*) and, for every other operator,
    its portable kernel; a portable kernel that an optimized one replaces
    is not in the wheel at all."""
    import executorch.version

    library = Path(executorch.version.__file__).parent / "lib" / "libexecutorch_kernels_optimized.so"
    names: List[str] = []
    if library.exists() and shutil.which("nm"):
        listing = subprocess.run(["nm", "-DC", "--defined-only", str(library)],
                                 capture_output=True, text=True).stdout
        names = sorted(set(re.findall(r"native::(opt_\w+)\(", listing)))
    return {"library": str(library), "optimized_symbols": names}


def executorch_kernel_kind(op: str, optimized_symbols: List[str]) -> str:
    base = op.split("::")[1].split(".")[0].lstrip("_")
    if any(s == f"opt_{base}_out" or s.startswith(f"opt_{base}_") for s in optimized_symbols):
        return "optimized"
    return "portable"


def measure_roofline(server: measure.Server, rounds: int, seconds: float,
                     levels: List[str]) -> Dict[str, Any]:
    roof: Dict[str, Any] = {"peak": measure.measure_peak(server, rounds, seconds),
                            "bandwidth": {}}
    for level in levels:
        # Streaming stores only pay for arrays beyond the caches: DRAM.
        patterns = ("read", "copy", "triad") + (STREAM_PATTERNS if level == "DRAM" else ())
        roof["bandwidth"][level] = {
            pattern: measure.measure_bandwidth(server, pattern, BANDWIDTH_FLOATS[level], rounds,
                                               seconds)
            for pattern in patterns}
    return roof


def measure_overhead(server: measure.Server, empty: Dict[str, Any], args) -> Dict[str, Any]:
    directory = Path(empty["dir"])
    inputs = [str(directory / name) for name in empty["inputs"]]
    program = str(directory / "plain.pte")
    etref = measure.EtrefCandidate("etref", server, 15, "optimized", program, inputs)
    executorch = measure.ExecutorchCandidate("executorch", program, inputs)
    result = measure.interleave([etref, executorch], args.rounds * 2, args.batch_ms * 1e-3, 30)
    etref.unload()
    return result


def run_case(case: bench_cases.Case, meta: Dict[str, Any], server: measure.Server, args,
             scratch: Path) -> Dict[str, Any]:
    directory = Path(meta["dir"])
    inputs = [str(directory / name) for name in meta["inputs"]]
    plain = str(directory / "plain.pte")
    reference = measure.EtrefCandidate("etref_reference", server, 0, "reference", plain, inputs)
    optimized = measure.EtrefCandidate("etref_optimized", server, 1, "optimized", plain, inputs)
    # An operator the wheel has no kernel for (its runtime refuses to load
    # the method): etref's two kernels are still timed.
    executorch_missing = None
    try:
        executorch = measure.ExecutorchCandidate("executorch", plain, inputs)
        profiled = measure.ExecutorchProfiledCandidate("executorch_profiled", plain, inputs)
    except RuntimeError as error:
        executorch = profiled = None
        executorch_missing = f"{type(error).__name__}: {str(error)[:200]}"
    candidates: List[measure.Candidate] = [reference, optimized] + (
        [executorch, profiled] if executorch else [])
    xnnpack_meta = meta.get("xnnpack", {})
    xnnpack_failed = None
    if xnnpack_meta.get("delegate_calls", 0) > 0:
        try:
            candidates.append(measure.ExecutorchCandidate(
                "executorch_xnnpack", str(directory / "xnnpack.pte"), inputs))
        except RuntimeError as error:  # its program does not run: not timed
            xnnpack_failed = f"{type(error).__name__}: {str(error)[:200]}"
    # A plan that gives part of an input's bytes to another value (the
    # second output of split over its input) changes what the next
    # execution reads. Such cases are still timed back to back (setting
    # a 4 MiB input before each 1 us diagonal would swamp it, and these
    # data-movement ops take the same time whatever the values), and their
    # outputs are checked after one more execution on inputs set again.
    inputs_reused = optimized.info.get("inputs_reused") == "1"
    # A DRAM or L2 elementwise case is judged against the bandwidth
    # measured in its own interleaved rounds (the pattern
    # report.pattern_of gives it): in DRAM the better of the loop with
    # ordinary and with streaming stores, in L2 the loop with ordinary
    # ones. Besides DRAM bandwidth, a neighbour on this shared VM moves
    # what one core gets from its own L2: hardtanh-L2 read 78% of the L2
    # copy at the run's start and end in one full run, 108% in a
    # single-case run right after, with the same kernel (relu's time).
    sides: List[measure.BandwidthCandidate] = []
    side_level = case.id.rpartition("-")[2]
    if case.group == "elementwise" and side_level in ("DRAM", "L2"):
        pattern = "triad" if case.tensor_args() >= 2 else "copy"
        loops = (pattern, f"{pattern}_stream") if side_level == "DRAM" else (pattern,)
        for loop in loops:
            sides.append(measure.BandwidthCandidate(f"bandwidth_{loop}", server, loop,
                                                    BANDWIDTH_FLOATS[side_level]))
        candidates += sides
    # A compute-bound case (GEMM, convolution) is judged against the FMA
    # peak measured in its own interleaved rounds.
    peak = None
    if case.group in ("gemm", "conv"):
        peak = measure.PeakCandidate("fma_peak", server,
                                     min(PEAK_SAMPLE_SECONDS, args.batch_ms * 1e-3))
        candidates.append(peak)
    # Every runtime's output is checked against PyTorch eager on the same
    # inputs (ExecuTorch's kernels are not an oracle: its nonzero into a
    # [n, 2] out with dim order (1, 0), as the exporter plans it, reads back
    # transposed).
    values = not case.values_random
    expected = eager_outputs(case)
    checks = {c.name: measure.compare_outputs(c.outputs(scratch), expected, values)
              for c in candidates if c not in (profiled, peak, *sides)}
    times = measure.interleave(candidates, args.rounds, args.batch_ms * 1e-3, args.max_seconds)
    # The outputs of the last timed execution too, against the same
    # expectation: a program whose plan overwrote its own inputs would have
    # been timed on leftovers (one whose plan reuses an input's bytes runs
    # once more on inputs set again first).
    for candidate in [c for c in candidates if c.name in checks]:
        if inputs_reused:
            candidate.fresh = True
            candidate.run(1)
        after = measure.compare_outputs(candidate.outputs(scratch), expected, values)
        if after is not None and not after["ok"]:
            checks[candidate.name] = {**after, "why": "outputs after the timed executions"}
    times.pop("executorch_profiled", None)  # its Python-side times include the profiler's
    interleaved = None
    if sides:
        stores = {}
        for side, store in zip(sides, ("ordinary", "streaming")):
            per_pass = times.pop(side.name)["cpu"]
            stores[store] = {"gbs": side.bytes_per_pass / per_pass["median"] * 1e-9,
                             "gbs_min": side.bytes_per_pass / per_pass["max"] * 1e-9,
                             "gbs_max": side.bytes_per_pass / per_pass["min"] * 1e-9}
        best = max(stores, key=lambda store: stores[store]["gbs"])
        interleaved = {"pattern": sides[0].pattern, "floats": sides[0].floats,
                       "level": side_level, **stores[best], "store": best,
                       "stores": stores}
    peak_interleaved = None
    if peak is not None:
        peak_times = times.pop(peak.name)
        per_execution = peak_times["cpu"]
        flops = peak.flops_per_execution
        peak_interleaved = {"gflops": flops / per_execution["median"] * 1e-9,
                            "gflops_min": flops / per_execution["max"] * 1e-9,
                            "gflops_max": flops / per_execution["min"] * 1e-9,
                            "rounds": per_execution["n"],
                            "sample_ms": per_execution["median"] * peak_times["iterations"] * 1e3}
    executorch_kernel = profiled.kernel_times(scratch / "case.etdp") if profiled else None
    reference.unload()
    optimized.unload()
    info = optimized.info
    extra = {"executorch_missing": executorch_missing} if executorch_missing else {}
    if xnnpack_failed:
        extra["xnnpack_failed"] = xnnpack_failed
    return {"flops": float(info["flops"]), "bytes": float(info["bytes"]),
            "cost_class": info["class"], "has_optimized": info["has_optimized"] == "1",
            "inputs_reused": inputs_reused, **extra,
            "times": times, "executorch_etdump": executorch_kernel, "checks": checks,
            "bandwidth_interleaved": interleaved, "peak_interleaved": peak_interleaved}


def eager_outputs(case: bench_cases.Case) -> List[np.ndarray]:
    """The case's outputs from PyTorch eager, on the inputs its program was
    exported with (the same seed)."""
    module, inputs = bench_cases.build_module(case, bench_cases.case_seed(case))
    with torch.no_grad():
        result = module(*inputs)
    results = list(result) if isinstance(result, (tuple, list)) else [result]
    # BFloat16 widened to float32 (exact), as etref and ExecuTorch's
    # outputs are read back.
    return [(t.float() if t.dtype == torch.bfloat16 else t).contiguous().numpy()
            for t in results]


def run_model(name: str, server: measure.Server, args, scratch: Path) -> Dict[str, Any]:
    program = str(programs.MODELS_DIR / name / "model.pte")
    inputs = programs.model_inputs(name)
    xnnpack_path, xnnpack_meta = programs.export_model_xnnpack(name, Path(args.work))
    # Every execution on inputs set just before it (fresh): the memory plans
    # of these programs give an input's bytes to later tensors, so a run
    # that does not set them again computes on leftovers (both runtimes).
    candidates = [
        measure.EtrefCandidate("etref_reference", server, 0, "reference", program, inputs,
                               fresh=True),
        measure.EtrefCandidate("etref_optimized", server, 1, "optimized", program, inputs,
                               fresh=True),
        measure.EtrefCandidate("etref_fused", server, 2, "fused", program, inputs, fresh=True),
        measure.ExecutorchCandidate("executorch", program, inputs, fresh=True),
        measure.ExecutorchCandidate("executorch_xnnpack", xnnpack_path, inputs, fresh=True),
    ]
    expected = [np.load(p) for p in programs.model_expected(name)]
    times = measure.interleave(candidates, args.model_rounds, args.model_batch_ms * 1e-3,
                               args.max_seconds)
    # The outputs of the last timed execution: what was timed computed the
    # right thing.
    checks = {c.name: measure.compare_outputs(c.outputs(scratch), expected) for c in candidates}
    info = candidates[1].info
    for candidate in candidates[:3]:
        candidate.unload()
    return {"name": name, "flops": float(info["flops"]), "instructions": int(info["instructions"]),
            "xnnpack_program": {k: v for k, v in xnnpack_meta.items() if k != "versions"},
            "times": times, "checks": checks}


def select_cases(args) -> (List[bench_cases.Case], List[str]):
    standard = bench_cases.standard_cases()
    if args.smoke:
        return [c for c in standard if c.id in SMOKE_CASES], []
    from_models, notes = bench_cases.model_cases(programs.MODELS_DIR)
    selected = standard + from_models
    if args.only:
        pattern = re.compile(args.only)
        selected = [c for c in selected if pattern.search(c.id) or pattern.search(c.op)]
    return selected, notes


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", required=True, help="bench_server binary")
    parser.add_argument("--out", default=str(programs.REPO / "reports" / "bench"))
    parser.add_argument("--work", default=os.path.join(
        os.environ.get("XDG_CACHE_HOME", os.path.expanduser("~/.cache")), "etref", "bench"))
    parser.add_argument("--smoke", action="store_true",
                        help="four small cases (SMOKE_CASES), the mlp model, two rounds (a check,"
                        " not numbers)")
    parser.add_argument("--only", help="cases whose id or operator matches this regex")
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--batch-ms", type=float, default=10.0)
    parser.add_argument("--model-rounds", type=int, default=21)
    parser.add_argument("--model-batch-ms", type=float, default=20.0)
    parser.add_argument("--max-seconds", type=float, default=6.0,
                        help="per candidate and case; slower candidates get fewer rounds")
    parser.add_argument("--no-ops", action="store_true")
    parser.add_argument("--no-models", action="store_true")
    args = parser.parse_args()
    if args.smoke:
        args.rounds, args.batch_ms, args.model_rounds, args.model_batch_ms = 2, 1.0, 2, 2.0
    warnings.filterwarnings("ignore")
    single_thread()
    out, work = Path(args.out), Path(args.work)
    out.mkdir(parents=True, exist_ok=True)
    work.mkdir(parents=True, exist_ok=True)
    started = time.time()
    loads = [load_average()]
    results: Dict[str, Any] = {
        "command": BENCH_COMMAND + (" --smoke" if args.smoke else ""),
        "date": datetime.datetime.now().astimezone().isoformat(timespec="seconds"),
        "machine": machine_info(), "environment_md": ENVIRONMENT_FIGURES,
        "settings": {k: v for k, v in vars(args).items() if k not in ("server", "out", "work")},
        "executorch_kernels": executorch_optimized_ops(),
        "bandwidth_floats": BANDWIDTH_FLOATS,
        "timing": ("thread CPU time (time.thread_time_ns / CLOCK_THREAD_CPUTIME_ID) of batches "
                   "of back-to-back execute() calls on a loaded method, per execution, each "
                   f"batch after {measure.WARMUP_SECONDS * 1e3:g} ms of untimed ones (a program "
                   "whose memory sat idle for a few ms ran slower for its next 1-3 ms on the "
                   "shared VMs measured: ops_optimized/bench/gap_probe.py); single-op "
                   "figures minus the runtime's own execute() time on an empty program; wall "
                   "time recorded beside it. For single-op cases ExecuTorch is also run with an"
                   " ETDump, whose kernel-call events (timed inside the C++ runtime) give its"
                   " kernel time without the Python binding's call"),
    }
    cases, skipped_notes = ([], []) if args.no_ops else select_cases(args)
    log(f"{len(cases)} cases; exporting what the cache ({work}) lacks")
    metas = {}
    for i, case in enumerate(cases):
        metas[case.id] = programs.export_case(case, work)
        if (i + 1) % 20 == 0:
            log(f"  exported {i + 1}/{len(cases)}")
    empty = programs.export_empty(work)
    server = measure.Server(args.server)
    levels = ["L1", "L2"] if args.smoke else list(BANDWIDTH_FLOATS)
    roof_rounds = 1 if args.smoke else args.rounds
    roof_seconds = 0.005 if args.smoke else 0.05
    log("measuring the roofline")
    results["roofline_start"] = measure_roofline(server, roof_rounds, roof_seconds, levels)
    results["overhead_start"] = measure_overhead(server, empty, args)
    kinds = results["executorch_kernels"]["optimized_symbols"]
    results["cases"] = []
    with tempfile.TemporaryDirectory(prefix="etref-bench-") as scratch_name:
        scratch = Path(scratch_name)
        for i, case in enumerate(cases):
            meta = metas[case.id]
            record = {"id": case.id, "group": case.group, "op": case.op, "label": case.label(),
                      "sources": case.sources, "note": case.note,
                      "tensor_args": case.tensor_args(),
                      "executorch_kernel": executorch_kernel_kind(case.op, kinds),
                      "more_work": case.more_work,
                      "xnnpack": meta.get("xnnpack", {})}
            if meta.get("preserved"):
                record["note"] = (record["note"] + "; " if record["note"] else "") + (
                    "kept whole by EdgeCompileConfig.preserve_ops (to_edge decomposes it"
                    " by default)")
            if meta.get("extra_calls"):
                record["note"] = (record["note"] + "; " if record["note"] else "") + (
                    "the program also runs " + ", ".join(meta["extra_calls"])
                    + " (the exporter copies a view that is the output)")
            if "skip" in meta:
                record["skip"] = meta["skip"]
            else:
                try:
                    record.update(run_case(case, meta, server, args, scratch))
                    if "executorch_missing" in record:
                        record["executorch_kernel"] = "none"
                except (measure.ServerError, RuntimeError) as error:
                    record["skip"] = f"{type(error).__name__}: {str(error)[:300]}"
            loads.append(load_average())
            results["cases"].append(record)
            status = record.get("skip", "")
            if not status:
                t = record["times"]
                status = " ".join(f"{k}={v['cpu']['median'] * 1e6:.1f}us" for k, v in t.items())
            log(f"[{i + 1}/{len(cases)}] {case.id}: {status}")
        results["overhead_end"] = measure_overhead(server, empty, args)
        results["models"] = []
        if not args.no_models:
            for name in (["mlp"] if args.smoke else programs.WHOLE_MODELS):
                log(f"model {name}")
                results["models"].append(run_model(name, server, args, scratch))
                loads.append(load_average())
    results["roofline_end"] = measure_roofline(server, roof_rounds, roof_seconds, levels)
    server.close()
    loads.append(load_average())
    results["skipped_model_calls"] = skipped_notes
    registered = bench_cases.registered_operators(programs.REPO)
    if registered:  # (registry.c is not in the smoke test's runfiles)
        results["operator_coverage"] = {
            "registered": registered, "not_benchmarked": bench_cases.NOT_BENCHMARKED,
            "selected": args.only or ""}
    results["load"] = {"samples": loads, "min": min(loads), "median": statistics.median(loads),
                       "max": max(loads)}
    results["elapsed_seconds"] = time.time() - started
    (out / "results.json").write_text(json.dumps(results, indent=1))
    import report

    report.write(results, out)
    log(f"wrote {out / 'README.md'} in {results['elapsed_seconds']:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
