#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Regenerates the sample profile reports under reports/profile/<model>/
# (each report also names its own command): every dataset model etref can
# run, with its recorded inputs, 20 timed runs after 3 warm-ups, reference
# and optimized kernels, and ExecuTorch side by side when ETREF_PYTHON (or
# .venv/bin/python) has an ExecuTorch whose wheel writes ETDump (1.5+).
# Usage (from anywhere): reports/profile/regenerate.sh [MODEL...]
set -euo pipefail

cd "$(dirname "$0")/../.."
# (the binary may be given as ETREF to skip the build)
etref="${ETREF:-}"
if [ -z "$etref" ]; then
  bazel build //:etref >&2
  etref="$(bazel info bazel-bin 2>/dev/null)/cli/etref"
fi
m=datasets/models

# model name, then the arguments after PROGRAM
declare -A args=(
  [mlp]="$m/mlp/model.pte --input $m/mlp/input_0.npy"
  [cnn]="$m/cnn/model.pte --input $m/cnn/input_0.npy"
  [mobilenet_v2]="$m/mobilenet_v2/model.pte --input $m/mobilenet_v2/input_0.npy"
  [transformer]="$m/transformer/model.pte --input $m/transformer/input_0.npy"
  [lstm]="$m/lstm/model.pte --input $m/lstm/input_0.npy"
  [mutable_buffer]="$m/mutable_buffer/model.pte --input $m/mutable_buffer/call0_input_0.npy"
  [cond]="$m/cond/model.pte --input $m/cond/case0_input_0.npy"
  [dynamic_shape]="$m/dynamic_shape/model.pte --input $m/dynamic_shape/case1_input_0.npy"
  [bundled_mlp]="$m/bundled_mlp/model.bpte"
  [mlp_external]="$m/mlp_external/model.pte --data $m/mlp_external/model.ptd --input $m/mlp_external/input_0.npy"
  [mlp_inline_constants]="$m/mlp_inline_constants/model.pte --input $m/mlp_inline_constants/input_0.npy"
  [delegate_demo_inline]="$m/delegate_demo_inline/model.pte --input $m/delegate_demo_inline/input_0.npy --input $m/delegate_demo_inline/input_1.npy --input $m/delegate_demo_inline/input_2.npy"
  [delegate_demo_segment]="$m/delegate_demo_segment/model.pte --input $m/delegate_demo_segment/input_0.npy --input $m/delegate_demo_segment/input_1.npy --input $m/delegate_demo_segment/input_2.npy"
  # The optimized kernels fused at load (--fuse): reference vs fused.
  [cnn_fused]="$m/cnn/model.pte --input $m/cnn/input_0.npy --fuse"
  [mobilenet_v2_fused]="$m/mobilenet_v2/model.pte --input $m/mobilenet_v2/input_0.npy --fuse"
  [transformer_fused]="$m/transformer/model.pte --input $m/transformer/input_0.npy --fuse"
)
order=(cnn mlp mobilenet_v2 transformer lstm mutable_buffer cond dynamic_shape
       bundled_mlp mlp_external mlp_inline_constants delegate_demo_inline
       delegate_demo_segment cnn_fused mobilenet_v2_fused transformer_fused)
if [ $# -gt 0 ]; then
  order=("$@")
fi

for model in "${order[@]}"; do
  echo "== $model" >&2
  rm -rf "reports/profile/$model"
  # shellcheck disable=SC2086  # the argument lists above split on spaces
  "$etref" profile ${args[$model]} --runs 20 --warmup 3 --kernels both \
    --report "reports/profile/$model" --quiet
done
