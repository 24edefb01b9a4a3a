#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Builds etref's fuzzers with clang outside Bazel (Bazel's gcc toolchain has
# no -fsanitize=fuzzer; `bazel test //fuzz/...` builds the replay drivers).
#
#   fuzz/build.sh [--engine libfuzzer|afl|replay] [TARGET...]
#
#   libfuzzer  clang -fsanitize=fuzzer,address,undefined; the .pte/.bpte/.ptd
#              fuzzers carry the structure-aware LLVMFuzzerCustomMutator
#              -> fuzz/out/libfuzzer/<target>
#   afl        afl-clang-fast with ASan+UBSan, driven in persistent mode by
#              AFL++'s libFuzzer-compatible driver (libAFLDriver, which
#              afl-clang-fast links for -fsanitize=fuzzer); plus the AFL++
#              custom mutator library afl_pte_mutator.so
#              -> fuzz/out/afl/<target>
#   replay     clang with ASan+UBSan and fuzz/replay_main.c instead of an
#              engine (for replaying and triaging crash files)
#              -> fuzz/out/replay/<target>
# Without targets, builds all seven. Incremental (make); runs at the lowest
# CPU priority (the machines are shared). Installs its tools first
# (fuzz/install.sh). Engine flags and the OSS-Fuzz layout come from
# fuzz/oss_fuzz_build.sh, which this calls.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
engine=libfuzzer
targets=()
while [ $# -gt 0 ]; do
  case "$1" in
    --engine) engine=$2; shift 2 ;;
    --engine=*) engine=${1#--engine=}; shift ;;
    -h|--help) sed -n 2,24p "$0"; exit 0 ;;
    *) targets+=("$1"); shift ;;
  esac
done
"$root/fuzz/install.sh" >&2

sanitizers="-fsanitize=address,undefined -fno-sanitize-recover=all"
base="-O1 -g -fno-omit-frame-pointer"
export ETREF_FUZZ_JOBS=${ETREF_FUZZ_JOBS:-$(nproc)}
if [ ${#targets[@]} -gt 0 ]; then
  export ETREF_FUZZ_TARGETS="${targets[*]}"
fi
out="$root/fuzz/out/$engine"
case "$engine" in
  libfuzzer)
    env CC=clang CXX=clang++ FUZZING_ENGINE=libfuzzer \
      CFLAGS="$base $sanitizers -fsanitize=fuzzer-no-link" \
      CXXFLAGS="$base $sanitizers -fsanitize=fuzzer-no-link" \
      LIB_FUZZING_ENGINE=-fsanitize=fuzzer OUT="$out" \
      nice -n 19 "$root/fuzz/oss_fuzz_build.sh"
    ;;
  afl)
    env CC=afl-clang-fast CXX=afl-clang-fast++ FUZZING_ENGINE=afl \
      AFL_QUIET=1 CFLAGS="$base $sanitizers" CXXFLAGS="$base $sanitizers" \
      LIB_FUZZING_ENGINE=-fsanitize=fuzzer OUT="$out" \
      nice -n 19 "$root/fuzz/oss_fuzz_build.sh"
    # The custom mutator runs inside afl-fuzz: no instrumentation.
    nice -n 19 clang -O2 -g -std=c11 -shared -fPIC -I"$root" \
      "$root/fuzz/mutator/afl_mutator.c" "$root/fuzz/mutator/pte_mutator.c" \
      "$root/fuzz/mutator/fb_schema.c" "$root/core/flatbuffer.c" \
      "$root/core/error.c" -o "$out/afl_pte_mutator.so"
    ;;
  replay)
    # The replay driver is the "engine": compiled by the same script.
    mkdir -p "$out/.obj"
    nice -n 19 clang $base $sanitizers -std=c11 -c "$root/fuzz/replay_main.c" \
      -o "$out/.obj/replay_main.o"
    env CC=clang CXX=clang++ FUZZING_ENGINE=replay \
      CFLAGS="$base $sanitizers" CXXFLAGS="$base $sanitizers" \
      LIB_FUZZING_ENGINE="$out/.obj/replay_main.o" OUT="$out" \
      nice -n 19 "$root/fuzz/oss_fuzz_build.sh"
    ;;
  *)
    echo "build.sh: unknown engine '$engine' (libfuzzer, afl, replay)" >&2
    exit 1
    ;;
esac
