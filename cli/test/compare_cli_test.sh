#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# `etref compare` and `--delegate` as a user runs them: exit codes (0
# agree, 3 diverge, 1 usage / unreadable file, 2 invalid input), the JSON
# and HTML/Markdown outputs, every candidate kind (optimized, delegate
# library, .npy outputs, ETDump), bundled test sets, and clean refusals of
# bad policies, maps, ETDumps and libraries.
#
# usage: compare_cli_test.sh ETREF VENDOR_SO BAD_VERSION_SO
set -u
etref=$1
vendor=$2
bad_version=$3
tmp=${TEST_TMPDIR:-$(mktemp -d)}
cnn=datasets/models/cnn
oracle=datasets/oracle
failures=0

# shellcheck source=cli/test/expect.sh
source "$(dirname "$0")/expect.sh"

unset ETREF_EXAMPLE_FAULT

expect 0 "optimized kernels agree on the CNN" -- \
  "$etref" compare $cnn/model.pte --candidate optimized \
  --input $cnn/input_0.npy --json "$tmp/opt.json" --report "$tmp/report"
contains "$tmp/opt.json" '"schema": "etref-compare", "version": 1' "json schema"
contains "$tmp/opt.json" '"verdict": "agree", "exit_code": 0' "json verdict"
contains "$tmp/opt.json" '"tolerance_model": ' "json states the tolerance model"
contains "$tmp/report/compare.html" "Tolerance model" "html report"
contains "$tmp/report/compare.md" "## Tolerance model" "markdown report"
contains "$tmp/report/compare.md" "etref compare datasets/models/cnn/model.pte" \
  "the report names the command that regenerates it"

expect 0 "seeded random inputs by default" -- \
  "$etref" compare datasets/models/mlp/model.pte --candidate optimized --quiet
contains "$tmp/out.txt" "verdict: agree (exit 0)" "quiet verdict line"

map=(--reference-program $cnn/model.pte --map $oracle/cnn_vendor/map.json)
expect 0 "the un-faulted vendor library agrees" -- \
  "$etref" compare $oracle/cnn_vendor/model.pte --candidate "delegate:$vendor" \
  "${map[@]}" --input $oracle/cnn_vendor/input_0.npy
contains "$tmp/err.txt" "replaces the one already registered" \
  "the library says it replaces the built-in backend"

export ETREF_EXAMPLE_FAULT=off_by_one
expect 3 "an off-by-one vendor diverges" -- \
  "$etref" compare $oracle/cnn_vendor/model.pte --candidate "delegate:$vendor" \
  "${map[@]}" --input $oracle/cnn_vendor/input_0.npy --json "$tmp/obo.json"
contains "$tmp/obo.json" '"first_diverging_op": {"index": 4, "chain": 0, "instruction": 4, "occurrence": 0, "operator": "aten::convolution.out"}' \
  "localized to the second convolution"
contains "$tmp/obo.json" '"verdict": "diverge", "exit_code": 3' "json verdict"
unset ETREF_EXAMPLE_FAULT

expect 0 "bundled test sets as inputs (all)" -- \
  "$etref" compare $oracle/cnn_vendor/model.bpte --bundled \
  --candidate "delegate:$vendor" "${map[@]}" --json "$tmp/bundled.json"
contains "$tmp/bundled.json" '"name": "bundled test set 1", "bundled_test_set": 1' \
  "both test sets judged"
expect 0 "one bundled test set" -- \
  "$etref" compare datasets/models/bundled_mlp/model.bpte --bundled \
  --test-set 2 --candidate optimized
expect 1 "a test set the bundle lacks" -- \
  "$etref" compare datasets/models/bundled_mlp/model.bpte --bundled \
  --test-set 7 --candidate optimized
expect 1 "--bundled without a bundle" -- \
  "$etref" compare $cnn/model.pte --bundled --candidate optimized
# ExecuTorch's outputs for each bundled test set (datasets/generate.py ran
# the bundle's inputs through its runtime): the test set's inputs judge
# them, and another test set's outputs diverge.
bundled=datasets/models/bundled_mlp
expect 0 "a bundled test set judges ExecuTorch's outputs for it" -- \
  "$etref" compare $bundled/model.bpte --bundled --test-set 1 \
  --candidate outputs:$bundled/case1_executorch_output_0.npy \
  --json "$tmp/bundled_outputs.json"
contains "$tmp/bundled_outputs.json" '"bundled_test_set": 1' \
  "the case names its test set"
expect 3 "outputs of another test set diverge" -- \
  "$etref" compare $bundled/model.bpte --bundled --test-set 2 \
  --candidate outputs:$bundled/case1_executorch_output_0.npy
expect 1 "one execution's outputs against every test set" -- \
  "$etref" compare $bundled/model.bpte --bundled \
  --candidate outputs:$bundled/case1_executorch_output_0.npy
contains "$tmp/err.txt" "--test-set K" "the refusal says what to add"
expect 0 "an ETDump of a bundled test set" -- \
  "$etref" profile $bundled/model.bpte --runs 1 --kernels optimized \
  --etdump "$tmp/bundled.etdp" --debug-buffer "$tmp/bundled.bin" \
  --executorch off
expect 0 "a bundled test set judges that ETDump" -- \
  "$etref" compare $bundled/model.bpte --bundled --test-set 0 \
  --candidate "etdump:$tmp/bundled.etdp"
expect 2 "the ETDump holds no run of another test set" -- \
  "$etref" compare $bundled/model.bpte --bundled --test-set 1 \
  --candidate "etdump:$tmp/bundled.etdp"
contains "$tmp/err.txt" "no block with debug events for bundled test set 1" \
  "the refusal names the test set"

expect 0 "ExecuTorch's outputs as .npy (directory)" -- \
  "$etref" compare $cnn/model.pte --candidate outputs:$cnn \
  --input $cnn/input_0.npy
expect 0 "outputs as a file list" -- \
  "$etref" compare $cnn/model.pte \
  --candidate outputs:$cnn/executorch_output_0.npy --input $cnn/input_0.npy
expect 1 "outputs without the inputs that made them" -- \
  "$etref" compare $cnn/model.pte --candidate outputs:$cnn
expect 1 "an outputs file that does not exist" -- \
  "$etref" compare $cnn/model.pte --candidate outputs:$tmp/none.npy \
  --input $cnn/input_0.npy

expect 0 "an ETDump to compare" -- \
  "$etref" profile $cnn/model.pte --kernels optimized --runs 1 \
  --input $cnn/input_0.npy --etdump "$tmp/cnn.etdp" \
  --debug-buffer "$tmp/cnn.bin" --executorch off
expect 0 "ETDump candidate (debug buffer found beside it)" -- \
  "$etref" compare $cnn/model.pte --candidate "etdump:$tmp/cnn.etdp" \
  --input $cnn/input_0.npy
cp "$tmp/cnn.etdp" "$tmp/alone.etdp"
expect 1 "ETDump tensors without a debug buffer" -- \
  "$etref" compare $cnn/model.pte --candidate "etdump:$tmp/alone.etdp" \
  --input $cnn/input_0.npy
expect 2 "a malformed ETDump" -- \
  "$etref" compare $cnn/model.pte --candidate "etdump:$cnn/manifest.json" \
  --input $cnn/input_0.npy

expect 0 "program outputs only" -- \
  "$etref" compare $cnn/model.pte --candidate optimized \
  --input $cnn/input_0.npy --intermediates off --json "$tmp/off.json"
contains "$tmp/off.json" '"ops": []' "no op judged"

printf '{"format": "etref-oracle-policy", "version": 1, "classes": {"movement": {"exact": false, "abs_eps": 1e6}}}' >"$tmp/policy.json"
expect 0 "a policy file" -- \
  "$etref" compare $cnn/model.pte --candidate optimized \
  --input $cnn/input_0.npy --policy "$tmp/policy.json" --json "$tmp/pol.json"
contains "$tmp/pol.json" "$tmp/policy.json" "the policy's source is stated"
printf '{"format": "etref-oracle-policy", "version": 1, "classes": {"movment": {}}}' >"$tmp/bad_policy.json"
expect 2 "a malformed policy" -- \
  "$etref" compare $cnn/model.pte --candidate optimized \
  --input $cnn/input_0.npy --policy "$tmp/bad_policy.json"
contains "$tmp/err.txt" "unknown class: movment" "the policy error says why"
expect 1 "an unreadable policy" -- \
  "$etref" compare $cnn/model.pte --candidate optimized \
  --input $cnn/input_0.npy --policy "$tmp/missing.json"
printf '{"format": "etref-oracle-map", "version": 1, "entries": [{"candidate": {}}]}' >"$tmp/bad_map.json"
expect 2 "a malformed map" -- \
  "$etref" compare $oracle/cnn_vendor/model.pte --candidate "delegate:$vendor" \
  --reference-program $cnn/model.pte --map "$tmp/bad_map.json" \
  --input $oracle/cnn_vendor/input_0.npy

expect 1 "a delegate library that does not exist" -- \
  "$etref" compare $oracle/cnn_vendor/model.pte \
  --candidate "delegate:$tmp/libnone.so" --input $oracle/cnn_vendor/input_0.npy
expect 2 "a delegate library of another ABI version" -- \
  "$etref" compare $oracle/cnn_vendor/model.pte \
  --candidate "delegate:$bad_version" --input $oracle/cnn_vendor/input_0.npy
contains "$tmp/err.txt" "speaks etref delegate ABI version 99" "why it is refused"
expect 2 "--delegate on run refuses a bad library" -- \
  "$etref" run $cnn/model.pte --delegate "$bad_version" --quiet
expect 0 "--delegate on run" -- \
  "$etref" run $oracle/cnn_vendor/model.pte --delegate "$vendor" \
  --input $oracle/cnn_vendor/input_0.npy \
  --expected $oracle/cnn_vendor/eager_output_0.npy --quiet
expect 0 "--delegate on profile" -- \
  "$etref" profile $oracle/cnn_vendor/model.pte --delegate "$vendor" \
  --runs 1 --input $oracle/cnn_vendor/input_0.npy --executorch off

expect 1 "no --candidate" -- "$etref" compare $cnn/model.pte
expect 1 "an unknown candidate kind" -- \
  "$etref" compare $cnn/model.pte --candidate magic
expect 1 "an unknown option" -- \
  "$etref" compare $cnn/model.pte --candidate optimized --frobnicate 1
expect 1 "a program that does not exist" -- \
  "$etref" compare $tmp/none.pte --candidate optimized
expect 0 "help" -- "$etref" compare --help

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
