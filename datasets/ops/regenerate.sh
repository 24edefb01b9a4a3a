#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Regenerates the per-op datasets in order:
#   1. datasets/ops/core_ops.{json,txt}        generate_core_ops.py
#   2. datasets/golden/*.bin, index.txt,
#      datasets/ops/golden_stats.json          generate_golden.py
#   3. datasets/ops/executorch_findings.json   executorch_second_opinion.py
# and prints how long each step took. With --check it writes everything
# into a temporary directory instead and fails (exit 1) unless every
# generated file is byte-for-byte the checked-in one.
#
# Usage: datasets/ops/regenerate.sh [--check] [--no-executorch]
#   --no-executorch  skip step 3 (the slowest: it exports ~1000 programs)
# Needs the pinned venv (datasets/install.sh).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
python="$repo/.venv/bin/python"
check=0
executorch=1
for arg in "$@"; do
    case "$arg" in
        --check) check=1 ;;
        --no-executorch) executorch=0 ;;
        *) echo "usage: $0 [--check] [--no-executorch]" >&2; exit 2 ;;
    esac
done
[ -x "$python" ] || { echo "regenerate.sh: $python missing; run datasets/install.sh" >&2; exit 1; }

if [ "$check" = 1 ]; then
    out="$(mktemp -d)"
    trap 'rm -rf "$out"' EXIT
    ops_dir="$out/ops"
    golden_dir="$out/golden"
else
    ops_dir="$here"
    golden_dir="$repo/datasets/golden"
fi
mkdir -p "$ops_dir" "$golden_dir"
export ETREF_CORE_OPS_JSON="$ops_dir/core_ops.json"

# Runs one generator, hiding the import chatter of torchao and the
# runtime's C++ logging; pipefail makes a failing generator fail the step.
step() {
    local name="$1"
    shift
    local start=$SECONDS
    if ! "$@" 2>&1 | awk '!/^Failed to load .*torchao|_pytree\.py|Enum subclass|^\[cpuinfo_utils|^\[threadpool|copyreg\.py|return cls\.__new__|^\[W[0-9][0-9][0-9][0-9] /'; then
        echo "regenerate.sh: $name failed" >&2
        exit 1
    fi
    echo "regenerate.sh: $name took $((SECONDS - start)) s"
}

cd "$repo"
step "generate_core_ops" "$python" "$here/generate_core_ops.py" --out-dir "$ops_dir"
step "generate_golden" "$python" "$here/generate_golden.py" \
    --golden-dir "$golden_dir" --stats "$ops_dir/golden_stats.json"
if [ "$executorch" = 1 ]; then
    step "executorch_second_opinion" "$python" "$here/executorch_second_opinion.py" \
        --golden-dir "$golden_dir" --out "$ops_dir/executorch_findings.json"
fi

if [ "$check" = 1 ]; then
    status=0
    compare() {
        if ! cmp -s "$1" "$2"; then
            echo "regenerate.sh: $2 differs from what the generator writes" >&2
            status=1
        fi
    }
    files=(core_ops.json core_ops.txt golden_stats.json)
    [ "$executorch" = 1 ] && files+=(executorch_findings.json)
    for f in "${files[@]}"; do
        compare "$ops_dir/$f" "$here/$f"
    done
    for f in "$golden_dir"/*.bin "$golden_dir/index.txt"; do
        compare "$f" "$repo/datasets/golden/$(basename "$f")"
    done
    for f in "$repo"/datasets/golden/*.bin; do
        [ -e "$golden_dir/$(basename "$f")" ] || {
            echo "regenerate.sh: $f is no longer generated" >&2
            status=1
        }
    done
    if [ "$status" = 0 ]; then
        echo "regenerate.sh: every checked-in file matches its generator"
    fi
    exit "$status"
fi
