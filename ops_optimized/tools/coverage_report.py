#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Writes reports/ops/optimized_coverage.md: which op x dtype x layout x ISA
combinations the optimized kernels specialize and which fall back to the
reference kernels, which combinations the dataset models use, and which
Core ATen ops have no optimized kernel at all.

Inputs (ops_optimized/tools/coverage.sh gathers them):
  --csv FILE          the differential tests' records (ETREF_DIFF_COVERAGE:
                      op,dtype,layout,isa,specialized per optimized run;
                      ops_optimized/test/diff.c record_coverage)
  --inspect-dir DIR   `etref inspect` of every dataset model, one
                      <model>.txt each
  --commit TEXT       the commit (and worktree state) the run reflects
  --out FILE          the Markdown report
Also reads datasets/ops/core_ops.txt, ops_optimized/registry.c and
datasets/models/*/manifest.json.
"""

import argparse
import collections
import csv
import glob
import json
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
ISAS = ["scalar", "avx2", "avx512", "neon"]
# Ops whose out dtype may differ from the input's: such a call is a dtype
# conversion, keyed "In -> Out" both here and in the differential tests
# that convert (etr_diff_key_conversion in ops_optimized/test/diff.h);
# other ops (comparisons giving Bool, ...) have their out dtype as part of
# their semantics.
CONVERTING_OPS = {"aten::_to_copy.out", "dim_order_ops::_to_dim_order_copy.out",
                  "aten::copy_", "aten::copy.out"}
COMMAND = "ops_optimized/tools/coverage.sh"
# Optimized registrations that call the reference's own code on purpose:
# the op has no compute to specialize (each op file says so), so it is
# reported as shared, never as a missing or fallback-only kernel.
SHARED_OPS = {
    "aten::sym_size.int": "reads a size",
    "aten::sym_numel": "multiplies the sizes",
    "aten::sym_stride.int": "reads a stride",
    "aten::sym_is_contiguous": "compares strides",
    "aten::sym_storage_offset": "answers 0",
    "aten::_local_scalar_dense": "reads one element",
    "executorch_prim::et_view.default": "a view, no data moved",
    "aten::resize_": "changes sizes only",
    "aten::scalar_tensor.out": "writes one element",
}


def read_records(path):
    """{(op, dtype, layout): {isa: [specialized runs, runs]}}"""
    table = collections.defaultdict(lambda: collections.defaultdict(lambda: [0, 0]))
    with open(path) as f:
        for row in csv.reader(f):
            if len(row) != 5:
                continue
            op, dtype, layout, isa, specialized = row
            cell = table[(op, dtype, layout)][isa]
            cell[0] += int(specialized)
            cell[1] += 1
    return table


def optimized_ops():
    text = open(os.path.join(ROOT, "ops_optimized", "registry.c")).read()
    return set(re.findall(r'\{"([^"]+)",\s*etr_opt_\w+\}', text))


def core_ops():
    ops = []
    for line in open(os.path.join(ROOT, "datasets", "ops", "core_ops.txt")):
        line = line.strip()
        if line and not line.startswith("#"):
            ops.append(line)
    return ops


TENSOR = re.compile(r"^\s+v(\d+)\s+Tensor\s+(\w+)(\[[^\]]*\])(?: dim_order\(([\d,]*)\))?")
LIST = re.compile(r"^\s+v(\d+)\s+List(?:Optional)?Tensor\s+\[([^\]]*)\]")
CALL = re.compile(r"^\s+\d+:\d+\s+KernelCall\s+(\S+)\((.*)\)\s*$")


def layout_of(dim, order):
    if order is None:
        return "contiguous"
    return "channels_last" if order == "0,2,3,1" else "dim_order(%s)" % order


def model_combinations(inspect_dir):
    """{(op, dtype, layout): {model: {shape text}}}; a converting call is
    keyed by "In -> Out" as its dtype."""
    found = collections.defaultdict(dict)
    for path in sorted(glob.glob(os.path.join(inspect_dir, "*.txt"))):
        model = os.path.basename(path)[:-4]
        tensors = {}
        lists = {}
        for line in open(path):
            m = TENSOR.match(line)
            if m:
                dim = len([s for s in m.group(3)[1:-1].split(",") if s.strip()])
                tensors[m.group(1)] = (m.group(2), layout_of(dim, m.group(4)),
                                       m.group(2) + m.group(3))
                continue
            m = LIST.match(line)
            if m:
                lists[m.group(1)] = re.findall(r"v(\d+)", m.group(2))
                continue
            m = CALL.match(line)
            if not m:
                continue
            op = m.group(1)
            args = re.findall(r"v(\d+)", m.group(2))
            first = None
            for a in args:  # the first tensor (or first tensor of a list)
                if a in tensors:
                    first = tensors[a]
                    break
                if a in lists and lists[a] and lists[a][0] in tensors:
                    first = tensors[lists[a][0]]
                    break
            if first is None:
                continue
            out = tensors.get(args[-1]) if args else None
            dtype = first[0]
            if op in CONVERTING_OPS and out is not None and out[0] != dtype:
                dtype = "%s -> %s" % (dtype, out[0])
            found[(op, dtype, first[1])].setdefault(model, set()).add(first[2])
    return found


def isa_summary(cells):
    """'scalar avx2 avx512' style list of ISAs with a specialized run."""
    return [isa for isa in ISAS if isa in cells and cells[isa][0] > 0]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--csv", required=True)
    parser.add_argument("--inspect-dir", required=True)
    parser.add_argument("--commit", required=True)
    parser.add_argument("--out", required=True)
    options = parser.parse_args()

    records = read_records(options.csv)
    registered = optimized_ops()
    core = core_ops()
    combos = model_combinations(options.inspect_dir)
    isas_seen = [isa for isa in ISAS
                 if any(isa in cells for cells in records.values())]

    lines = []
    out = lines.append
    out("# Optimized kernel coverage")
    out("")
    out("Generated by `%s` (differential tests with `ETREF_DIFF_COVERAGE`, "
        "then `coverage_report.py`); do not edit by hand. Regenerate with:" % COMMAND)
    out("")
    out("    %s            # x86 ISAs and, under qemu, NEON" % COMMAND)
    out("    %s --no-aarch64   # x86 ISAs only" % COMMAND)
    out("")
    out("Reflects %s. ISAs measured: %s. %d optimized kernels registered; "
        "%d differential runs recorded." % (
            options.commit, ", ".join(isas_seen) or "none", len(registered),
            sum(c[1] for cells in records.values() for c in cells.values())))
    out("")

    # --- The models' combinations first.
    out("## What the dataset models use")
    out("")
    out("Every kernel call in `datasets/models/*` (read with `etref inspect`), "
        "keyed by its first tensor argument's dtype and layout, and what the "
        "optimized library does with that combination in the differential "
        "tests (ISAs on which at least one run took the specialized path).")
    out("")
    rows = []
    fallback_only = []
    unoptimized = []
    untested = []
    shared_combos = []
    for key in sorted(combos):
        op, dtype, layout = key
        models = combos[key]
        if op not in registered:
            status = "no optimized kernel (reference)"
            unoptimized.append(key)
        elif op in SHARED_OPS:
            status = "shared with the reference (no compute: %s)" % SHARED_OPS[op]
            shared_combos.append(key)
        elif key not in records:
            status = "optimized kernel; combination not in the diff tests"
            untested.append(key)
        else:
            specialized = isa_summary(records[key])
            if specialized:
                status = "specialized: " + ", ".join(specialized)
            else:
                status = "**fallback only**"
                fallback_only.append(key)
        shapes = sorted(set().union(*models.values()))
        shown = ", ".join(shapes[:3]) + (", ..." if len(shapes) > 3 else "")
        rows.append("| `%s` | %s | %s | %s | %s | %s |" % (
            op, dtype, layout, ", ".join(sorted(models)), shown, status))
    total = len(combos)
    specialized_count = (total - len(fallback_only) - len(unoptimized) -
                         len(untested) - len(shared_combos))
    out("**Headline:** %d op x dtype x layout combinations in the models; "
        "%d specialized by an optimized kernel, %d shared with the reference "
        "(no compute), %d fallback-only, %d with no optimized kernel, %d with "
        "a kernel but no diff case of that combination." % (
            total, specialized_count, len(shared_combos), len(fallback_only),
            len(unoptimized), len(untested)))
    out("")
    if fallback_only:
        out("Fallback-only: %s." % ", ".join("`%s` %s %s" % k for k in fallback_only))
    if unoptimized:
        out("No optimized kernel: %s." % ", ".join(sorted({"`%s`" % k[0] for k in unoptimized})))
    if untested:
        out("Not in the diff tests: %s." % ", ".join("`%s` %s %s" % k for k in untested))
    out("")
    out("| op | dtype | layout | models | first input shapes | optimized |")
    out("|---|---|---|---|---|---|")
    lines.extend(rows)
    out("")

    # --- Core ops without an optimized kernel.
    missing = [op for op in core if op not in registered]
    out("## Core ATen ops with no optimized kernel")
    out("")
    out("%d of the %d kernel names in `datasets/ops/core_ops.txt` have no "
        "optimized kernel (the registry serves them with the reference "
        "kernel):" % (len(missing), len(core)))
    out("")
    out(", ".join("`%s`" % op for op in missing) if missing else "(none)")
    out("")
    shared = sorted(op for op in registered if op in SHARED_OPS)
    if shared:
        out("Optimized registrations that share the reference's code, since "
            "the op has no compute to specialize (each op file says why): %s." %
            ", ".join("`%s` (%s)" % (op, SHARED_OPS[op]) for op in shared))
        out("")
    extra = sorted(op for op in registered if op not in core)
    if extra:
        out("Optimized kernels for names outside that list: %s." % ", ".join(
            "`%s`" % op for op in extra))
        out("")
    silent = sorted(op for op in registered
                    if not any(k[0] == op for k in records))
    if silent:
        out("Optimized kernels no differential test ran (so absent below): %s." %
            ", ".join("`%s`" % op for op in silent))
        out("")

    # --- The full matrix.
    out("## Specialized or fallback, per op x dtype x layout x ISA")
    out("")
    out("From the differential tests (`scalar` sums the x86 and aarch64 "
        "builds' portable runs): `s/n` = runs that took the optimized "
        "kernel's specialized path out of runs recorded on that ISA; `-` = "
        "not run there. A case's dtype and layout are those of its data "
        "input as the test keyed it. Cases both kernels refuse (argument "
        "errors) and deliberate fallbacks (conversions, masks, overlaps) count "
        "as fallback runs, so `s < n` is expected; **0/n** marks a "
        "combination that never specializes.")
    out("")
    out("| op | dtype | layout | %s |" % " | ".join(isas_seen))
    out("|---|---|---|" + "---|" * len(isas_seen))
    for key in sorted(records):
        cells = records[key]
        values = []
        for isa in isas_seen:
            if isa not in cells:
                values.append("-")
            else:
                s, n = cells[isa]
                values.append("**0/%d**" % n if s == 0 else "%d/%d" % (s, n))
        out("| `%s` | %s | %s | %s |" % (key[0], key[1], key[2], " | ".join(values)))
    out("")

    os.makedirs(os.path.dirname(os.path.abspath(options.out)), exist_ok=True)
    with open(options.out, "w") as f:
        f.write("\n".join(lines))
    print("wrote %s: %d combinations, %d model combinations (%d fallback-only, "
          "%d unoptimized, %d untested)" % (
              options.out, len(records), total, len(fallback_only),
              len(unoptimized), len(untested)))


if __name__ == "__main__":
    main()
