#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Installs what the fuzzing, coverage and memory-check commands need (and
# `bazel test //...` does not): clang 14 with its libFuzzer and sanitizer
# runtimes, llvm (llvm-symbolizer for symbolized stacks), AFL++, gcovr,
# valgrind, zip (OSS-Fuzz seed corpora). Idempotent: apt runs only when a
# package is missing. The ordinary build and test dependencies stay in
# scripts/install_deps.sh, which this runs first.
set -euo pipefail

cd "$(dirname "$0")/.."
scripts/install_deps.sh

packages=(
  afl++
  clang
  gcovr
  libclang-rt-14-dev
  llvm
  valgrind
  zip
  unzip
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
[ ${#missing[@]} -eq 0 ] && exit 0

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  sudo_cmd=(sudo)
fi
echo "installing: ${missing[*]}" >&2
"${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=900 update -qq
"${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get -o DPkg::Lock::Timeout=900 install -y -qq --no-install-recommends "${missing[@]}" >&2
