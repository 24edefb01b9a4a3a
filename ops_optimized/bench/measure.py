# SPDX-License-Identifier: Apache-2.0
"""Timing, side by side: etref (through bench_server) and ExecuTorch (its
runtime, in this process) on the same programs, interleaved.

Every candidate is something that executes a loaded program: etref with its
reference kernels, etref with its optimized kernels, ExecuTorch's runtime
with the kernels its pip wheel links, and ExecuTorch with the program
lowered to XNNPACK. A measurement is `rounds` rounds; in each round every
candidate runs one batch of back-to-back executions (about `batch_seconds`
of CPU time, after untimed warm-up executions: interleave()), in an order that rotates
from round to round, so the candidates see the same machine state and no
one always goes first. A sample is the batch's time per execution, in
thread CPU time (what the executing thread used: other processes on a
shared machine do not count) and wall time. Results are medians over the
rounds with their spread.

Single-op times subtract the runtime's own per-execute overhead, measured on
a program with no instructions (export_empty) in the same way.
"""

import re
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np
import torch


class ServerError(RuntimeError):
    pass


class Server:
    """bench_server, driven over a pipe (one request, one reply line)."""

    def __init__(self, binary: str) -> None:
        self.process = subprocess.Popen([binary], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True, bufsize=1)

    def request(self, line: str) -> Dict[str, str]:
        assert self.process.stdin is not None and self.process.stdout is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        reply = self.process.stdout.readline().strip()
        if not reply:
            raise ServerError(f"bench_server exited (request: {line[:200]})")
        if not reply.startswith("ok"):
            raise ServerError(reply[6:] if reply.startswith("error") else reply)
        return dict(re.findall(r"(\w+)=(\S+)", reply))

    def close(self) -> None:
        """Ends the server; a failing exit (a sanitizer's report) is an error."""
        try:
            self.request("quit")
        except (ServerError, BrokenPipeError, OSError):
            pass
        status = self.process.wait(timeout=60)
        if status != 0:
            raise ServerError(f"bench_server exited with status {status}")


class Candidate:
    """Something that executes a loaded program `n` times and reports the
    thread CPU and wall nanoseconds of the whole batch. `gross_cpu_ns` is
    the last batch's thread CPU time with everything the batch cost (a
    fresh candidate's input settings too): interleave() sizes batches by
    it, as the net time of a tiny operator can be ~0 once the settings are
    subtracted."""

    name = ""
    gross_cpu_ns = 0

    def run(self, n: int) -> tuple:
        raise NotImplementedError

    def outputs(self, directory: Path) -> List[np.ndarray]:
        return []


class EtrefCandidate(Candidate):
    """etref through bench_server. With `fresh`, every execution runs on
    inputs set just before it (bench_server's `time ... fresh`, which times
    the settings alone as well and subtracts them): whole models need it,
    as their memory plans hand an input's bytes to later tensors."""

    def __init__(self, name: str, server: Server, slot: int, variant: str, program: str,
                 inputs: Sequence[str], fresh: bool = False) -> None:
        self.name, self.server, self.slot, self.fresh = name, server, slot, fresh
        self.info = server.request(f"load {slot} {variant} {program} {' '.join(inputs)}")

    def run(self, n: int) -> tuple:
        reply = self.server.request(f"time {self.slot} {n}" + (" fresh" if self.fresh else ""))
        cpu = int(reply["cpu_ns"])
        self.gross_cpu_ns = cpu + int(reply.get("inputs_cpu_ns", 0))
        return cpu, int(reply["wall_ns"])

    def outputs(self, directory: Path) -> List[np.ndarray]:
        path = directory / f"etref_{self.slot}_output.npy"
        self.server.request(f"save {self.slot} 0 {path}")
        return [np.load(path)]

    def unload(self) -> None:
        self.server.request(f"unload {self.slot}")


class BandwidthCandidate(Candidate):
    """The roofline's bandwidth loop (bench_server `bandwidth`: PATTERN over
    arrays of FLOATS) as a candidate: interleaved with a memory-bound case,
    it gives the bandwidth the machine had during that case's own rounds
    (a neighbour on a shared VM can move DRAM bandwidth by 20% within a
    run). Times are per pass; bytes_per_pass converts them to GB/s."""

    def __init__(self, name: str, server: Server, pattern: str, floats: int) -> None:
        self.name, self.server, self.pattern, self.floats = name, server, pattern, floats
        self.bytes_per_pass = 0.0

    def run(self, n: int) -> tuple:
        reply = self.server.request(f"bandwidth {self.pattern} {self.floats} {n}")
        self.bytes_per_pass = float(reply["bytes"]) / n
        return int(reply["cpu_ns"]), int(reply["wall_ns"])


class PeakCandidate(Candidate):
    """The roofline's FMA-peak loop (bench_server `peak`: 24 independent FMA
    chains) as a candidate: interleaved with a compute-bound case, it gives
    the peak the core had during that case's own rounds (this shared VM's
    clock moves by up to 20% within a run: one run measured 215 GFLOP/s at
    its start and then GEMM at 102-105% of it). It runs in bench_server's
    one thread, on the CPU run.sh pins, timed in thread CPU time, as the
    etref candidates are.

    One execution is `unit` loop iterations (~30 microseconds), so that
    interleave()'s one-execution calibration is not swamped by the request's
    own cost (one iteration takes ~4 ns); a sample is `batch_seconds` long,
    shorter than the other candidates' (the loop is steady, and each
    compute-bound case pays it every round). Times are per execution;
    flops_per_execution converts them to GFLOP/s."""

    unit = 8192

    def __init__(self, name: str, server: Server, batch_seconds: float) -> None:
        self.name, self.server, self.batch_seconds = name, server, batch_seconds
        self.flops_per_execution = 0.0

    def run(self, n: int) -> tuple:
        reply = self.server.request(f"peak {n * self.unit}")
        self.flops_per_execution = float(reply["flops"]) / n
        return int(reply["cpu_ns"]), int(reply["wall_ns"])


def single_threaded_executorch() -> None:
    """ExecuTorch's pybindings start a threadpool of one thread per core,
    which XNNPACK and the optimized kernels use: timed in the calling
    thread's CPU time, a two-thread XNNPACK run counts about half its work
    (measured on an exported ResNet-like model, pinned to one CPU: 0.52 ms
    of thread time, 0.99 ms of process time and wall time). Every
    ExecuTorch candidate runs on one thread, as etref does."""
    from executorch.extension.pybindings import portable_lib

    if portable_lib._threadpool_get_thread_count() != 1:
        portable_lib._unsafe_reset_threadpool(1)
    if portable_lib._threadpool_get_thread_count() != 1:
        raise RuntimeError("cannot make ExecuTorch's threadpool single-threaded")


class ExecutorchCandidate(Candidate):
    """ExecuTorch's runtime through its Python bindings: inputs are set once
    (set_inputs) and execute() runs the method on them. With `fresh`, as
    EtrefCandidate's: set_inputs before every execute(), a batch of
    set_inputs alone timed first and subtracted (ExecuTorch's planner gives
    a dead input's bytes to later tensors; its runtime, like etref's, then
    runs a second execute() on what the first left there)."""

    def __init__(self, name: str, program: str, inputs: Sequence[str],
                 fresh: bool = False) -> None:
        from executorch.extension.pybindings import portable_lib

        single_threaded_executorch()
        self.name, self.fresh = name, fresh
        self.program = portable_lib._load_program(program)
        self.method = self.program.load_method("forward")
        self.inputs = [torch.from_numpy(np.load(p)) for p in inputs]
        self.method.set_inputs(self.inputs)
        self.method.execute()

    def run(self, n: int) -> tuple:
        execute, set_inputs, inputs = self.method.execute, self.method.set_inputs, self.inputs
        if not self.fresh:
            wall = time.perf_counter_ns()
            cpu = time.thread_time_ns()
            for _ in range(n):
                execute()
            cpu = time.thread_time_ns() - cpu
            wall = time.perf_counter_ns() - wall
            self.gross_cpu_ns = cpu
            return cpu, wall
        settings_wall = time.perf_counter_ns()
        settings_cpu = time.thread_time_ns()
        for _ in range(n):
            set_inputs(inputs)
        settings_cpu = time.thread_time_ns() - settings_cpu
        settings_wall = time.perf_counter_ns() - settings_wall
        wall = time.perf_counter_ns()
        cpu = time.thread_time_ns()
        for _ in range(n):
            set_inputs(inputs)
            execute()
        cpu = time.thread_time_ns() - cpu
        wall = time.perf_counter_ns() - wall
        self.gross_cpu_ns = cpu + settings_cpu
        return max(cpu - settings_cpu, 0), max(wall - settings_wall, 0)

    def outputs(self, directory: Path) -> List[np.ndarray]:
        # BFloat16 has no numpy dtype: widened to float32 (exact), as
        # etref's .npy writer (core/npy.h) saves it.
        return [(t.float() if t.dtype == torch.bfloat16 else t).numpy().copy()
                for t in self.method.get_outputs() if isinstance(t, torch.Tensor)]


class ExecutorchProfiledCandidate(ExecutorchCandidate):
    """ExecuTorch's runtime with an ETDump: the runtime itself records how
    long each kernel call took (its `native_call_<op>` events, in the C++
    runtime, 10 ns ticks), so a kernel that takes less time than the Python
    binding's own execute() call (about 1.6 us) is still resolved. Its
    batches are capped at `max_batch` executions, as every execution adds
    events to the dump; the Python-side times of these batches are not used
    (they include the profiler's own cost)."""

    max_batch = 200

    def __init__(self, name: str, program: str, inputs: Sequence[str]) -> None:
        from executorch.extension.pybindings import portable_lib

        single_threaded_executorch()
        self.name, self.fresh = name, False
        self.program = portable_lib._load_program(program, enable_etdump=True)
        self.method = self.program.load_method("forward")
        self.inputs = [torch.from_numpy(np.load(p)) for p in inputs]
        self.method.set_inputs(self.inputs)
        self.method.execute()

    def kernel_times(self, path: Path) -> Dict[str, Any]:
        """Per execution: the sum of the program's kernel calls
        (`kernel`) and the runtime's whole Method::execute (`execute`,
        which includes the profiler's events), as stats over every
        execution recorded (the calibration and warm-ups included: the
        median discounts them)."""
        from executorch.devtools import Inspector

        self.program.write_etdump_result_to_file(str(path))
        inspector = Inspector(etdump_path=str(path))
        kernel: Optional[np.ndarray] = None
        execute: List[float] = []
        for block in inspector.event_blocks:
            for event in block.events:
                if event.perf_data is None:
                    continue
                raw = np.asarray(event.perf_data.raw, dtype=np.float64) * 1e-3  # ms -> s
                if event.name.startswith("native_call_"):
                    kernel = raw if kernel is None or len(kernel) != len(raw) else kernel + raw
                elif event.name == "Method::execute":
                    execute = list(raw)
        if kernel is None or not len(kernel):
            raise RuntimeError("the ETDump holds no kernel call events")
        return {"kernel": _stats(list(kernel)), "execute": _stats(execute) if execute else None}


def _stats(values: List[float]) -> Dict[str, float]:
    return {"median": statistics.median(values), "min": min(values), "max": max(values),
            "n": len(values)}


# Untimed executions before every timed batch, in CPU seconds. On this
# project's shared VMs a program whose memory nothing touched for a few
# milliseconds runs slower for the next 1-3 ms of executions, whatever ran
# in between (a sleep, a busy loop, another candidate), in etref and in
# ExecuTorch alike: etref's clone of a 1x64x56x56 tensor took 40-60 us
# for its first executions after a 7 ms pause, 23 us from about the 60th
# on (ops_optimized/bench/gap_probe.py shows it). With a single warm-up
# execution, the candidate that follows the slow reference kernel in the
# rotation (etref's optimized kernels, in every single-op case) paid that
# in every batch: clone-64x56 measured 27.5-29 us against 23 us with this
# warm-up, while ExecuTorch, following a short batch, measured the same
# either way.
WARMUP_SECONDS = 0.005


def interleave(candidates: Sequence[Candidate], rounds: int, batch_seconds: float,
               max_seconds: float) -> Dict[str, Dict[str, Any]]:
    """Per candidate: median/min/max seconds per execution (thread CPU and
    wall) over the rounds, the batch size and the number of rounds. A
    candidate slower than max_seconds per round-set gets fewer rounds (at
    least one timed execution); one with a `batch_seconds` of its own
    (PeakCandidate) gets batches of that length. Batches are sized from
    the time of a warm batch (the first execution alone is cold), and each
    is preceded by WARMUP_SECONDS of untimed executions (at most a batch's
    worth; one for a candidate slower than that)."""
    plan = {}
    for candidate in candidates:
        cpu, wall = candidate.run(1)
        single = max(candidate.gross_cpu_ns, cpu, 1) * 1e-9
        slow = single > 0.2  # the calibration execution is the first sample
        batch = getattr(candidate, "batch_seconds", batch_seconds)
        warm_seconds = min(WARMUP_SECONDS, batch)
        if not slow:
            # Calibrated again on executions after the first (cold) one.
            n = max(1, int(warm_seconds / single))
            n = min(n, getattr(candidate, "max_batch", n))
            cpu, _ = candidate.run(n)
            single = max(candidate.gross_cpu_ns, cpu, 1) * 1e-9 / n
        iterations = 1 if slow else max(1, int(batch / single))
        iterations = min(iterations, getattr(candidate, "max_batch", iterations))
        warmup = max(1, min(iterations, int(warm_seconds / single)))
        planned = rounds
        if single * iterations * rounds > max_seconds:
            planned = max(1, int(max_seconds / (single * iterations)))
        plan[candidate.name] = {"iterations": iterations, "warmup": warmup,
                                "rounds": planned, "slow": slow,
                                "cpu": [cpu * 1e-9] if slow else [],
                                "wall": [wall * 1e-9] if slow else []}
    for r in range(rounds):
        shift = r % len(candidates)
        for candidate in list(candidates[shift:]) + list(candidates[:shift]):
            entry = plan[candidate.name]
            if len(entry["cpu"]) >= entry["rounds"]:
                continue
            if not entry["slow"]:
                candidate.run(entry["warmup"])  # after the other candidates ran
            n = entry["iterations"]
            cpu, wall = candidate.run(n)
            entry["cpu"].append(cpu * 1e-9 / n)
            entry["wall"].append(wall * 1e-9 / n)
    result = {}
    for name, entry in plan.items():
        result[name] = {"cpu": _stats(entry["cpu"]), "wall": _stats(entry["wall"]),
                        "iterations": entry["iterations"], "rounds": len(entry["cpu"])}
    return result


# ---------------------------------------------------------------------------
# The roofline, measured in the same run
# ---------------------------------------------------------------------------

def _calibrated(run: Callable[[int], tuple], target_seconds: float, start: int) -> int:
    n = start
    while True:
        cpu, _ = run(n)
        if cpu * 1e-9 >= target_seconds / 4 or n > 1 << 40:
            return max(1, int(n * target_seconds / max(cpu * 1e-9, 1e-9)))
        n *= 8


def measure_peak(server: Server, rounds: int, seconds: float) -> Dict[str, Any]:
    def run(n: int) -> tuple:
        reply = server.request(f"peak {n}")
        run.flops = float(reply["flops"]) / n
        return int(reply["cpu_ns"]), int(reply["wall_ns"])

    n = _calibrated(run, seconds, 1 << 16)
    samples = []
    for _ in range(rounds):
        cpu, _ = run(n)
        samples.append(run.flops * n / (cpu * 1e-9) * 1e-9)
    return {"gflops": _stats(samples), "isa": server.request("machine")["isa"]}


def measure_bandwidth(server: Server, pattern: str, floats: int, rounds: int,
                      seconds: float) -> Dict[str, float]:
    def run(passes: int) -> tuple:
        reply = server.request(f"bandwidth {pattern} {floats} {passes}")
        run.bytes = float(reply["bytes"]) / passes
        return int(reply["cpu_ns"]), int(reply["wall_ns"])

    passes = _calibrated(run, seconds, 1)
    samples = []
    for _ in range(rounds):
        cpu, _ = run(passes)
        samples.append(run.bytes * passes / (cpu * 1e-9) * 1e-9)
    return _stats(samples)


def compare_outputs(actual: List[np.ndarray], expected: List[np.ndarray],
                    values: bool = True) -> Optional[Dict[str, Any]]:
    """Max |actual - expected| over the first output, scaled by max |expected|
    (complex values as their real and imaginary parts); without `values`
    (random or uninitialized outputs) shapes and dtypes only."""
    if not actual or not expected:
        return None
    a, e = actual[0], expected[0]
    if a.shape != e.shape:
        return {"ok": False, "why": f"shape {a.shape} vs {e.shape}"}
    if not values:
        return {"ok": a.dtype == e.dtype, "why": f"shapes and dtypes only ({a.dtype}, {e.dtype})"}
    if a.dtype.kind == "c" or e.dtype.kind == "c":
        a = np.stack([a.real, a.imag])
        e = np.stack([e.real, e.imag])
    if a.dtype.kind in "biu" or e.dtype.kind in "biu":
        mismatches = int(np.count_nonzero(a != e))
        return {"ok": mismatches == 0, "mismatches": mismatches}
    a64, e64 = a.astype(np.float64), e.astype(np.float64)
    finite = np.isfinite(e64)
    if not np.array_equal(finite, np.isfinite(a64)):
        return {"ok": False, "why": "non-finite values differ"}
    diff = float(np.max(np.abs(a64[finite] - e64[finite]), initial=0.0))
    scale = float(np.max(np.abs(e64[finite]), initial=0.0))
    return {"ok": diff <= 1e-3 * max(scale, 1.0), "max_abs_diff": diff, "scale": scale}
