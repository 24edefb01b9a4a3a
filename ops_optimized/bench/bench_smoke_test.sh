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
# Arguments: bench_server, bench.py, check_report.py.
set -euo pipefail

server="$1"
bench="$2"
check="$3"
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
echo "bench_smoke_test: PASS"
