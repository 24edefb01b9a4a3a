#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# cases_check.py with the project's Python (ETREF_PYTHON, which
# scripts/test.sh passes with --test_env; without it this test FAILS,
# saying so, as bench_smoke_test).
#
# Arguments: cases_check.py.
set -euo pipefail

python="${ETREF_PYTHON:-}"
if [ -z "$python" ] || [ ! -x "$python" ]; then
  echo "cases_check_test: FAIL: ETREF_PYTHON (${python:-unset}) is not an interpreter with" \
       "ExecuTorch: run scripts/test.sh, or bazel test" \
       "--test_env=ETREF_PYTHON=\$PWD/.venv/bin/python after datasets/install.sh" >&2
  exit 1
fi
export HOME="${TEST_TMPDIR:-$(mktemp -d)}"
exec "$python" "$1"
