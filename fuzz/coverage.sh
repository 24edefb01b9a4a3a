#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Line and branch coverage (gcovr) of core/, planner/ and verifier/, measured
# twice with gcc --coverage builds of the Bazel tests:
#   1. the unit tests: //core/... //planner/... //verifier/... //cli/...;
#   2. the same plus the fuzz corpus replay (//fuzz/..., the seeds of every
#      target and every regression case) and, when fuzz/campaign has run
#      here, the campaign corpora in fuzz/work/*/<target>/corpus (or
#      $ETREF_FUZZ_WORK) replayed by the same coverage-built drivers.
# Writes reports/coverage/summary.md (both runs, per folder for run 2),
# unit_tests.{txt,json} and with_fuzz_corpus.{txt,json} (gcovr's summaries of
# runs 1 and 2) and html/index.html (+ one page per file, for run 2), and
# prints the figures fuzz/README.md's "Coverage" section quotes.
#
#   fuzz/coverage.sh [--no-campaign-corpus]
#
# A separate command (not part of `bazel test //...`): it rebuilds
# everything with coverage flags in its own Bazel output base
# (~/.cache/bazel_coverage), at the lowest CPU priority.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
fuzz/install.sh >&2
campaign_corpus=1
[ "${1:-}" = "--no-campaign-corpus" ] && campaign_corpus=0
# Campaign state (fuzz/campaign's corpora), when kept elsewhere.
work=${ETREF_FUZZ_WORK:-$root/fuzz/work}

base=${ETREF_COVERAGE_OUTPUT_BASE:-$HOME/.cache/bazel_coverage}
bazel_cmd=(nice -n 19 bazel --output_base="$base")
flags=(--spawn_strategy=local --copt=--coverage --linkopt=--coverage --copt=-O0)
unit=(//core/... //planner/... //verifier/... //cli/...)
replay=(//fuzz:pte_load_verify_replay //fuzz:pte_execute_replay //fuzz:bpte_load_replay
        //fuzz:ptd_load_replay //fuzz:npy_parse_replay //fuzz:planner_replay
        //fuzz:kernel_diff_replay)
out=reports/coverage
mkdir -p "$out"
execroot=$("${bazel_cmd[@]}" info "${flags[@]}" execution_root 2>/dev/null)
bin=$("${bazel_cmd[@]}" info "${flags[@]}" bazel-bin 2>/dev/null)

# gcovr over the coverage build. Sources are recorded relative to the
# execroot (whose core/ etc. are symlinks into this tree), so gcov runs there.
# gcovr matches filters against resolved (real) paths, i.e. this tree.
root_regex=$(python3 -c 'import re, sys; print(re.escape(sys.argv[1]))' "$root")
gcovr_report() {
  (cd "$execroot" && nice -n 19 gcovr -r "$root" --object-directory "$bin" \
     --filter "$root_regex/(core|planner|verifier)/[^/]*\\.c\$" \
     --exclude-unreachable-branches --gcov-ignore-parse-errors \
     --print-summary "$@" 2>/dev/null)
}

clear_counters() {
  find "$bin" -name '*.gcda' -delete 2>/dev/null || true
}

# Test binaries run from the execroot, not through `bazel test`: gcc
# records each object's .gcda path relative to the compile directory (the
# execroot), and the tests' data paths (datasets/, fuzz/) resolve there too.
run_from_execroot() {  # label, then arguments
  local label=$1
  shift
  local binary="$bin/${label#//}"
  binary="${binary/://}"
  (cd "$execroot" && nice -n 19 "$binary" "$@" >/dev/null 2>&1) ||
    echo "coverage: $label reported failures" >&2
}

# A replay test's arguments, as its BUILD rule lists them.
rule_args() {
  "${bazel_cmd[@]}" query --output=build "$1" 2>/dev/null | python3 -c '
import re, sys, ast
m = re.search(r"args = (\[.*?\])", sys.stdin.read(), re.S)
print("\n".join(ast.literal_eval(m.group(1)) if m else []))'
}

echo "coverage: building with --coverage" >&2
unit_tests=$("${bazel_cmd[@]}" query "kind(cc_test, set(${unit[*]}))" 2>/dev/null)
# shellcheck disable=SC2086
"${bazel_cmd[@]}" build "${flags[@]}" $unit_tests "${replay[@]}" >&2

echo "coverage: run 1, unit tests" >&2
clear_counters
for test in $unit_tests; do
  run_from_execroot "$test"
done
gcovr_report --json-summary "$root/$out/unit_tests.json" >"$out/unit_tests.txt"

echo "coverage: run 2, unit tests + fuzz corpus replay" >&2
for test in "${replay[@]}"; do
  mapfile -t args < <(rule_args "$test")
  run_from_execroot "$test" "${args[@]}"
done
if [ "$campaign_corpus" = 1 ]; then
  for target in pte_load_verify pte_execute bpte_load ptd_load npy_parse planner kernel_diff; do
    for corpus in "$work"/*/"$target"/corpus; do
      [ -d "$corpus" ] || continue
      echo "coverage: replaying $corpus" >&2
      run_from_execroot "//fuzz:${target}_replay" "$corpus"
    done
  done
fi
rm -rf "$out/html" && mkdir -p "$out/html"
gcovr_report --html-details "$root/$out/html/index.html" \
  --html-title "etref coverage: core/, planner/, verifier/ (tests + fuzz corpus replay)" \
  --json-summary "$root/$out/with_fuzz_corpus.json" >"$out/with_fuzz_corpus.txt"

python3 - "$out" <<'PY'
import json, os, sys
out = sys.argv[1]
rows = []
for label, name in (("unit tests", "unit_tests"),
                    ("unit tests + fuzz corpus replay", "with_fuzz_corpus")):
    s = json.load(open(os.path.join(out, name + ".json")))
    rows.append((label, s["line_covered"], s["line_total"], s["line_percent"],
                 s["branch_covered"], s["branch_total"], s["branch_percent"]))
    per_dir = {}
    for f in s["files"]:
        d = f["filename"].split("/")[0]
        p = per_dir.setdefault(d, [0, 0, 0, 0])
        p[0] += f["line_covered"]; p[1] += f["line_total"]
        p[2] += f["branch_covered"]; p[3] += f["branch_total"]
    rows[-1] += (per_dir,)
lines = ["| measured with | lines | branches |", "| --- | ---: | ---: |"]
for label, lc, lt, lp, bc, bt, bp, _ in rows:
    lines.append("| %s | %.1f%% (%d/%d) | %.1f%% (%d/%d) |" % (label, lp, lc, lt, bp, bc, bt))
lines += ["", "| folder (tests + corpus replay) | lines | branches |", "| --- | ---: | ---: |"]
for d, (lc, lt, bc, bt) in sorted(rows[-1][7].items()):
    lines.append("| %s/ | %.1f%% (%d/%d) | %.1f%% (%d/%d) |" % (
        d, 100.0 * lc / lt if lt else 0, lc, lt, 100.0 * bc / bt if bt else 0, bc, bt))
text = "\n".join(lines) + "\n"
open(os.path.join(out, "summary.md"), "w").write(
    "# Coverage of core/, planner/, verifier/\n\nGenerated by `fuzz/coverage.sh` "
    "(gcc --coverage, gcovr; unreachable branches excluded). Per-file detail: "
    "html/index.html.\n\n" + text)
print(text)
PY
