#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The kernel benchmark (issue 4): etref's reference and optimized kernels,
# ExecuTorch's kernels and ExecuTorch + XNNPACK on the same programs, one
# thread, in one interleaved run; writes reports/bench/ (README.md, SVG
# charts, results.json). A full run takes minutes (longer the first time:
# every case is exported with ExecuTorch into the work directory,
# ${XDG_CACHE_HOME:-~/.cache}/etref/bench, and reused after that).
#
#   ops_optimized/bench/run.sh [--smoke] [--only REGEX] [--out DIR]
#                              [--rounds N] [--no-models] ...
#
# Installs what it needs the way scripts/test.sh does (scripts/install_deps.sh,
# datasets/install.sh for the .venv); the interpreter is $ETREF_PYTHON when
# set. The load on a shared machine changes every figure: run it when
# `uptime` is low; the report records the load it saw.
set -euo pipefail

cd "$(dirname "$0")/../.."
if [ -z "${ETREF_PYTHON:-}" ]; then
  scripts/install_deps.sh >&2
  datasets/install.sh >&2
  ETREF_PYTHON="$PWD/.venv/bin/python"
fi
bazel build -c opt //ops_optimized/bench:bench_server >&2
server="$(bazel info -c opt bazel-bin 2>/dev/null)/ops_optimized/bench/bench_server"
# One core for both processes (bench.py and bench_server take turns, never
# run at once): the measurement is single-threaded and does not migrate.
# ETREF_BENCH_CPU picks the core (default: the last one).
cpu="${ETREF_BENCH_CPU:-$(($(nproc) - 1))}"
pin=()
if command -v taskset >/dev/null; then
  pin=(taskset -c "$cpu")
fi
exec "${pin[@]}" "$ETREF_PYTHON" ops_optimized/bench/bench.py --server "$server" "$@"
