#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
#
# Creates <repo>/.venv with the pinned toolchain of datasets/generate.py
# (datasets/requirements.txt). Idempotent: when every pin is already
# installed it only checks and returns within seconds. torch is installed
# first and alone, because torch==2.13.0 is the CPU build on this machine's
# disk and executorch must not pull any other torch.
#
# Usage: datasets/install.sh      (PYTHON=python3.11 to choose the interpreter)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$here/.." && pwd)"
venv="$repo/.venv"
req="$here/requirements.txt"
python="${PYTHON:-python3}"

if [ ! -x "$venv/bin/python" ]; then
    "$python" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' ||
        echo "install.sh: warning: $("$python" --version) is not Python 3.11; the pinned wheels are for 3.11" >&2
    "$python" -m venv "$venv"
fi
vpy="$venv/bin/python"

# Exit 0 when every 'name==version' pin of requirements.txt is installed
# (a local version suffix such as +cpu is accepted).
pins_satisfied() {
    "$vpy" - "$req" <<'PY'
import sys
from importlib import metadata

for line in open(sys.argv[1]):
    line = line.split("#", 1)[0].strip()
    if not line:
        continue
    name, _, want = line.partition("==")
    try:
        have = metadata.version(name.strip())
    except metadata.PackageNotFoundError:
        sys.exit(1)
    if have.split("+", 1)[0] != want.strip():
        sys.exit(1)
PY
}

if pins_satisfied; then
    echo "install.sh: $venv already has the pinned packages"
    exit 0
fi

torch_pin="$(grep -E '^torch==' "$req")"
"$vpy" -m pip install --upgrade-strategy only-if-needed "$torch_pin"
"$vpy" -m pip install --upgrade-strategy only-if-needed -r "$req"
pins_satisfied || { echo "install.sh: pins still not satisfied" >&2; exit 1; }
echo "install.sh: $venv ready"
