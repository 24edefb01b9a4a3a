#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Paired A/B runs of a kernel benchmark (gemm_bench) or of two etref builds.

The machines this project is measured on are shared VMs whose figures
drift 10-20% within minutes, so running an old and a new build one after
the other cannot see a 2-5% change. Here both builds run at the same time,
each pinned to one of two CPUs, and swap CPUs every round; each round
gives one new/old ratio, and the median of the ratios is the verdict (the
same binary against itself gave ratios 0.97-1.02, median 1.000, on the
Intel Xeon of 2026-11-29).

  # snapshot a build (the binary and the bazel .so files it loads):
  bazel build -c opt //ops_optimized/tools:gemm_bench
  ops_optimized/tools/paired.py snap bazel-bin/ops_optimized/tools/gemm_bench /tmp/old
  # ... change the code, rebuild, snapshot /tmp/new, then:
  ops_optimized/tools/paired.py run /tmp/old /tmp/new --rounds 6 \\
      --only 512x512x512 --only 'nchw 64x56^2 k3'

Whole programs, through two snapshots of the etref CLI (its per-instruction
table: p50 of each instruction and the whole run's median):

  bazel build -c opt //cli:etref
  ops_optimized/tools/paired.py snap bazel-bin/cli/etref /tmp/old
  ops_optimized/tools/paired.py program /tmp/old /tmp/new \
      datasets/models/resnet/model.pte \
      --input datasets/models/resnet/input_0.npy --fuse --instr 4 --instr 23

Each --only is passed to the benchmark's own --only and picks the output
line containing it; the rate is that line's first "<number> GFLOP/s",
"<number> GB/s" (gemm_bench's lines) or "<number> Gel/s"
(bench_elementwise's best ISA in G elements/s: `paired.py run OLD NEW
--only "tanh f32" -- --elements 16384`); a benchmark that prints bare
numbers needs one of those first. Extra benchmark arguments follow "--"
(e.g. -- --isa avx2). Needs two CPUs and taskset.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys

RATE = re.compile(r"([0-9.]+) (GFLOP/s|GB/s|Gel/s)")


def snap(binary: str, directory: str) -> None:
    """Copies `binary` and every .so it loads from a bazel tree."""
    if os.path.exists(directory):
        shutil.rmtree(directory)
    os.makedirs(directory)
    shutil.copy(os.path.realpath(binary), directory)
    listing = subprocess.run(["ldd", binary], capture_output=True, text=True,
                             check=True).stdout
    for path in re.findall(r"=> (\S+)", listing):
        if "_solib" in path or "bazel-out" in path:  # under the name loaded
            shutil.copy(os.path.realpath(path),
                        os.path.join(directory, os.path.basename(path)))


def start(directory: str, cpu: int, only: str, extra: list):
    binary = [name for name in os.listdir(directory) if not name.endswith(".so")]
    if len(binary) != 1:
        sys.exit(f"paired: {directory} must hold one binary and its .so files")
    env = dict(os.environ, LD_LIBRARY_PATH=directory)
    return subprocess.Popen(
        ["taskset", "-c", str(cpu), os.path.join(directory, binary[0]),
         "--only", only] + extra,
        env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)


def rate(output: str, only: str):
    for line in output.splitlines():
        found = RATE.search(line)
        if found and only in line:
            return float(found.group(1)), found.group(2)
    return None


def run(args) -> int:
    ratios = {only: [] for only in args.only}
    rates = {only: {"old": [], "new": []} for only in args.only}
    unit = {}
    for round_index in range(args.rounds):
        for only in args.only:
            cpus = {"old": round_index % 2, "new": 1 - round_index % 2}
            runs = {side: start(getattr(args, side), cpus[side], only,
                                args.extra)
                    for side in ("old", "new")}
            measured = {}
            for side, process in runs.items():
                found = rate(process.communicate()[0], only)
                if found is None:
                    sys.exit(f"paired: no rate for '{only}' from {side}")
                measured[side], unit[only] = found
                rates[only][side].append(found[0])
            ratios[only].append(measured["new"] / measured["old"])
    for only in args.only:
        r = ratios[only]
        print(f"{only:30s} old {statistics.median(rates[only]['old']):8.1f}"
              f"  new {statistics.median(rates[only]['new']):8.1f}"
              f" {unit[only]:8s} new/old median {statistics.median(r):.3f}"
              f" (min {min(r):.3f}, max {max(r):.3f})")
    return 0


INSTRUCTION = re.compile(r"^\s*(\d+) \S+\s+\d+\s+[\d.]+\s+([\d.]+)\s")
WHOLE = re.compile(r"whole run: median ([\d.]+)")


def program_times(output: str) -> dict:
    """p50 us per instruction index and the whole run's median ("whole")."""
    times = {}
    for line in output.splitlines():
        found = INSTRUCTION.match(line)
        if found:
            times[found.group(1)] = float(found.group(2))
        found = WHOLE.search(line)
        if found:
            times["whole"] = float(found.group(1))
    return times


def program(args) -> int:
    keys = args.instr + ["whole"]
    ratios = {key: [] for key in keys}
    times = {key: {"old": [], "new": []} for key in keys}
    command = ["run", args.program, "--kernels", "optimized", "--runs",
               str(args.runs), "--warmup", "20"]
    for path in args.input:
        command += ["--input", path]
    if args.fuse:
        command.append("--fuse")
    for round_index in range(args.rounds):
        cpus = {"old": round_index % 2, "new": 1 - round_index % 2}
        runs = {}
        for side in ("old", "new"):
            directory = getattr(args, side)
            env = dict(os.environ, LD_LIBRARY_PATH=directory)
            runs[side] = subprocess.Popen(
                ["taskset", "-c", str(cpus[side]),
                 os.path.join(directory, "etref")] + command,
                env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                text=True)
        measured = {side: program_times(process.communicate()[0])
                    for side, process in runs.items()}
        for key in keys:
            if key not in measured["old"] or key not in measured["new"]:
                sys.exit(f"paired: no time for instruction '{key}'")
            for side in ("old", "new"):
                times[key][side].append(measured[side][key])
            ratios[key].append(measured["new"][key] / measured["old"][key])
    for key in keys:
        r = ratios[key]
        print(f"{key:>6s}: old {statistics.median(times[key]['old']):9.2f} us"
              f"  new {statistics.median(times[key]['new']):9.2f} us"
              f"  new/old median {statistics.median(r):.3f}"
              f" (min {min(r):.3f}, max {max(r):.3f})")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    snap_parser = commands.add_parser("snap", help="snapshot a build")
    snap_parser.add_argument("binary")
    snap_parser.add_argument("directory")
    run_parser = commands.add_parser("run", help="paired rounds")
    run_parser.add_argument("old")
    run_parser.add_argument("new")
    run_parser.add_argument("--rounds", type=int, default=6)
    run_parser.add_argument("--only", action="append", required=True)
    program_parser = commands.add_parser(
        "program", help="paired rounds of two etref CLI builds on a program")
    program_parser.add_argument("old")
    program_parser.add_argument("new")
    program_parser.add_argument("program")
    program_parser.add_argument("--input", action="append", default=[])
    program_parser.add_argument("--fuse", action="store_true")
    program_parser.add_argument("--rounds", type=int, default=6)
    program_parser.add_argument("--runs", type=int, default=300)
    program_parser.add_argument("--instr", action="append", default=[],
                                help="instruction index (repeat)")
    argv = sys.argv[1:]
    extra = []
    if "--" in argv:  # the benchmark's own arguments
        extra = argv[argv.index("--") + 1:]
        argv = argv[:argv.index("--")]
    args = parser.parse_args(argv)
    args.extra = extra
    if args.command == "snap":
        snap(args.binary, args.directory)
        return 0
    if args.command == "program":
        return program(args)
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
