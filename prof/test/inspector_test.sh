#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# etref's ETDump read by ExecuTorch's real devtools Inspector: profiles the
# CNN (with a capture run: debug events and a debug buffer) and the demo
# delegate model with `etref profile`, then inspector_check.py opens each
# .etdp with executorch.devtools.Inspector and checks names, counts,
# instruction ids and times against what etref measured.
#
# Needs a Python with ExecuTorch (the project's .venv; datasets/install.sh
# makes it) named by ETREF_PYTHON, which scripts/test.sh passes with
# --test_env. Without it this test FAILS, saying so: it never passes
# silently.
#
# Arguments: the etref binary, inspector_check.py.
set -euo pipefail

etref="$1"
check="$2"
python="${ETREF_PYTHON:-}"

if [ -z "$python" ]; then
  echo "inspector_test: FAIL: ETREF_PYTHON is not set. This test needs a Python with" \
       "ExecuTorch's devtools to run its Inspector: run scripts/test.sh, or" \
       "bazel test --test_env=ETREF_PYTHON=\$PWD/.venv/bin/python after datasets/install.sh" >&2
  exit 1
fi
if [ ! -x "$python" ]; then
  echo "inspector_test: FAIL: ETREF_PYTHON=$python is not an executable interpreter" >&2
  exit 1
fi
export HOME="${TEST_TMPDIR:-/tmp}"
if ! "$python" -c 'import executorch.devtools' 2>/dev/null; then
  echo "inspector_test: FAIL: $python cannot import executorch.devtools (install the" \
       "pinned toolchain with datasets/install.sh)" >&2
  exit 1
fi

out="${TEST_TMPDIR:-$(mktemp -d)}"
models=datasets/models

"$etref" profile "$models/cnn/model.pte" --input "$models/cnn/input_0.npy" \
  --kernels reference --runs 3 --warmup 1 --overhead-runs 0 --counters off \
  --executorch off --quiet \
  --etdump "$out/cnn.etdp" --debug-buffer "$out/cnn.bin" --json "$out/cnn.json"
"$python" "$check" "$out/cnn.etdp" "$out/cnn.json" \
  --debug-buffer "$out/cnn.bin" --expected "$models/cnn/eager_output_0.npy"

"$etref" profile "$models/delegate_demo_inline/model.pte" \
  --input "$models/delegate_demo_inline/input_0.npy" \
  --input "$models/delegate_demo_inline/input_1.npy" \
  --input "$models/delegate_demo_inline/input_2.npy" \
  --kernels optimized --runs 4 --warmup 1 --overhead-runs 0 --counters off \
  --executorch off --quiet --etdump "$out/demo.etdp" --json "$out/demo.json"
"$python" "$check" "$out/demo.etdp" "$out/demo.json" --delegate

echo "inspector_test: PASS"
