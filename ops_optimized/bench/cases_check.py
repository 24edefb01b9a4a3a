# SPDX-License-Identifier: Apache-2.0
"""Checks how the benchmark reads the datasets' programs into cases
(cases.py), without exporting or timing anything:

  * every out-variant call of the models becomes a case (only prim ops and
    in-place calls are left out), so the report's "Not measured" list holds
    nothing that could be measured;
  * a size that a dynamic-shape program computes at run time
    (aten::sym_size.int) takes the value of the program's own upper-bound
    sizes: dynamic_shape's view_copy to [1, s, 16] reads [1, 32, 16], and
    the case's module runs with eager PyTorch to the program's out shape;
  * dim_order_ops::_to_dim_order_copy.out, whose dtype is its out's, gets
    the functional overload with a `dtype` and the out's dtype
    (mutable_buffer converts Long to Float);
  * what `x.clone()` and `x.to(dtype)` become in a program are standard
    cases;
  * every operator etref registers (ops_optimized/registry.c) is called by
    a standard or model case, or cases.NOT_BENCHMARKED says why not.

    cases_check.py
"""

import sys
from pathlib import Path

import torch

sys.path.insert(0, str(Path(__file__).absolute().parent))
import cases  # noqa: E402
import programs  # noqa: E402


def fail(message: str) -> None:
    print(f"cases_check: FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def main() -> None:
    found, notes = cases.model_cases(programs.MODELS_DIR)
    for note in notes:
        if "not an out-variant kernel" not in note:
            fail(f"a model call is not benchmarked: {note}")
    by_op = {}
    for case in found:
        by_op.setdefault(case.op, []).append(case)

    views = [c for c in by_op.get("aten::view_copy.out", []) if "dynamic_shape" in c.sources]
    if [c.args[1] for c in views] != [[1, 32, 16]]:
        fail(f"dynamic_shape's view_copy sizes: {[c.args[1] for c in views]}, not [[1, 32, 16]]")
    module, inputs = cases.build_module(views[0], 0)
    if tuple(module(*inputs).shape) != (1, 32, 16):
        fail(f"dynamic_shape's view_copy module gives {tuple(module(*inputs).shape)}")

    converts = by_op.get("dim_order_ops::_to_dim_order_copy.out", [])
    if not converts:
        fail("no _to_dim_order_copy case from the models (mutable_buffer has one)")
    for case in converts:
        if case.out_dtype is None:
            fail(f"{case.id}: no out dtype")
        module, inputs = cases.build_module(case, 0)
        out = module(*inputs)
        # (mobilenet_v3's copies of the constants 3 and 6 have no input:
        # the Long scalar is a program constant)
        if out.dtype != case.out_dtype or tuple(out.shape) != tuple(case.args[0].shape):
            fail(f"{case.id}: module gives {out.dtype} {tuple(out.shape)}")
    if not any(c.args[0].dtype == torch.int64 and c.out_dtype == torch.float32
               for c in converts):
        fail("mutable_buffer's Long -> Float conversion is not a case")
    fn, _, _ = cases.functional_overload("dim_order_ops::_to_dim_order_copy.out")
    if "dtype" not in [a.name for a in fn._schema.arguments]:
        fail(f"_to_dim_order_copy.out's functional overload is {fn}")

    standard = {c.id: c for c in cases.standard_cases()}
    if standard["clone-64x56"].op != "dim_order_ops::_clone_dim_order.out":
        fail(f"clone-64x56 runs {standard['clone-64x56'].op}")
    conversions = [c for c in standard.values() if c.out_dtype is not None]
    if len(conversions) < 4:
        fail(f"{len(conversions)} standard conversion cases")
    keys = {c.key() for c in standard.values()}
    if len(keys) != len(standard):
        fail("two standard cases share a key")
    registered = set(cases.registered_operators(programs.REPO))
    if len(registered) < 190:
        fail(f"read {len(registered)} registered operators from registry.c")
    called = {c.op for c in standard.values()} | set(by_op)
    uncovered = sorted(registered - called - set(cases.NOT_BENCHMARKED))
    if uncovered:
        fail(f"registered operators with no benchmark case and no reason: {uncovered}")
    stale = sorted(set(cases.NOT_BENCHMARKED) - registered)
    if stale:
        fail(f"NOT_BENCHMARKED names operators etref does not register: {stale}")
    print(f"cases_check: PASS ({len(found)} model cases, {len(standard)} standard)")


if __name__ == "__main__":
    main()
