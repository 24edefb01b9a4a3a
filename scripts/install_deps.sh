#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Installs the Debian packages etref needs to build and test: Bazel
# (Debian's bazel-bootstrap, which works offline with this repository's
# WORKSPACE), gcc, clang with its sanitizer runtimes, Criterion, and the
# aarch64 cross compiler, C library and qemu-user that
# //ops_optimized/test/aarch64:aarch64_diff_test builds and runs NEON code
# with.
# Idempotent: packages already present are not touched and apt is not run
# at all when nothing is missing.
set -euo pipefail

packages=(
  bazel-bootstrap
  build-essential
  clang
  gcc-aarch64-linux-gnu
  libc6-dev-arm64-cross
  libclang-rt-14-dev
  libcriterion-dev
  python3
  qemu-user
)

missing=()
for package in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then
  sudo_cmd=(sudo)
fi
echo "installing: ${missing[*]}" >&2
"${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -qq
"${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
