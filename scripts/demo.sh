#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# The main job on a bundled model: runs the CNN from datasets/ through etref
# (its recorded input, checked against PyTorch eager's output) and prints the
# outputs and a per-operator timing table over 20 runs after 3 warm-ups, and
# again with the optimized kernels fused at load (--fuse); then
# profiles it (`etref profile`: reference and optimized kernels, ExecuTorch
# side by side when .venv has an ExecuTorch that writes ETDump) and writes
# the report (report.html, its Markdown twin README.md, CSV, JSON, ETDump)
# to a temporary directory it names, or to $ETREF_REPORT_DIR.
# Installs what it needs first (scripts/install_deps.sh), idempotently.
# Extra arguments are passed to `etref run` (e.g. --kernels optimized).
set -euo pipefail

cd "$(dirname "$0")/.."
scripts/install_deps.sh
model=datasets/models/cnn
bazel build //:etref >&2
etref="$(bazel info bazel-bin 2>/dev/null)/cli/etref"
status=0
"$etref" run "$model/model.pte" \
  --input "$model/input_0.npy" \
  --expected "$model/eager_output_0.npy" --rtol 1e-4 --atol 1e-5 \
  --runs 20 --warmup 3 "$@" || status=$?

echo
echo "== the same with the optimized kernels fused at load (--fuse)"
"$etref" run "$model/model.pte" \
  --input "$model/input_0.npy" \
  --expected "$model/eager_output_0.npy" --rtol 1e-4 --atol 1e-5 \
  --runs 20 --warmup 3 --kernels optimized --fuse || status=$?

report="${ETREF_REPORT_DIR:-$(mktemp -d /tmp/etref-profile-cnn.XXXXXX)}"
echo
echo "== etref profile (report in $report)"
if "$etref" profile "$model/model.pte" --input "$model/input_0.npy" \
  --runs 20 --warmup 3 --kernels both \
  --report "$report" --etdump "$report/etref.etdp"; then
  echo "profile report: $report/report.html (Markdown: $report/README.md)"
else
  status=$?
fi
exit "$status"
