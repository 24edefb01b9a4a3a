#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Regenerates the kernel table in ops_reference/registry.c and the source
lists in ops_reference/BUILD from the kernels that exist.

Every kernel declared in ops_reference.h (ETR_REFERENCE_KERNEL(name); //
op name) and defined in an op_*.c file gets one registry row, in header
order. The op name is the one in the declaration's trailing comment, or in
the comment line just above the declaration. `--check` exits 1 when
either file is out of date instead of rewriting it.

Usage: python3 ops_reference/tools/update_registry.py [--check]
"""

import glob
import os
import re
import sys

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def kernel_names():
    """(function, op name) in header order."""
    lines = open(os.path.join(HERE, "ops_reference.h")).read().splitlines()
    result = []
    for i, line in enumerate(lines):
        m = re.match(r"ETR_REFERENCE_KERNEL\((etr_ref_\w+)\);\s*(?://\s*(\S+))?", line)
        if not m:
            continue
        op = m.group(2)
        if op is None:
            above = re.match(r"\s*//\s*(\S+::\S+)\s*$", lines[i - 1])
            op = above.group(1) if above else None
        if op is None:
            sys.exit(f"ops_reference.h: no op name for {m.group(1)}")
        result.append((m.group(1), op))
    return result


def defined_kernels():
    names = set()
    for path in glob.glob(os.path.join(HERE, "op_*.c")):
        names |= set(re.findall(r"^etr_error_t (etr_ref_\w+)\(", open(path).read(), re.M))
    return names


def row(fn, op):
    """One table row, wrapped when it would pass 80 columns."""
    line = f'    {{"{op}", {fn}}},\n'
    return line if len(line) <= 81 else f'    {{"{op}",\n     {fn}}},\n'


def replace_list(text, anchor, key, items):
    """Replaces the entries of `key = [ ... ]` after `anchor`."""
    start = text.index(anchor)
    begin = text.index(key + " = [\n", start) + len(key + " = [\n")
    end = text.index("    ],", begin)
    return text[:begin] + "".join(f'        "{item}",\n' for item in items) + text[end:]


def main():
    check = "--check" in sys.argv[1:]
    defined = defined_kernels()
    declared = kernel_names()
    missing = sorted(defined - {f for f, _ in declared})
    if missing:
        sys.exit(f"defined but not declared in ops_reference.h: {missing}")
    rows = "".join(row(fn, op) for fn, op in declared if fn in defined)

    registry_path = os.path.join(HERE, "registry.c")
    registry = open(registry_path).read()
    head = "const etr_kernel_registration_t etr_reference_kernels[] = {\n"
    begin = registry.index(head) + len(head)
    end = registry.index("};", begin)
    new_registry = registry[:begin] + rows + registry[end:]

    build_path = os.path.join(HERE, "BUILD")
    build = open(build_path).read()
    ops = sorted(os.path.basename(p) for p in glob.glob(os.path.join(HERE, "op_*.c")))
    support_c = sorted("support/" + os.path.basename(p) for p in glob.glob(os.path.join(HERE, "support", "*.c")))
    support_h = sorted("support/" + os.path.basename(p) for p in glob.glob(os.path.join(HERE, "support", "*.h")))
    new_build = replace_list(build, 'name = "ops_reference",', "srcs", ops + ["registry.c"])
    new_build = replace_list(new_build, 'name = "support",', "srcs", support_c)
    new_build = replace_list(new_build, 'name = "support",', "hdrs", support_h)

    stale = [p for p, old, new in [(registry_path, registry, new_registry), (build_path, build, new_build)] if old != new]
    if check:
        for path in stale:
            print(f"out of date: {path}")
        return 1 if stale else 0
    for path, new in [(registry_path, new_registry), (build_path, new_build)]:
        with open(path, "w") as f:
            f.write(new)
    not_defined = [op for fn, op in declared if fn not in defined]
    if not_defined:
        print("declared but not implemented yet:", ", ".join(not_defined))
    return 0


if __name__ == "__main__":
    sys.exit(main())
