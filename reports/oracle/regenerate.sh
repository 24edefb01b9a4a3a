#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Regenerates reports/oracle/: `etref compare` on every XNNPACK program of
# datasets/oracle_xnnpack/ (ExecuTorch 1.5.1's runtime ran them and wrote
# the ETDumps; etref's reference kernels run the same model exported without
# delegation), one report folder per program (compare.html, compare.md, the
# SQNR chart, compare.json), then the index README.md
# (reports/oracle/generate_index.py).
#
# Usage: reports/oracle/regenerate.sh    (from anywhere; needs Bazel and
# python3, no network; the candidates are checked-in files, so ExecuTorch
# is not needed here: datasets/oracle_xnnpack/generate.py made them)
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
cd "$repo"
bazel build //:etref >/dev/null
etref="bazel-bin/cli/etref"
out="reports/oracle"

# name, candidate program, reference program: from each folder's manifest.
programs="$(python3 - <<'EOF'
import json, pathlib
for manifest in sorted(pathlib.Path("datasets/oracle_xnnpack").glob("*/manifest.json")):
    m = json.loads(manifest.read_text())
    print(m["name"], m["candidate_program"], m["reference_program"])
EOF
)"

while read -r name candidate reference; do
    [ -n "$name" ] || continue
    dir="datasets/oracle_xnnpack/$name"
    rm -rf "${out:?}/$name"
    mkdir -p "$out/$name"
    set +e
    "$etref" compare "$candidate" \
        --input "$dir/input_0.npy" \
        --candidate "etdump:$dir/executorch.etdp" \
        --debug-buffer "$dir/executorch.debug.bin" \
        --reference-program "$reference" \
        --map "$dir/map.json" \
        --report "$out/$name" --json "$out/$name/compare.json" --quiet
    status=$?
    set -e
    if [ "$status" -ne 0 ] && [ "$status" -ne 3 ]; then
        echo "regenerate.sh: etref compare failed on $name (exit $status)" >&2
        exit 1
    fi
    echo "$name: exit $status"
done <<<"$programs"

python3 "$out/generate_index.py"
