#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Fails when the generated kernel declarations, table or BUILD lists are out
# of date with the op files (rerun ops_reference/tools/update_registry.py).
set -euo pipefail
exec python3 ops_reference/tools/update_registry.py --check
