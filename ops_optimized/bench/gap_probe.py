# SPDX-License-Identifier: Apache-2.0
"""How a program runs in the milliseconds after a pause: the probe behind
measure.WARMUP_SECONDS.

For etref's optimized kernels (through bench_server) and ExecuTorch's
runtime (in this process), on one benchmark case: `--pauses` times, pause
(sleep) `--pause-ms`, then time `--batches` batches of `--batch`
executions back to back and print each batch's thread CPU time per
execution. On the shared VMs this project is measured on, both runtimes
start slow after a pause of a few milliseconds and settle within 1-3 ms
of executions (etref's clone-64x56: 40-60 us, then 23 us).

  taskset -c 1 .venv/bin/python ops_optimized/bench/gap_probe.py \\
      --server "$(bazel info -c opt bazel-bin)/ops_optimized/bench/bench_server" \\
      --case ~/.cache/etref/bench/cases/clone-64x56-<hash>

(bazel build -c opt //ops_optimized/bench:bench_server first; run.sh
exports the cases.)
"""

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import measure  # noqa: E402


def probe(candidate: measure.Candidate, args) -> None:
    for _ in range(args.pauses):
        time.sleep(args.pause_ms * 1e-3)
        per_execution = []
        for _ in range(args.batches):
            cpu, _ = candidate.run(args.batch)
            per_execution.append(f"{cpu / args.batch * 1e-3:.1f}")
        print(f"{candidate.name}: us per execution, batch by batch after the pause: "
              + " ".join(per_execution))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--server", required=True, help="bench_server binary")
    parser.add_argument("--case", required=True,
                        help="a case directory of the benchmark's cache (plain.pte, input_*.npy)")
    parser.add_argument("--pause-ms", type=float, default=7.0)
    parser.add_argument("--pauses", type=int, default=3)
    parser.add_argument("--batches", type=int, default=12)
    parser.add_argument("--batch", type=int, default=10)
    args = parser.parse_args()
    case = Path(args.case)
    program = str(case / "plain.pte")
    inputs = [str(p) for p in sorted(case.glob("input_*.npy"))]
    server = measure.Server(args.server)
    try:
        etref = measure.EtrefCandidate("etref_optimized", server, 0, "optimized", program, inputs)
        probe(etref, args)
        probe(measure.ExecutorchCandidate("executorch", program, inputs), args)
    finally:
        server.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
