#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The whole test suite, from a fresh Debian machine: installs what it needs
# (scripts/install_deps.sh), then runs `bazel test //...` twice, plainly and
# under ASan+UBSan (--config=asan). Ends with one line "N passed, N failed"
# counting test targets over both configurations (a configuration that fails
# to build counts as one failure). Exit status 0 only when nothing failed.
set -uo pipefail

cd "$(dirname "$0")/.."
scripts/install_deps.sh || { echo "0 passed, 1 failed"; exit 1; }

# Tests that cross-check etref with ExecuTorch's own Python tools (the
# devtools Inspector reading etref's ETDump: //prof/test:inspector_test)
# get the interpreter through ETREF_PYTHON: the caller's, else the project's
# .venv, which datasets/install.sh creates (and only checks when it is
# already there). Without it those tests fail, saying why.
if [ -z "${ETREF_PYTHON:-}" ]; then
  if datasets/install.sh >&2; then
    ETREF_PYTHON="$PWD/.venv/bin/python"
  else
    echo "test.sh: datasets/install.sh failed: the Python cross-checks will fail" >&2
  fi
fi
python_env=(--test_env=ETREF_PYTHON="${ETREF_PYTHON:-}")

passed=0
failed=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

run_suite() {
  local label=$1
  shift
  echo "=== bazel test //... $* ($label)"
  bazel test //... "$@" 2>&1 | tee "$log"
  local status=${PIPESTATUS[0]}
  local p f
  p=$(grep -cE '^//[^ ]+ +(\(cached\) )?PASSED' "$log")
  f=$(grep -cE '^//[^ ]+ +(\(cached\) )?(FAILED|TIMEOUT|FLAKY|NO STATUS|FAILED TO BUILD|INCOMPLETE)' "$log")
  if [ "$status" -ne 0 ] && [ "$f" -eq 0 ]; then
    f=1  # the build itself failed before any test ran
  fi
  passed=$((passed + p))
  failed=$((failed + f))
}

run_suite plain "${python_env[@]}"
# Tests tagged not_under_asan build nothing the sanitizers see (the aarch64
# cross build under qemu): the plain pass covers them.
run_suite "ASan+UBSan" --config=asan --test_tag_filters=-not_under_asan \
  "${python_env[@]}"

# The reference kernel coverage of the Core ATen op list (printed by
# //ops_reference/test:core_op_coverage_test into its log).
coverage_log="$(bazel info bazel-testlogs 2>/dev/null)/ops_reference/test/core_op_coverage_test/test.log"
grep -h "reference coverage:" "$coverage_log" 2>/dev/null | tail -1

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
