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

run_suite plain
run_suite "ASan+UBSan" --config=asan

# The reference kernel coverage of the Core ATen op list (printed by
# //ops_reference/test:core_op_coverage_test into its log).
coverage_log="$(bazel info bazel-testlogs 2>/dev/null)/ops_reference/test/core_op_coverage_test/test.log"
grep -h "reference coverage:" "$coverage_log" 2>/dev/null | tail -1

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
