#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# `etref run --fuse` and `etref profile --fuse` as a user runs them: the
# fused run matches eager and writes byte-identical outputs to the unfused
# optimized run; --fuse without the optimized kernels, and --fuse with
# --debug-buffer (whose intermediates a fused block never writes), are
# usage errors (exit 1); the profile report says what was fused and labels
# the absorbed rows.
#
# usage: fuse_cli_test.sh ETREF
set -u
etref=$1
tmp=${TEST_TMPDIR:-$(mktemp -d)}
failures=0

# shellcheck source=cli/test/expect.sh
source "$(dirname "$0")/expect.sh"

for model in cnn mobilenet_v2 transformer; do
  dir=datasets/models/$model
  expect 0 "$model fused matches eager" -- "$etref" run "$dir/model.pte" \
    --input "$dir/input_0.npy" --kernels optimized --fuse \
    --expected "$dir/eager_output_0.npy" --output-dir "$tmp/$model.fused"
  contains "$tmp/out.txt" "fused:" "$model run says what it fused"
  expect 0 "$model unfused" -- "$etref" run "$dir/model.pte" \
    --input "$dir/input_0.npy" --kernels optimized --quiet \
    --output-dir "$tmp/$model.plain"
  if cmp -s "$tmp/$model.fused/output_0.npy" "$tmp/$model.plain/output_0.npy"; then
    echo "ok: $model fused and unfused outputs are byte-identical"
  else
    echo "FAIL: $model fused and unfused outputs differ"
    failures=$((failures + 1))
  fi
done

cnn=datasets/models/cnn
expect 1 "--fuse needs the optimized kernels" -- "$etref" run \
  "$cnn/model.pte" --input "$cnn/input_0.npy" --fuse
contains "$tmp/err.txt" "--fuse needs --kernels optimized" "says why"
expect 1 "--fuse with --debug-buffer" -- "$etref" profile "$cnn/model.pte" \
  --input "$cnn/input_0.npy" --kernels optimized --fuse \
  --etdump "$tmp/x.etdp" --debug-buffer "$tmp/x.bin" --executorch off
contains "$tmp/err.txt" "do not go together" "says why"
expect 0 "profile --fuse" -- "$etref" profile "$cnn/model.pte" \
  --input "$cnn/input_0.npy" --kernels optimized --fuse --runs 3 \
  --warmup 1 --executorch off --counters off --report "$tmp/report" --quiet
contains "$tmp/report/README.md" "- fusion: optimized kernels fused at load" \
  "report says what was fused"
contains "$tmp/report/README.md" "fused into previous" "absorbed rows labelled"
contains "$tmp/report/README.md" "folded at load" "folded rows labelled"

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "all passed"
