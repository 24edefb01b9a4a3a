#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The optimized-coverage report: runs every differential test of
# ops_optimized/ (the x86 ones and, unless --no-aarch64, the aarch64 build
# under qemu for NEON) with ETREF_DIFF_COVERAGE set, so each optimized run
# records op, dtype, layout, ISA and whether it specialized or fell back
# (ops_optimized/test/diff.c); inspects every dataset model with
# `etref inspect`; and writes reports/ops/optimized_coverage.md
# (coverage_report.py) naming the commit it reflects.
#
#   ops_optimized/tools/coverage.sh [--no-aarch64] [--out FILE]
#
# ETREF_BAZEL_STARTUP adds Bazel startup options (e.g. a private
# --output_base); ETREF_COVERAGE_KEEP=DIR keeps the raw records
# (coverage.csv) and model inspections there. Test failures do not stop the report (it reflects what
# ran) but make the script exit 1.
set -uo pipefail

cd "$(dirname "$0")/../.."
aarch64=1
out=reports/ops/optimized_coverage.md
while [ $# -gt 0 ]; do
  case "$1" in
    --no-aarch64) aarch64=0 ;;
    --out) shift; out=$1 ;;
    *) echo "usage: $0 [--no-aarch64] [--out FILE]" >&2; exit 2 ;;
  esac
  shift
done

# shellcheck disable=SC2206
bazel=(bazel ${ETREF_BAZEL_STARTUP:-})
if [ -n "${ETREF_COVERAGE_KEEP:-}" ]; then
  work=$ETREF_COVERAGE_KEEP
  mkdir -p "$work"
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
csv="$work/coverage.csv"
: > "$csv"

# The benchmark package's tests (bench_smoke_test needs ETREF_PYTHON and
# records no differential runs) are not coverage: leave them out.
targets=$("${bazel[@]}" query \
  'tests(//ops_optimized/...) except tests(//ops_optimized/bench/...)' \
  2>/dev/null)
if [ "$aarch64" -eq 0 ]; then
  targets=$(echo "$targets" | grep -v aarch64)
fi
status=0
# shellcheck disable=SC2086
"${bazel[@]}" test --nocache_test_results \
  --test_env=ETREF_DIFF_COVERAGE="$csv" $targets || status=1

"${bazel[@]}" build //cli:etref || exit 1
etref="$("${bazel[@]}" info bazel-bin 2>/dev/null)/cli/etref"
mkdir -p "$work/inspect"
for model in datasets/models/*/; do
  name=$(basename "$model")
  program=$(ls "$model"model.pte "$model"model.bpte 2>/dev/null | head -n 1)
  [ -n "$program" ] || continue
  "$etref" inspect "$program" > "$work/inspect/$name.txt" 2>&1 || true
done

commit="commit $(git rev-parse --short HEAD)"
if [ -n "$(git status --porcelain --untracked-files=no -- ops_optimized)" ] ||
   [ -n "$(git status --porcelain -- 'ops_optimized/op_*.c')" ]; then
  commit="$commit plus uncommitted ops_optimized/ changes in the worktree"
fi
python3 ops_optimized/tools/coverage_report.py --csv "$csv" \
  --inspect-dir "$work/inspect" --commit "$commit" --out "$out" || exit 1
exit $status
