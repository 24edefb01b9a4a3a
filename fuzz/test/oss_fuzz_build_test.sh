#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Runs fuzz/oss_fuzz_build.sh as OSS-Fuzz's libFuzzer+ASan build does (the
# variables infra/base-images/base-builder sets: CC, CXX, CFLAGS, CXXFLAGS,
# LIB_FUZZING_ENGINE, FUZZING_ENGINE, SANITIZER, OUT, WORK) for two small
# targets, checks that every file OSS-Fuzz picks up is in $OUT, and runs
# each fuzzer for a fixed number of iterations on its seed corpus.
#
# The script resolves its runfiles symlink to find the source tree (the
# build script reads the BUILD files and sources of //core and //planner).
set -euo pipefail

script=$(readlink -f "${BASH_SOURCE[0]}")
root=$(cd "$(dirname "$script")/../.." && pwd)
tmp=${TEST_TMPDIR:-$(mktemp -d)}
out="$tmp/out"
rm -rf "$out" "$tmp/work" "$tmp/seeds"

flags="-O1 -fno-omit-frame-pointer -gline-tables-only -fsanitize=address -fsanitize-address-use-after-scope -fsanitize=fuzzer-no-link"
env CC=clang CXX=clang++ CFLAGS="$flags" CXXFLAGS="$flags" \
  LIB_FUZZING_ENGINE=-fsanitize=fuzzer FUZZING_ENGINE=libfuzzer \
  SANITIZER=address OUT="$out" WORK="$tmp/work" \
  ETREF_FUZZ_TARGETS="npy_parse planner" ETREF_FUZZ_JOBS=2 \
  "$root/fuzz/oss_fuzz_build.sh"

fail() {
  echo "FAIL: $*" >&2
  exit 1
}
for target in npy_parse planner; do
  [ -x "$out/$target" ] || fail "$out/$target is missing"
  [ -s "$out/${target}_seed_corpus.zip" ] || fail "no seed corpus for $target"
  [ -s "$out/$target.options" ] || fail "no options for $target"
  grep -q '^\[libfuzzer\]' "$out/$target.options" || fail "bad $target.options"
  mkdir -p "$tmp/seeds/$target"
  python3 -m zipfile -e "$out/${target}_seed_corpus.zip" "$tmp/seeds/$target"
  count=$(find "$tmp/seeds/$target" -type f | wc -l)
  [ "$count" -ge 5 ] || fail "$target has only $count seeds"
  log="$tmp/$target.log"
  "$out/$target" -runs=3000 -seed=1 "$tmp/seeds/$target" >"$log" 2>&1 ||
    { cat "$log"; fail "$target did not run cleanly"; }
  # libFuzzer may stop a run past -runs: a clean-clone CI run printed
  # "Done 3001 runs" for planner (same seed; 3000 in earlier runs).
  done_runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log")
  [ -n "$done_runs" ] && [ "$done_runs" -ge 3000 ] ||
    { cat "$log"; fail "$target: no 'Done' line of 3000 runs or more"; }
done
[ -s "$out/npy_parse.dict" ] || fail "no dictionary for npy_parse"
grep -q 'NUMPY' "$out/npy_parse.dict" || fail "npy_parse.dict lacks the magic"
echo "PASS: oss_fuzz_build.sh built and ran npy_parse and planner"
