#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Write the Core ATen op list, read from the installed PyTorch.

Every operator overload that the installed torch (2.13.0) tags
`torch.Tag.core` is listed with its schema and the kernel an ExecuTorch
program calls for it, derived the way ExecuTorch derives it:

  * view ops become their `*_copy` twins (exir's
    ReplaceBrokenOpsWithFunctionalOpsPass: `aten.view` -> `aten.view_copy`;
    a view_copy whose result is not a program output is further emitted as
    the prim op executorch_prim::et_view);
  * the functional op maps to its out variant with
    `executorch.exir.operator.convert.to_out_variant`; when that helper
    fails (it asserts on `aten::pow`, whose overload set holds two functional
    schemas with one signature: pow.int and pow.int_to_int), the edge
    dialect's `to_variant(op, SchemaKind.out)` is used instead, which is
    what ToOutVarPass calls for edge ops, and the failure is recorded;
  * symbolic ops (sym_size, sym_numel, _local_scalar_dense, ...) have no out
    variant: they are prim ops called by their own name;
  * in-place ops (resize_) are skipped by ToOutVarPass and called by their
    own name;
  * `_to_copy`, `clone` and `empty.memory_format` are emitted as
    `dim_order_ops::*` ops by default (exir's DimOrderOpsMap); both names
    are listed.

For each kernel name the script also records whether ExecuTorch registers
it: in the portable kernel library's functions.yaml and in the operator
registry of the runtime shipped in the installed executorch wheel.

Outputs (checked in; regenerate with datasets/ops/regenerate.sh):
  datasets/ops/core_ops.json  one entry per core op overload
  datasets/ops/core_ops.txt   every kernel name an ExecuTorch program may
                              call for a core op, sorted, one per line
                              ('#' lines are comments)

Usage: .venv/bin/python datasets/ops/generate_core_ops.py [--out-dir DIR]
"""

import os
import sys

if os.environ.get("PYTHONHASHSEED") != "0":
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable] + sys.argv)

import argparse  # noqa: E402
import json  # noqa: E402
import logging  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Dict, List, Optional, Set  # noqa: E402

import torch  # noqa: E402
import yaml  # noqa: E402

GENERATOR = "datasets/ops/generate_core_ops.py"
OPS_DIR = Path(__file__).resolve().parent

# Ops exir treats as symbolic and emits as prim ops (exir/passes/
# executorch_prim_ops_registry.py, _EXECUTORCH_SYM_OPS). Read from the
# package below; this comment only says where.


def core_overloads() -> List[torch._ops.OpOverload]:
    """Every registered overload tagged core, sorted by name."""
    found: Dict[str, torch._ops.OpOverload] = {}
    for schema in torch._C._jit_get_all_schemas():
        namespace, base = schema.name.split("::", 1)
        try:
            packet = getattr(getattr(torch.ops, namespace), base)
            op = getattr(packet, schema.overload_name or "default")
        except (AttributeError, RuntimeError):
            continue
        if torch.Tag.core in op.tags:
            found[op.name()] = op
    return [found[name] for name in sorted(found)]


def kernel_name(op: torch._ops.OpOverload) -> str:
    """The operator name an ExecuTorch program carries: 'aten::add.out'."""
    return op.name()


def executorch_sym_ops() -> Set[str]:
    from executorch.exir.passes.executorch_prim_ops_registry import (
        _EXECUTORCH_SYM_OPS,
    )

    names = set()
    for op in _EXECUTORCH_SYM_OPS:
        if isinstance(op, torch._ops.OpOverload):
            names.add(op.name())
    return names


def dim_order_map() -> Dict[str, str]:
    """aten op name -> dim_order_ops op name (exir's DimOrderOpsMap)."""
    from executorch.exir.passes.dim_order_ops_registry import DimOrderOpsMap

    return {k._op.name(): v._op.name() for k, v in DimOrderOpsMap.items()}


def portable_yaml_names() -> Set[str]:
    import executorch

    path = Path(list(executorch.__path__)[0]) / "kernels/portable/functions.yaml"
    names = set()
    for entry in yaml.safe_load(path.read_text()):
        spec = entry.get("op") or entry.get("func").split("(", 1)[0]
        names.add(spec if "::" in spec else "aten::" + spec)
    return names


def runtime_registry_names() -> Set[str]:
    from executorch.runtime import Runtime

    return set(Runtime.get().operator_registry.operator_names)


def out_variant(op: torch._ops.OpOverload, entry: dict) -> Optional[torch._ops.OpOverload]:
    """The out variant as exir finds it; notes failures in `entry`."""
    from executorch.exir.dialects.edge.op.api import to_variant
    from executorch.exir.operator.convert import to_out_variant
    from torchgen.model import SchemaKind

    try:
        result, _ = to_out_variant(op)
        return result
    except (AssertionError, RuntimeError) as error:
        entry["to_out_variant_error"] = f"{type(error).__name__}: {str(error).splitlines()[0]}"
    try:
        return to_variant(op, SchemaKind.out)
    except (AssertionError, RuntimeError):
        return None


def describe(op: torch._ops.OpOverload, sym_ops: Set[str], dim_order: Dict[str, str],
             portable: Set[str], registry: Set[str]) -> dict:
    from torchgen.model import FunctionSchema, SchemaKind

    name = op.name()
    entry: dict = {"op": name, "schema": str(op._schema),
                   "tags": sorted(str(t).split(".", 1)[1] for t in op.tags)}
    edge_op = op
    if op.is_view:
        base = op._schema.name.split("::", 1)[1]
        edge_op = getattr(getattr(torch.ops.aten, base + "_copy"), op._overloadname)
        entry["edge_op"] = edge_op.name()
        entry["note"] = f"view op: ExecuTorch calls the copy twin {edge_op.name()}"
        if edge_op.name() == "aten::view_copy":
            entry["note"] += (" (exir's ReplaceViewCopyWithViewPass then emits "
                              "executorch_prim::et_view for results that are not program "
                              "outputs, when remove_view_copy is on, the default)")
    kind = FunctionSchema.parse(str(edge_op._schema)).kind()
    returns_no_tensor = not any("Tensor" in str(r.type) for r in op._schema.returns)
    if name in sym_ops or (kind == SchemaKind.functional and returns_no_tensor):
        entry["kind"] = "prim"
        entry["kernel"] = name
        entry["kernel_schema"] = str(op._schema)
        entry["out_args"] = []
        entry["note"] = ("symbolic op: no out variant; called by its own name as a prim op"
                         + ("" if name in sym_ops else
                            " (not among exir's _EXECUTORCH_SYM_OPS: exir cannot emit it)"))
    elif kind == SchemaKind.inplace:
        entry["kind"] = "inplace"
        entry["kernel"] = name
        entry["kernel_schema"] = str(op._schema)
        entry["out_args"] = []
        entry["note"] = ("in-place op: ToOutVarPass skips it, so a program calls it by its own "
                         "name")
    else:
        out = out_variant(edge_op, entry)
        assert out is not None, f"no out variant for {name}"
        from executorch.exir.operator.convert import get_out_args_from_opoverload

        entry["kind"] = "out" if kind == SchemaKind.out else "functional"
        entry["kernel"] = kernel_name(out)
        entry["kernel_schema"] = str(out._schema)
        entry["out_args"] = list(get_out_args_from_opoverload(out))
        if kind == SchemaKind.out:
            entry["note"] = "already an out variant (tagged core itself)"
    if name in dim_order:
        replacement = dim_order[name]
        dim_order_op = getattr(getattr(torch.ops.dim_order_ops,
                                       replacement.split("::")[1].split(".")[0]), "out")
        entry["executorch_kernel"] = kernel_name(dim_order_op)
        entry["executorch_kernel_schema"] = str(dim_order_op._schema)
        entry["note"] = (f"ExecuTorch emits {replacement} (DimOrderOpsMap) unless "
                         "_skip_dim_order is set")
    else:
        entry["executorch_kernel"] = entry["kernel"]
    for key in ("kernel", "executorch_kernel"):
        kernel = entry[key]
        entry[f"{key}_in_portable_yaml"] = kernel in portable
        entry[f"{key}_in_runtime_registry"] = kernel in registry
    return entry


def generate(out_dir: Path) -> None:
    logging.disable(logging.WARNING)
    import executorch.exir  # noqa: F401  registers dim_order_ops
    from executorch.version import __version__ as executorch_version

    sym_ops = executorch_sym_ops()
    dim_order = dim_order_map()
    portable = portable_yaml_names()
    registry = runtime_registry_names()
    entries = [describe(op, sym_ops, dim_order, portable, registry) for op in core_overloads()]
    kernels = sorted({e["kernel"] for e in entries} | {e["executorch_kernel"] for e in entries})
    document = {
        "generator": GENERATOR,
        "torch_version": torch.__version__,
        "executorch_version": executorch_version,
        "count": len(entries),
        "kernel_count": len(kernels),
        "ops": entries,
    }
    out_dir.mkdir(parents=True, exist_ok=True)
    (out_dir / "core_ops.json").write_text(json.dumps(document, indent=1, sort_keys=True) + "\n")
    header = [
        f"# Generated by {GENERATOR} from torch {torch.__version__} and executorch "
        f"{executorch_version}; do not edit.",
        "# Every kernel name an ExecuTorch program may call for a Core ATen op "
        f"({len(entries)} overloads tagged torch.Tag.core):",
        "# out variants, prim ops, in-place ops, and the dim_order_ops twins exir emits.",
    ]
    (out_dir / "core_ops.txt").write_text("\n".join(header + kernels) + "\n")
    print(f"{GENERATOR}: {len(entries)} core ops, {len(kernels)} kernel names -> {out_dir}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", type=Path, default=OPS_DIR)
    args = parser.parse_args()
    generate(args.out_dir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
