#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The benchmark command works end to end, in seconds: bench.py --smoke
# (four small cases, add-L1, mm-256 with its FMA peak measured
# alongside, a Float to BFloat16 conversion and a split whose plan puts an
# output over its input (its outputs are checked after an execution on
# inputs set again; without that they differ), and the mlp
# model, two rounds each, against ExecuTorch's
# runtime and XNNPACK) with bench_server, into a temporary
# directory; check_report.py then checks what it wrote, including the
# shape of mm-256's peak_interleaved (positive GFLOP/s, min <= median <=
# max, rounds, sample length) and that add-L1 has none. No timing is
# asserted (the machine may be loaded); outputs must agree.
#
# Needs a Python with ExecuTorch (the project's .venv) named by ETREF_PYTHON,
# which scripts/test.sh passes with --test_env. Without it this test FAILS,
# saying so (as //prof/test:inspector_test).
#
# Then gap_probe.py runs briefly on the add-L1 case and must print its two
# lines (one per runtime).
#
# Arguments: bench_server, bench.py, check_report.py, gap_probe.py.
set -euo pipefail

server="$1"
bench="$2"
check="$3"
probe="$4"
python="${ETREF_PYTHON:-}"

if [ -z "$python" ]; then
  echo "bench_smoke_test: FAIL: ETREF_PYTHON is not set. This test runs ExecuTorch's" \
       "runtime beside etref: run scripts/test.sh, or bazel test" \
       "--test_env=ETREF_PYTHON=\$PWD/.venv/bin/python after datasets/install.sh" >&2
  exit 1
fi
if [ ! -x "$python" ]; then
  echo "bench_smoke_test: FAIL: ETREF_PYTHON=$python is not an executable interpreter" >&2
  exit 1
fi
scratch="${TEST_TMPDIR:-$(mktemp -d)}"
export HOME="$scratch"
"$python" "$bench" --server "$server" --smoke --out "$scratch/out" --work "$scratch/work"
"$python" "$check" "$scratch/out"
# The after-pause probe (measure.WARMUP_SECONDS) runs on one of those
# cases: a line of batch times per pause, for etref and ExecuTorch.
case_dir="$(ls -d "$scratch"/work/cases/add-L1-* | head -n 1)"
probe_lines="$("$python" "$probe" --server "$server" --case "$case_dir" \
  --pause-ms 1 --pauses 1 --batches 3 --batch 2 |
  grep -cE '^(etref_optimized|executorch): us per execution, batch by batch after the pause:( [0-9.]+){3}$')"
if [ "$probe_lines" != 2 ]; then
  echo "bench_smoke_test: FAIL: gap_probe.py printed $probe_lines of its 2 lines" >&2
  exit 1
fi
echo "bench_smoke_test: PASS"
