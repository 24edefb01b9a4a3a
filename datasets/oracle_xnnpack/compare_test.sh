#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# etref compare judges every checked-in XNNPACK ETDump of
# datasets/oracle_xnnpack/ against the non-delegated reference program, as
# reports/oracle/regenerate.sh does, and each must agree (exit 0): XNNPACK's
# fp32 and int8 results are within the oracle's tolerance policy, op by op
# for the per-op programs. A change to the judge, the maps or the data that
# flips a verdict fails here first. Also: the JSON names the map and the
# ETDump, and a broken map is refused (exit 2), not judged.
#
# Usage (Bazel passes it): compare_test.sh ETREF
set -u
etref="$1"
dir="datasets/oracle_xnnpack"
failures=0

compare() {  # name candidate reference [extra args...]
    local name="$1" candidate="$2" reference="$3"
    shift 3
    "$etref" compare "$candidate" --quiet \
        --input "$dir/$name/input_0.npy" \
        --candidate "etdump:$dir/$name/executorch.etdp" \
        --debug-buffer "$dir/$name/executorch.debug.bin" \
        --reference-program "datasets/models/$reference/model.pte" \
        --map "$dir/$name/map.json" "$@"
}

expect() {  # status want what
    if [ "$1" -ne "$2" ]; then
        echo "FAIL: $3: exit $1, expected $2" >&2
        failures=$((failures + 1))
    else
        echo "ok: $3 (exit $1)"
    fi
}

for spec in \
    "cnn_xnnpack datasets/models/cnn_xnnpack/model.pte cnn" \
    "cnn_xnnpack_per_op $dir/cnn_xnnpack_per_op/model.pte cnn" \
    "transformer_xnnpack $dir/transformer_xnnpack/model.pte transformer" \
    "cnn_quantized_xnnpack datasets/models/cnn_quantized_xnnpack/model.pte cnn_quantized" \
    "cnn_quantized_xnnpack_per_op $dir/cnn_quantized_xnnpack_per_op/model.pte cnn_quantized"; do
    set -- $spec
    compare "$1" "$2" "$3" >/dev/null
    expect $? 0 "$1 agrees"
done

json="${TEST_TMPDIR:-/tmp}/cnn_xnnpack_per_op.json"
compare cnn_xnnpack_per_op "$dir/cnn_xnnpack_per_op/model.pte" cnn --json "$json" >/dev/null
expect $? 0 "cnn_xnnpack_per_op with --json"
if ! grep -q '"kind": "etdump"' "$json" || ! grep -q 'cnn_xnnpack_per_op/map.json' "$json"; then
    echo "FAIL: the JSON does not name the ETDump candidate and its map" >&2
    failures=$((failures + 1))
fi
# Every mapped op of the per-op CNN was compared (none "not compared"
# among the ten but the flatten, which the reference runs as a view).
compared=$(grep -o '"verdict": "\(agree\|propagated\)"' "$json" | wc -l)
if [ "$compared" -lt 9 ]; then
    echo "FAIL: only $compared values agreed or propagated in cnn_xnnpack_per_op" >&2
    failures=$((failures + 1))
fi

broken="${TEST_TMPDIR:-/tmp}/broken_map.json"
sed 's/"instruction": 9/"instruction": -9/' "$dir/cnn_xnnpack/map.json" >"$broken"
"$etref" compare datasets/models/cnn_xnnpack/model.pte --quiet \
    --input "$dir/cnn_xnnpack/input_0.npy" \
    --candidate "etdump:$dir/cnn_xnnpack/executorch.etdp" \
    --debug-buffer "$dir/cnn_xnnpack/executorch.debug.bin" \
    --reference-program datasets/models/cnn/model.pte --map "$broken" >/dev/null 2>&1
expect $? 2 "a map with a negative instruction is refused"

echo "$failures failure(s)"
[ "$failures" -eq 0 ]
