#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Generate etref's per-op golden vectors from PyTorch's own OpInfo samples.

For every OpInfo in torch.testing._internal.common_methods_invocations.op_db
(which already includes torch.testing._internal.opinfo.definitions), every
dtype its CPU support lists among DTYPES, and every sample of
`sample_inputs` and (capped) `reference_inputs`, the OpInfo's op runs under
a TorchDispatchMode that records each ATen call reaching the dispatcher.
Calls to a core op (datasets/ops/core_ops.json) are kept with their
arguments and outputs; calls to a non-core op that has a core-ATen
decomposition (torch._decomp.core_aten_decompositions, what torch.export
uses) are decomposed under the recorder, so their core calls are kept too.
Calls nested inside a core op's own kernel are not seen: a case is always a
call as top-level as export would leave it.

Besides plain samples the generator also records
  * layout variants: SampleInput.noncontiguous() and channels-last copies of
    4-D inputs, so kernels meet strided and permuted inputs;
  * backward passes through a few OpInfos whose backward ops are core
    (convolution_backward, native_layer_norm_backward, ...);
  * derived calls: an OpInfo sample's arguments passed to a core op that
    eager mode never reaches (adaptive_avg_pool1d, avg_pool1d, col2im,
    upsample_*.vec, _native_batch_norm_legit_no_training, var.dim,
    native_dropout, copy);
  * error_inputs: the core call that raised, as a case the kernel must
    reject (the PyTorch error is kept as the case's note);
  * hand-written boundary cases (golden_boundary.py).

Each recorded call becomes a case of its out-variant kernel (core_ops.json):
arguments are bound to the functional schema (defaults filled), a Python
number in a Tensor position (a wrapped number) selects the Scalar overload
when one is core (add.Tensor -> add.Scalar), and the arguments are laid out
in the out variant's schema order with the out tensors as allocation specs.
The expected outputs are then recomputed by calling PyTorch's out variant
on inputs rebuilt from the file's own encoding (golden_format.build_input),
so the file states exactly what the kernel contract produces; a case whose
out-variant result differs from the eager result is dropped and counted.

Tolerances: integral and bool outputs, and floating outputs of ops that do
no arithmetic, are EXACT. Other floating outputs get the op's static class
(DEFAULT, TRANSCENDENTAL or ACCUMULATION); the generator then recomputes the
call with every floating input upcast to float64 and checks that PyTorch's
own result lies within that class of the float64 result rounded to the
output dtype. If it does not (PyTorch computes in lower precision, e.g.
bf16 intermediates), the case is marked LOW_PRECISION, and dropped if it is
outside even that. The classes' rtol/atol live in
ops_reference/golden/golden_tolerance.h and FORMAT.md.

Caps (so that datasets/golden/ stays near 4 MB):
  MAX_SAMPLES_PER_SOURCE     samples taken per (OpInfo, dtype, source)
  MAX_CALL_ELEMENTS          elements over all tensors of a recorded call
  MAX_CASE_BYTES             encoded size of one case
  MAX_CASES_PER_KERNEL_DTYPE OpInfo cases per (kernel, dtype)
  KERNEL_BUDGET_BYTES        bytes of OpInfo cases per kernel file
  MAX_ERROR_CASES_PER_KERNEL error cases per kernel
Selection is deterministic: candidates are visited in an order shuffled by
random.Random(SEED ^ crc32(kernel)), preferring cases that add a feature
not yet covered (a dtype, a non-contiguous or channels-last input, a 0-dim
or empty tensor, broadcasting, mixed dtypes, new argument values).
Boundary cases are kept whole, outside the budget.

Outputs: datasets/golden/<kernel>.bin (aten::add.out -> aten__add.out.bin),
datasets/golden/index.txt (one line per file, read by the C test) and
datasets/ops/golden_stats.json (per-kernel counts, for the coverage report).

Usage: .venv/bin/python datasets/ops/generate_golden.py [--golden-dir D] [--stats F]
"""

import os
import sys

if os.environ.get("PYTHONHASHSEED") != "0":
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable] + sys.argv)
for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_var] = "1"
sys.dont_write_bytecode = True

import argparse  # noqa: E402
import collections  # noqa: E402
import json  # noqa: E402
import logging  # noqa: E402
import math  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
import zlib  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, Dict, Iterator, List, Optional, Sequence, Tuple  # noqa: E402

import torch  # noqa: E402
import torch.utils.deterministic  # noqa: E402,F401
from torch.utils._python_dispatch import TorchDispatchMode  # noqa: E402
from torch.utils._pytree import tree_flatten, tree_map  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import golden_boundary  # noqa: E402
import golden_format as gf  # noqa: E402

GENERATOR = "datasets/ops/generate_golden.py"
OPS_DIR = Path(__file__).resolve().parent
REPO = OPS_DIR.parent.parent

SEED = 20251121
DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.bool,
          torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
          torch.complex64, torch.complex128]
MAX_SAMPLES_PER_SOURCE = 24
MAX_CALL_ELEMENTS = 1536
MAX_CASE_BYTES = 12 * 1024
MAX_CASES_PER_KERNEL_DTYPE = 6
KERNEL_BUDGET_BYTES = 22 * 1024
MAX_ERROR_CASES_PER_KERNEL = 6
MAX_ERROR_SAMPLES_PER_OPINFO = 24
MAX_LAYOUT_VARIANTS_PER_OPINFO_DTYPE = 2

log = logging.getLogger("generate_golden")

# ---------------------------------------------------------------------------
# Core ops (from the checked-in list)


def load_core_ops() -> Dict[str, dict]:
    # ETREF_CORE_OPS_JSON lets regenerate.sh --check use a fresh op list.
    path = Path(os.environ.get("ETREF_CORE_OPS_JSON", OPS_DIR / "core_ops.json"))
    document = json.loads(path.read_text())
    return {entry["op"]: entry for entry in document["ops"]}


CORE = load_core_ops()


def resolve(name: str) -> torch._ops.OpOverload:
    """'aten::add.out' -> torch.ops.aten.add.out ('aten::abs' -> .default)."""
    namespace, rest = name.split("::", 1)
    base, _, overload = rest.partition(".")
    return getattr(getattr(getattr(torch.ops, namespace), base), overload or "default")


# Ops whose floating outputs are compared exactly: they move, select,
# compare or convert values without arithmetic.
EXACT_OPS = {
    "abs", "neg", "sign", "ceil", "floor", "round", "trunc", "relu", "hardtanh", "clamp",
    "maximum", "minimum", "amax", "amin", "max", "min", "argmax", "argmin", "sort", "topk",
    "eq", "ne", "lt", "le", "gt", "ge", "isnan", "isinf", "logical_and", "logical_or",
    "logical_xor", "logical_not", "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not",
    "where", "cat", "clone", "copy", "_to_copy", "alias", "as_strided", "diagonal", "expand",
    "permute", "select", "slice", "split_with_sizes", "squeeze", "unsqueeze", "view",
    "constant_pad_nd", "reflection_pad1d", "reflection_pad2d", "reflection_pad3d",
    "replication_pad2d", "replication_pad3d", "flip", "repeat", "gather", "index",
    "index_select", "masked_scatter", "nonzero", "embedding", "full", "full_like", "fill",
    "scalar_tensor", "select_scatter", "slice_scatter", "scatter", "max_pool2d_with_indices",
    "max_pool3d_with_indices", "upsample_nearest2d", "any", "_local_scalar_dense",
    "sym_size", "sym_numel", "sym_stride", "sym_storage_offset", "sym_is_contiguous",
    "native_dropout", "resize_",
}
TRANSCENDENTAL_OPS = {
    "exp", "expm1", "log", "log10", "log1p", "log2", "sin", "cos", "tan", "asin", "acos",
    "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf", "sigmoid",
    "gelu", "elu", "pow", "rsqrt",
}
ACCUMULATION_OPS = {
    "sum", "mean", "prod", "var", "cumsum", "mm", "bmm", "addmm", "convolution",
    "convolution_backward", "native_layer_norm", "native_layer_norm_backward",
    "native_group_norm", "native_group_norm_backward", "_native_batch_norm_legit",
    "_native_batch_norm_legit_no_training", "avg_pool1d", "avg_pool2d", "avg_pool3d",
    "avg_pool2d_backward", "_adaptive_avg_pool2d", "_adaptive_avg_pool3d",
    "adaptive_avg_pool1d", "_adaptive_avg_pool2d_backward", "upsample_bilinear2d",
    "grid_sampler_2d", "_cdist_forward", "_pdist_forward", "col2im",
    "embedding_dense_backward", "_embedding_bag", "_softmax", "_log_softmax", "scatter_add",
    "scatter_reduce", "index_put", "_fft_r2c", "_fft_c2r", "max_pool2d_with_indices_backward",
    "arange",
}
# Outputs that are random or uninitialized: only dtype and shape are defined.
SHAPE_ONLY_OPS = {"rand", "randn", "empty", "empty_strided"}


def op_base(op_name: str) -> str:
    return op_name.split("::", 1)[1].split(".", 1)[0]


def static_tolerance(op_name: str) -> int:
    base = op_base(op_name)
    if base in SHAPE_ONLY_OPS:
        return gf.TOL_SHAPE_ONLY
    if base == "randperm":
        return gf.TOL_PERMUTATION
    if base in EXACT_OPS:
        return gf.TOL_EXACT
    if base in TRANSCENDENTAL_OPS:
        return gf.TOL_TRANSCENDENTAL
    if base in ACCUMULATION_OPS:
        return gf.TOL_ACCUMULATION
    return gf.TOL_DEFAULT


# The C side's table (ops_reference/golden/golden_tolerance.h), mirrored to
# calibrate classes against PyTorch's own float64 results. (rtol, atol).
_TORCH_DEFAULTS = {torch.float16: (1e-3, 1e-5), torch.bfloat16: (1.6e-2, 1e-5),
                   torch.float32: (1.3e-6, 1e-5), torch.float64: (1e-7, 1e-7)}
TOLERANCES = {
    gf.TOL_DEFAULT: _TORCH_DEFAULTS,
    gf.TOL_TRANSCENDENTAL: {torch.float16: (2e-3, 1e-5), torch.bfloat16: (1.6e-2, 1e-5),
                            torch.float32: (4e-6, 1e-5), torch.float64: (1e-7, 1e-7)},
    gf.TOL_ACCUMULATION: {torch.float16: (4e-3, 1e-3), torch.bfloat16: (3.2e-2, 1e-2),
                          torch.float32: (1e-5, 1e-5), torch.float64: (1e-7, 1e-7)},
    gf.TOL_LOW_PRECISION: {torch.float16: (1e-2, 1e-2), torch.bfloat16: (8e-2, 5e-2),
                           torch.float32: (1e-4, 1e-4), torch.float64: (1e-6, 1e-6)},
}
REAL_OF = {torch.complex64: torch.float32, torch.complex128: torch.float64}
CALIBRATION: collections.Counter = collections.Counter()

# ---------------------------------------------------------------------------
# Recording


@dataclass
class Snap:
    """A tensor argument as it was when the call was made."""

    values: torch.Tensor  # logical values, contiguous
    strides: Tuple[int, ...]
    offset: int
    contiguous: bool


def snap(value: Any) -> Any:
    def one(x):
        if isinstance(x, torch.Tensor):
            t = x.detach()
            return Snap(t.contiguous().clone(), tuple(t.stride()), t.storage_offset(),
                        t.is_contiguous())
        return x
    return tree_map(one, value)


def count_elements(value: Any) -> int:
    leaves, _ = tree_flatten(value)
    return sum(x.numel() for x in leaves if isinstance(x, torch.Tensor))


@dataclass
class Record:
    func: torch._ops.OpOverload
    args: tuple
    kwargs: dict
    output: Any = None
    error: Optional[BaseException] = None


class Recorder(TorchDispatchMode):
    """Records core-op calls; decomposes other ops into core ops."""

    def __init__(self, decompositions: Dict[Any, Any]) -> None:
        super().__init__()
        self.records: List[Record] = []
        self.decompositions = decompositions
        self.oversized = 0

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name = func.name()
        if name in CORE:
            return self._record(func, args, kwargs)
        if name == "aten::copy_" and len(args) >= 2:
            # copy_ is how eager writes converted values; its functional
            # twin aten::copy is core but never reached otherwise.
            self._record_copy(args, kwargs)
            return func(*args, **kwargs)
        decomposition = self.decompositions.get(func)
        if decomposition is not None and not func._schema.is_mutable:
            with self:
                result = decomposition(*args, **kwargs)
            if result is not NotImplemented:
                return result
        return func(*args, **kwargs)

    def _record(self, func, args, kwargs):
        small = count_elements((args, kwargs)) <= MAX_CALL_ELEMENTS
        snapshot = snap((args, kwargs)) if small else None
        try:
            out = func(*args, **kwargs)
        except Exception as error:
            if small:
                self.records.append(Record(func, snapshot[0], snapshot[1], None, error))
            raise
        if small and count_elements(out) <= MAX_CALL_ELEMENTS:
            self.records.append(Record(func, snapshot[0], snapshot[1], snap(out)))
        else:
            self.oversized += 1
        return out

    def _record_copy(self, args, kwargs):
        target, source = args[0], args[1]
        if count_elements((target, source)) > MAX_CALL_ELEMENTS:
            return
        try:
            out = torch.ops.aten.copy.default(target.detach(), source.detach(),
                                              *args[2:], **kwargs)
        except Exception:
            return
        self.records.append(Record(torch.ops.aten.copy.default,
                                   snap((target, source) + tuple(args[2:])), snap(kwargs),
                                   snap(out)))


# ---------------------------------------------------------------------------
# From records to cases


class Skip(Exception):
    """A record that cannot become a case (reason in the message)."""


def to_tensor_value(s: Snap) -> gf.TensorValue:
    if s.values.dim() > gf.MAX_DIMS:
        raise Skip("rank above 16")
    if s.contiguous and s.offset == 0:
        return gf.TensorValue(s.values)
    return gf.TensorValue(s.values, s.strides, s.offset)


def is_channels_last(s: Snap) -> bool:
    v = s.values
    if v.dim() != 4 or s.contiguous:
        return False
    n, c, h, w = v.shape
    return s.strides == (h * w * c, 1, w * c, c)


def bind(func: torch._ops.OpOverload, args: tuple, kwargs: dict) -> Dict[str, Any]:
    bound: Dict[str, Any] = {}
    for i, arg in enumerate(func._schema.arguments):
        if not arg.kwarg_only and i < len(args):
            bound[arg.name] = args[i]
        elif arg.name in kwargs:
            bound[arg.name] = kwargs[arg.name]
        elif arg.has_default_value():
            bound[arg.name] = arg.default_value
        elif arg.type.kind() == "OptionalType":
            bound[arg.name] = None
        else:
            raise Skip(f"argument {arg.name} of {func.name()} missing")
    return bound


def is_number(x: Any) -> bool:
    return isinstance(x, (bool, int, float, complex)) and not isinstance(x, torch.Tensor)


def scalar_overload(func: torch._ops.OpOverload, bound: Dict[str, Any]):
    """For wrapped numbers in Tensor positions, the core Scalar overload."""
    wrapped = {a.name for a in func._schema.arguments
               if str(a.type) == "Tensor" and is_number(bound.get(a.name))}
    if not wrapped:
        return func, bound
    packet = func.overloadpacket
    for overload in packet.overloads():
        candidate = getattr(packet, overload)
        if candidate.name() not in CORE or candidate is func:
            continue
        mine, theirs = func._schema.arguments, candidate._schema.arguments
        if [a.name for a in mine] != [a.name for a in theirs]:
            continue
        if all((str(b.type) == "number") if a.name in wrapped else str(a.type) == str(b.type)
               for a, b in zip(mine, theirs)):
            return candidate, bound
    # No Scalar overload: the number becomes a 0-dim tensor, as PyTorch
    # would wrap it (int64, float64, bool, complex128).
    rebound = dict(bound)
    for name in wrapped:
        rebound[name] = snap(torch.tensor(bound[name]))
    return func, rebound


def encode_arg(arg, value) -> gf.Value:
    """One schema argument as a file EValue (mirrors exir's emitter)."""
    type_ = arg.type
    if type_.kind() == "OptionalType":
        if value is None:
            return gf.Value(gf.TAG_NONE)
        type_ = type_.getElementType()
    kind = type_.kind()
    if isinstance(value, torch.dtype):
        return gf.Value(gf.TAG_SCALAR_TYPE, gf.SCALAR_TYPE[value])
    if isinstance(value, torch.memory_format):
        return gf.Value(gf.TAG_MEMORY_FORMAT, gf.MEMORY_FORMAT[value])
    if isinstance(value, torch.layout):
        if value not in gf.LAYOUT:
            raise Skip(f"layout {value}")
        return gf.Value(gf.TAG_LAYOUT, gf.LAYOUT[value])
    if isinstance(value, torch.device):
        if value.type != "cpu":
            raise Skip("non-cpu device")
        return gf.Value(gf.TAG_NONE)  # etref runs on the CPU only
    if kind == "TensorType":
        if not isinstance(value, Snap):
            raise Skip(f"{arg.name}: expected a tensor, got {type(value).__name__}")
        return gf.Value(gf.TAG_TENSOR, to_tensor_value(value))
    if kind == "ListType":
        element = type_.getElementType()
        items = list(value) if isinstance(value, (list, tuple, torch.Size)) else None
        if items is None:
            if not is_number(value):
                raise Skip(f"{arg.name}: list expected")
            items = [value] * (arg.N or 1)
        element_kind = element.kind()
        if element_kind == "TensorType":
            if not all(isinstance(x, Snap) for x in items):
                raise Skip("tensor list with non-tensors")
            return gf.Value(gf.TAG_TENSOR_LIST, [to_tensor_value(x) for x in items])
        if element_kind == "OptionalType":
            return gf.Value(gf.TAG_OPTIONAL_TENSOR_LIST,
                            [None if x is None else to_tensor_value(x) for x in items])
        if element_kind in ("IntType", "SymIntType"):
            return gf.Value(gf.TAG_INT_LIST, [int(x) for x in items])
        if element_kind == "FloatType":
            return gf.Value(gf.TAG_DOUBLE_LIST, [float(x) for x in items])
        if element_kind == "BoolType":
            return gf.Value(gf.TAG_BOOL_LIST, [bool(x) for x in items])
        raise Skip(f"list of {element}")
    if isinstance(value, Snap):
        raise Skip(f"{arg.name}: tensor in a {type_} position")
    if isinstance(value, bool):
        return gf.Value(gf.TAG_BOOL, value)
    if isinstance(value, int):
        if not -2**63 <= value < 2**63:
            raise Skip("integer beyond int64")
        return gf.Value(gf.TAG_INT, value)
    if isinstance(value, float):
        return gf.Value(gf.TAG_DOUBLE, value)
    if isinstance(value, str):
        return gf.Value(gf.TAG_STRING, value)
    if value is None:
        raise Skip(f"{arg.name}: None for non-optional {type_}")
    raise Skip(f"{arg.name}: unsupported value {type(value).__name__}")


def dense_dim_order(s: Snap) -> Optional[Tuple[int, ...]]:
    """The dim order of a dense non-contiguous output (None: contiguous)."""
    if s.contiguous or s.values.numel() == 0:
        return None
    sizes = list(s.values.shape)
    order = sorted(range(len(sizes)), key=lambda d: (-s.strides[d], d))
    expected, stride = [0] * len(sizes), 1
    for d in reversed(order):
        expected[d] = stride
        stride *= max(sizes[d], 1)
    if all(sizes[d] == 1 or expected[d] == s.strides[d] for d in range(len(sizes))):
        return tuple(order)
    return None


def flatten_outputs(output: Any) -> List[Any]:
    if isinstance(output, (list, tuple)):
        items = []
        for x in output:
            items.extend(flatten_outputs(x))
        return items
    return [output]


def out_structure(out_op: torch._ops.OpOverload, out_names: Sequence[str]) -> List[Tuple[str, bool]]:
    """(name, is_list) of each out argument, in schema order."""
    result = []
    for arg in out_op._schema.arguments:
        if arg.name in out_names:
            result.append((arg.name, arg.type.kind() == "ListType"))
    return result


@dataclass
class Candidate:
    kernel: str
    case: gf.Case
    features: frozenset
    size: int
    # For validation (oracle run and calibration):
    entry: dict
    func: Any
    bound: Dict[str, Any]
    outputs: List[Any]           # Snaps (tensor outs) or numbers (prim)
    error: Optional[BaseException] = None
    error_regex: Optional[str] = None


def make_candidate(record: Record, source_kind: int, source: str, sample_index: int,
                   dtype: Optional[torch.dtype], error_regex: Optional[str] = None) -> Candidate:
    func = record.func
    bound = bind(func, record.args, record.kwargs)
    func, bound = scalar_overload(func, bound)
    entry = CORE[func.name()]
    if entry["kind"] == "inplace":
        raise Skip("in-place op")
    check_well_defined(func.name(), bound)
    kernel = entry["kernel"]
    is_prim = entry["kind"] == "prim"
    kernel_op = resolve(kernel)
    expecting_error = record.error is not None
    outputs = [] if expecting_error else flatten_outputs(record.output)
    args: List[gf.Value] = []
    out_index = 0
    out_names = set(entry["out_args"])
    dropped = [n for n in bound if n not in {a.name for a in kernel_op._schema.arguments}]
    structure = out_structure(kernel_op, entry["out_args"])
    if any(is_list for _, is_list in structure) and len(structure) > 1:
        raise Skip("a Tensor[] out beside other outs")
    for arg in kernel_op._schema.arguments:
        if arg.name in out_names:
            is_list = arg.type.kind() == "ListType"
            if expecting_error:
                specs = guess_out_specs(bound, is_list)
            else:
                count = len(outputs) if is_list else 1
                specs = []
                for s in outputs[out_index:out_index + count]:
                    if not isinstance(s, Snap):
                        raise Skip("non-tensor output of an out variant")
                    if s.values.dim() > gf.MAX_DIMS:
                        raise Skip("rank above 16")
                    specs.append(gf.OutSpec(s.values.dtype, tuple(s.values.shape),
                                            dense_dim_order(s)))
                if len(specs) != count:
                    raise Skip("fewer outputs than out tensors")
                out_index += count
            if is_list:
                args.append(gf.Value(gf.TAG_OUT_TENSOR_LIST, specs))
            else:
                args.append(gf.Value(gf.TAG_OUT_TENSOR, specs[0]))
            continue
        if arg.name not in bound:
            if arg.has_default_value():
                bound[arg.name] = arg.default_value
            else:
                raise Skip(f"{kernel}: argument {arg.name} has no value")
        args.append(encode_arg(arg, bound[arg.name]))
    if not expecting_error and not is_prim and out_index != len(outputs):
        raise Skip(f"{kernel}: {len(outputs)} outputs for {out_index} out tensors")
    expected: List[gf.Value] = []
    if not expecting_error:
        for s in outputs:
            expected.append(expected_value(s))
    note = record.func.name() if record.func.name() != func.name() else ""
    if dropped:
        note += (" " if note else "") + "functional-only args: " + ",".join(sorted(dropped))
    if expecting_error:
        note = f"{type(record.error).__name__}: {first_line(str(record.error))}"
    tolerance = gf.TOL_EXACT if expecting_error else initial_tolerance(func.name(), outputs)
    dtype = case_dtype(bound, outputs) or dtype
    case = gf.Case(gf.EXPECT_ERROR if expecting_error else gf.EXPECT_VALUES, tolerance,
                   source_kind, gf.SCALAR_TYPE[dtype] if dtype is not None else gf.NO_DTYPE,
                   sample_index, source, note, args, expected)
    if any(a.alias_info is not None and a.alias_info.is_write and a.name not in out_names
           for a in kernel_op._schema.arguments):
        case.flags |= gf.FLAG_MUTATES_INPUTS
    size = len(gf.encode_case(case))
    if size > MAX_CASE_BYTES and source_kind != gf.SOURCE_BOUNDARY:
        raise Skip("case too large")
    return Candidate(kernel, case, features_of(case, bound, dtype), size, entry, func, bound,
                     outputs, record.error, error_regex)


def check_well_defined(name: str, bound: Dict[str, Any]) -> None:
    """Skips calls whose result PyTorch leaves open or an ExecuTorch tensor
    cannot express."""
    if name == "aten::as_strided":
        # as_strided addresses the input's storage; an ExecuTorch tensor
        # owns exactly its elements, so only a dense input whose elements
        # cover every address is meaningful.
        s = bound["self"]
        reach = (bound.get("storage_offset") or 0) + sum(
            (size - 1) * stride for size, stride in zip(bound["size"], bound["stride"]) if size > 0)
        if not (s.contiguous and s.offset == 0) or reach >= s.values.numel():
            raise Skip("as_strided reads storage beyond its input's elements")
    if name in ("aten::sort", "aten::topk") and not bound.get("stable"):
        # An unstable sort may order equal values (and NaNs) either way, so
        # the indices are not defined when the sorted dim holds duplicates.
        values = bound["self"].values
        if values.dim() > 0 and values.numel() > 1:
            dim = bound["dim"] % values.dim()
            ordered = values.sort(dim).values
            n = ordered.shape[dim]
            if n > 1:
                equal = ordered.narrow(dim, 1, n - 1) == ordered.narrow(dim, 0, n - 1)
                nans = torch.isnan(values).sum(dim) > 1 if values.is_floating_point() else equal
                if bool(equal.any()) or bool(nans.any()):
                    raise Skip("unstable sort of equal values: indices undefined")


def case_dtype(bound: Dict[str, Any], outputs: List[Any]) -> Optional[torch.dtype]:
    """The dtype a case exercises: its first tensor input's (else its first
    output's). The OpInfo dtype can differ (max_unpool2d calls add on its
    int64 indices)."""
    for value in list(bound.values()) + outputs:
        leaves, _ = tree_flatten(value)
        for x in leaves:
            if isinstance(x, Snap) and x.values.dtype in gf.SCALAR_TYPE:
                return x.values.dtype
    return None


def first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line[:300]


def expected_value(s: Any) -> gf.Value:
    if isinstance(s, Snap):
        return gf.Value(gf.TAG_TENSOR, gf.TensorValue(to_tensor_value(s).tensor))
    if isinstance(s, bool):
        return gf.Value(gf.TAG_BOOL, s)
    if isinstance(s, int):
        return gf.Value(gf.TAG_INT, s)
    if isinstance(s, float):
        return gf.Value(gf.TAG_DOUBLE, s)
    raise Skip(f"output of type {type(s).__name__}")


def guess_out_specs(bound: Dict[str, Any], is_list: bool) -> List[gf.OutSpec]:
    """Out tensors for an error case: the first tensor argument's dtype and
    shape (the kernel must fail for the argument error, not for its out)."""
    first = None
    for value in bound.values():
        leaves, _ = tree_flatten(value)
        first = next((x for x in leaves if isinstance(x, Snap)), None)
        if first is not None:
            break
    dtype = first.values.dtype if first is not None else torch.float32
    sizes = tuple(first.values.shape) if first is not None else (1,)
    count = 1
    if is_list:
        lists = [v for v in bound.values() if isinstance(v, (list, tuple)) and v
                 and all(isinstance(x, int) for x in v)]
        count = len(lists[0]) if lists else 1
    return [gf.OutSpec(dtype, sizes) for _ in range(count)]


def initial_tolerance(op_name: str, outputs: List[Any]) -> int:
    tolerance = static_tolerance(op_name)
    if tolerance in (gf.TOL_SHAPE_ONLY, gf.TOL_PERMUTATION):
        return tolerance
    floating = any(isinstance(s, Snap) and (s.values.is_floating_point() or s.values.is_complex())
                   for s in outputs) or any(isinstance(s, float) for s in outputs)
    return tolerance if floating else gf.TOL_EXACT


def features_of(case: gf.Case, bound: Dict[str, Any], dtype) -> frozenset:
    features = {("dtype", case.dtype), ("expect", case.expect)}
    shapes, dtypes = set(), set()
    for value in bound.values():
        leaves, _ = tree_flatten(value)
        for x in leaves:
            if isinstance(x, Snap):
                shapes.add(tuple(x.values.shape))
                dtypes.add(x.values.dtype)
                if not x.contiguous or x.offset:
                    features.add(("noncontiguous",))
                if is_channels_last(x):
                    features.add(("channels_last",))
                if x.values.dim() == 0:
                    features.add(("zero_dim",))
                if x.values.numel() == 0:
                    features.add(("empty",))
                features.add(("rank", x.values.dim()))
            elif isinstance(x, (bool, int, float, str)) or x is None:
                features.add(("arg", str(x)[:16]))
    if len(shapes) > 1:
        features.add(("broadcast_or_shapes",))
    if len(dtypes) > 1:
        features.add(("mixed_dtypes",))
    return frozenset(features)


FEATURE_WEIGHT = {"noncontiguous": 4, "channels_last": 4, "zero_dim": 3, "empty": 3,
                  "broadcast_or_shapes": 2, "mixed_dtypes": 3, "rank": 1, "arg": 1,
                  "dtype": 8, "expect": 0}


# ---------------------------------------------------------------------------
# Validation: PyTorch's out variant on the rebuilt inputs, and calibration


def rebuild(value: Any) -> Any:
    def one(x):
        if isinstance(x, Snap):
            return gf.build_input(to_tensor_value(x))
        return x
    return tree_map(one, value)


def call_kernel_op(candidate: Candidate, upcast: bool = False):
    """Calls the out variant (or prim op) the way the C harness does."""
    entry = candidate.entry
    kernel_op = resolve(entry["kernel"])
    bound = rebuild(candidate.bound)
    if upcast:
        bound = tree_map(upcast_tensor, bound)
    if entry["kind"] == "prim":
        names = [a.name for a in kernel_op._schema.arguments]
        return [kernel_op(*[bound[n] for n in names])]
    kwargs = {}
    positional = []
    outs: List[torch.Tensor] = []
    for value, arg in zip(candidate.case.args, kernel_op._schema.arguments):
        if value.tag == gf.TAG_OUT_TENSOR:
            out = torch.empty(0, dtype=upcast_dtype(value.payload.dtype) if upcast
                              else value.payload.dtype)
            outs.append(out)
            kwargs[arg.name] = out
        elif value.tag == gf.TAG_OUT_TENSOR_LIST:
            items = [torch.empty(0, dtype=upcast_dtype(s.dtype) if upcast else s.dtype)
                     for s in value.payload]
            outs.extend(items)
            kwargs[arg.name] = items
        elif arg.kwarg_only:
            kwargs[arg.name] = bound[arg.name]
        else:
            positional.append(bound[arg.name])
    kernel_op(*positional, **kwargs)
    return outs


def upcast_dtype(dtype: torch.dtype) -> torch.dtype:
    if dtype in (torch.float16, torch.bfloat16, torch.float32):
        return torch.float64
    if dtype == torch.complex64:
        return torch.complex128
    return dtype


def upcast_tensor(x: Any) -> Any:
    if isinstance(x, torch.Tensor) and upcast_dtype(x.dtype) != x.dtype:
        return x.to(upcast_dtype(x.dtype))
    return x


def same_values(a: torch.Tensor, b: torch.Tensor) -> bool:
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.is_floating_point() or a.is_complex():
        return bool(torch.equal(torch.nan_to_num(a, nan=0.0), torch.nan_to_num(b, nan=0.0))
                    and torch.equal(torch.isnan(a), torch.isnan(b)))
    return bool(torch.equal(a, b))


def within(actual: torch.Tensor, reference: torch.Tensor, rtol: float, atol: float) -> bool:
    if actual.is_complex():
        return (within(actual.real, reference.real, rtol, atol)
                and within(actual.imag, reference.imag, rtol, atol))
    a, r = actual.double(), reference.double()
    nan_a, nan_r = torch.isnan(a), torch.isnan(r)
    if not torch.equal(nan_a, nan_r):
        return False
    inf = torch.isinf(a) | torch.isinf(r)
    if not torch.equal(a[inf], r[inf]):
        return False
    finite = ~(nan_a | inf)
    return bool(((a[finite] - r[finite]).abs() <= atol + rtol * r[finite].abs()).all())


class Invalid(Exception):
    """A candidate that fails validation: (reason, detail)."""


def validate(candidate: Candidate) -> None:
    """Replaces the expected outputs by the out variant's result on the
    rebuilt inputs, checks it against eager, and calibrates the tolerance."""
    case = candidate.case
    if case.expect == gf.EXPECT_ERROR:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                call_kernel_op(candidate)
        except Exception as error:
            if type(error) is not type(candidate.error) and not isinstance(error, RuntimeError):
                raise Invalid("out variant raised a different error type")
            if candidate.error_regex and not re.search(candidate.error_regex, str(error)):
                raise Invalid("out variant raised a different error")
            return
        raise Invalid("out variant accepted the arguments")
    if case.tolerance in (gf.TOL_SHAPE_ONLY, gf.TOL_PERMUTATION):
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            results = call_kernel_op(candidate)
        except Exception as error:
            raise Invalid(f"out variant raised {type(error).__name__}: {first_line(str(error))}")
    if len(results) != len(candidate.outputs):
        raise Invalid("out variant produced a different number of outputs")
    for result, eager in zip(results, candidate.outputs):
        if isinstance(eager, Snap):
            if not same_values(result.contiguous(), eager.values):
                raise Invalid("out variant differs from eager")
        elif result != eager and not (isinstance(eager, float) and math.isnan(eager)):
            raise Invalid("prim op differs from eager")
    calibrate(candidate, results)


def calibrate(candidate: Candidate, results: List[Any]) -> None:
    case = candidate.case
    if case.tolerance == gf.TOL_EXACT or candidate.entry["kind"] == "prim":
        return
    floating = [r for r in results if isinstance(r, torch.Tensor)
                and r.dtype in (torch.float16, torch.bfloat16, torch.float32, torch.complex64)]
    if not floating:
        return
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            references = call_kernel_op(candidate, upcast=True)
    except Exception:
        return  # no float64 kernel: keep the static class
    # How often PyTorch itself misses torch.testing's default tolerance
    # against its own float64 result: the evidence for each departure.
    for result, reference in zip(results, references):
        if isinstance(result, torch.Tensor) and result.dtype in (
                torch.float16, torch.bfloat16, torch.float32, torch.complex64) \
                and reference.shape == result.shape:
            real = REAL_OF.get(result.dtype, result.dtype)
            key = f"{gf.TOLERANCE_NAMES[case.tolerance]} {str(real).replace('torch.', '')}"
            rtol, atol = TOLERANCES[gf.TOL_DEFAULT][real]
            CALIBRATION[key + " cases"] += 1
            if not within(result, reference.to(result.dtype), rtol, atol):
                CALIBRATION[key + " miss torch defaults"] += 1
    detail = ""
    for tolerance in (case.tolerance, gf.TOL_LOW_PRECISION):
        ok = True
        for result, reference in zip(results, references):
            if not isinstance(result, torch.Tensor) or result.dtype not in (
                    torch.float16, torch.bfloat16, torch.float32, torch.complex64):
                continue
            if reference.shape != result.shape:
                return
            rounded = reference.to(result.dtype)
            rtol, atol = TOLERANCES[tolerance][REAL_OF.get(result.dtype, result.dtype)]
            if not within(result, rounded, rtol, atol):
                ok = False
                detail = first_difference(result, rounded, rtol, atol, candidate)
                break
        if ok:
            case.tolerance = tolerance
            return
    raise Invalid("PyTorch differs from its own float64 result beyond LOW_PRECISION", detail)


def first_difference(result: torch.Tensor, reference: torch.Tensor, rtol: float, atol: float,
                     candidate: Candidate) -> str:
    """'x=inf: pytorch nan, float64 inf' for the first element out of tolerance."""
    flat_r, flat_e = result.reshape(-1), reference.reshape(-1)
    inputs = [x for x in tree_flatten(candidate.bound)[0] if isinstance(x, Snap)]
    for i in range(flat_r.numel()):
        if not within(flat_r[i:i + 1], flat_e[i:i + 1], rtol, atol):
            where = ""
            if inputs and inputs[0].values.shape == result.shape:
                where = f"input {inputs[0].values.reshape(-1)[i].item()!r}: "
            return (f"{where}element {i}: PyTorch {flat_r[i].item()!r}, "
                    f"float64 rounded {flat_e[i].item()!r}")
    return ""


# ---------------------------------------------------------------------------
# Collection


class Collector:
    """Candidates per kernel, kept bounded while collecting."""

    PER_FEATURE_SET = 2
    PER_KERNEL_DTYPE = 160

    def __init__(self) -> None:
        self.compute: Dict[str, Dict[int, List[Candidate]]] = collections.defaultdict(
            lambda: collections.defaultdict(list))
        self.feature_counts: Dict[Tuple[str, int, frozenset], int] = collections.Counter()
        self.errors: Dict[str, List[Candidate]] = collections.defaultdict(list)
        self.boundary: Dict[str, List[Candidate]] = collections.defaultdict(list)
        self.skips = collections.Counter()
        self.opinfo_kernels: Dict[str, set] = collections.defaultdict(set)
        self.findings: List[dict] = []

    def add_records(self, records: List[Record], source_kind: int, source: str,
                    sample_index: int, dtype, error_regex: Optional[str] = None) -> None:
        for record in records:
            if record.error is not None and source_kind not in (gf.SOURCE_ERROR,
                                                                 gf.SOURCE_BOUNDARY):
                # A valid sample PyTorch rejects (often a layout variant its
                # kernel does not take) is a PyTorch limitation, not a
                # semantic error a kernel must reproduce.
                self.skips["sample raised inside a core op"] += 1
                continue
            try:
                candidate = make_candidate(record, source_kind, source, sample_index, dtype,
                                           error_regex)
            except Skip as reason:
                self.skips[re.sub(r"^\w+: ", "", str(reason))[:60]] += 1
                continue
            self.add(candidate)

    def add(self, candidate: Candidate) -> None:
        kernel, case = candidate.kernel, candidate.case
        if case.source_kind == gf.SOURCE_BOUNDARY:
            self.boundary[kernel].append(candidate)
            return
        self.opinfo_kernels[kernel].add(case.source)
        if case.expect == gf.EXPECT_ERROR:
            if len(self.errors[kernel]) < 8 * MAX_ERROR_CASES_PER_KERNEL:
                self.errors[kernel].append(candidate)
            return
        key = (kernel, case.dtype, candidate.features)
        bucket = self.compute[kernel][case.dtype]
        if self.feature_counts[key] >= self.PER_FEATURE_SET or len(bucket) >= self.PER_KERNEL_DTYPE:
            return
        self.feature_counts[key] += 1
        bucket.append(candidate)


def run_recorded(thunk, decompositions) -> Tuple[List[Record], Optional[BaseException]]:
    recorder = Recorder(decompositions)
    error = None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with recorder:
                thunk()
        except Exception as e:  # an error input, or a sample PyTorch rejects
            error = e
    return recorder.records, error


def direct_record(op, args: tuple, kwargs: dict) -> Optional[Record]:
    """Calls a core op outside the recorder (symbolic and CompositeImplicit
    ops never reach a dispatch mode) and records it the same way."""
    if count_elements((args, kwargs)) > MAX_CALL_ELEMENTS:
        return None
    snapshot = snap((args, kwargs))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = op(*args, **kwargs)
        except Exception as error:
            return Record(op, snapshot[0], snapshot[1], None, error)
    return Record(op, snapshot[0], snapshot[1], snap(out))


def seed_for(*parts: object) -> int:
    return (SEED ^ zlib.crc32("/".join(str(p) for p in parts).encode())) & 0x7FFFFFFF


def sample_tensors_small(sample) -> bool:
    leaves, _ = tree_flatten((sample.input, sample.args, sample.kwargs))
    return sum(x.numel() for x in leaves if isinstance(x, torch.Tensor)) <= MAX_CALL_ELEMENTS


def to_channels_last(sample):
    def one(x):
        if isinstance(x, torch.Tensor) and x.dim() == 4:
            return x.contiguous(memory_format=torch.channels_last)
        return x
    return sample.transform(one)


def has_4d(sample) -> bool:
    leaves, _ = tree_flatten((sample.input, sample.args, sample.kwargs))
    return any(isinstance(x, torch.Tensor) and x.dim() == 4 for x in leaves)


def opinfo_label(info) -> str:
    return info.name + ("." + info.variant_test_name if info.variant_test_name else "")


def call_sample(info, sample):
    return info.op(sample.input, *sample.args, **sample.kwargs)


# Derived calls: an OpInfo sample's arguments handed to a core op that eager
# mode never reaches (it is composite in eager but preserved by export).
def _derive_batch_norm(sample):
    running_mean, running_var = sample.args[0], sample.args[1]
    weight = sample.args[2] if len(sample.args) > 2 else sample.kwargs.get("weight")
    bias = sample.args[3] if len(sample.args) > 3 else sample.kwargs.get("bias")
    if sample.kwargs.get("training", False) or running_mean is None:
        return []
    return [(torch.ops.aten._native_batch_norm_legit_no_training.default,
             (sample.input, weight, bias, running_mean, running_var,
              sample.kwargs.get("momentum", 0.1), sample.kwargs.get("eps", 1e-5)), {})]


def _derive_adaptive_avg_pool1d(sample):
    size = sample.args[0]
    return [(torch.ops.aten.adaptive_avg_pool1d.default,
             (sample.input, [size] if isinstance(size, int) else list(size)), {})]


def _derive_avg_pool1d(sample):
    kernel = sample.args[0] if sample.args else sample.kwargs["kernel_size"]
    as_list = lambda v: [v] if isinstance(v, int) else list(v)  # noqa: E731
    stride = sample.kwargs.get("stride")
    return [(torch.ops.aten.avg_pool1d.default,
             (sample.input, as_list(kernel), as_list(stride) if stride is not None else [],
              as_list(sample.kwargs.get("padding", 0)), sample.kwargs.get("ceil_mode", False),
              sample.kwargs.get("count_include_pad", True)), {})]


def _derive_col2im(sample):
    x = sample.input
    if x.dim() not in (3, 4):
        return []
    names = ("kernel_size", "dilation", "padding", "stride")
    values = dict(zip(names, sample.args))
    values.update({k: v for k, v in sample.kwargs.items() if k in names})
    values.setdefault("dilation", 1)
    values.setdefault("padding", 0)
    values.setdefault("stride", 1)
    pair = lambda v: [v, v] if isinstance(v, int) else list(v)  # noqa: E731
    try:
        columns = torch.nn.functional.unfold(x, **values)
    except RuntimeError:
        return []
    return [(torch.ops.aten.col2im.default,
             (columns, list(x.shape[-2:]), pair(values["kernel_size"]), pair(values["dilation"]),
              pair(values["padding"]), pair(values["stride"])), {})]


def _derive_upsample(mode_op):
    def derive(sample):
        x = sample.input
        size = sample.args[0] if sample.args else sample.kwargs.get("size")
        scale = sample.kwargs.get("scale_factor")
        mode = sample.kwargs.get("mode", "nearest")
        if x.dim() != 4 or mode != mode_op:
            return []
        output_size = None
        if size is not None:
            output_size = [size, size] if isinstance(size, int) else list(size)
        scales = None if scale is None else ([scale, scale] if isinstance(scale, (int, float)) else list(scale))
        if output_size is not None:
            scales = None  # F.interpolate ignores the scale when a size is given
        if mode_op == "nearest":
            return [(torch.ops.aten.upsample_nearest2d.vec, (x, output_size, scales), {})]
        align = bool(sample.kwargs.get("align_corners") or False)
        return [(torch.ops.aten.upsample_bilinear2d.vec, (x, output_size, align, scales), {})]
    return derive


def _derive_var_dim(sample):
    if sample.args and isinstance(sample.args[0], bool):
        return [(torch.ops.aten.var.dim, (sample.input, None, sample.args[0], False), {})]
    dim = sample.kwargs.get("dim")
    if "correction" in sample.kwargs or sample.args:
        return []
    dims = None if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    return [(torch.ops.aten.var.dim, (sample.input, dims, sample.kwargs.get("unbiased", True),
                                      sample.kwargs.get("keepdim", False)), {})]


def _derive_dropout(sample):
    p = sample.kwargs.get("p", 0.5)
    training = sample.kwargs.get("training", True)
    if training and p not in (0.0, 1.0):
        return []  # random mask
    return [(torch.ops.aten.native_dropout.default, (sample.input, p, training), {})]


DERIVED = {
    "nn.functional.batch_norm": _derive_batch_norm,
    "nn.functional.adaptive_avg_pool1d": _derive_adaptive_avg_pool1d,
    "nn.functional.avg_pool1d": _derive_avg_pool1d,
    "nn.functional.unfold": _derive_col2im,
    "nn.functional.interpolate.nearest": _derive_upsample("nearest"),
    "nn.functional.interpolate.bilinear": _derive_upsample("bilinear"),
    "nn.functional.upsample_nearest": _derive_upsample("nearest"),
    "nn.functional.upsample_bilinear": _derive_upsample("bilinear"),
    "var": _derive_var_dim,
    "var.unbiased": _derive_var_dim,
    "nn.functional.dropout": _derive_dropout,
}

# OpInfos whose backward pass reaches core backward ops.
BACKWARD = {
    "nn.functional.conv1d", "nn.functional.conv2d", "nn.functional.conv3d",
    "nn.functional.conv_transpose1d", "nn.functional.conv_transpose2d",
    "nn.functional.layer_norm", "nn.functional.group_norm", "nn.functional.avg_pool2d",
    "nn.functional.adaptive_avg_pool2d", "nn.functional.max_pool2d", "nn.functional.embedding",
    "nn.functional.embedding_bag",
}
BACKWARD_DTYPES = [torch.float32, torch.float64]


def collect_opinfo(collector: Collector, decompositions) -> Dict[str, float]:
    from torch.testing._internal.common_methods_invocations import op_db

    timings: Dict[str, float] = {}
    for info in op_db:
        label = opinfo_label(info)
        start = time.time()
        supported = info.supported_dtypes("cpu")
        for dtype in DTYPES:
            if dtype not in supported:
                continue
            layout_variants = 0
            for source_kind, producer in ((gf.SOURCE_SAMPLE, info.sample_inputs),
                                          (gf.SOURCE_REFERENCE, info.reference_inputs)):
                torch.manual_seed(seed_for(label, dtype, source_kind))
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        samples = producer("cpu", dtype)
                        for index, sample in enumerate(samples):
                            if index >= MAX_SAMPLES_PER_SOURCE:
                                break
                            if not sample_tensors_small(sample):
                                continue
                            records, _ = run_recorded(lambda s=sample: call_sample(info, s),
                                                      decompositions)
                            collector.add_records(records, source_kind, label, index, dtype)
                            derive = DERIVED.get(label)
                            if derive is not None:
                                records = [direct_record(op, a, k) for op, a, k in derive(sample)]
                                collector.add_records([r for r in records if r is not None],
                                                      gf.SOURCE_DERIVED, label, index, dtype)
                            if (source_kind == gf.SOURCE_SAMPLE
                                    and layout_variants < MAX_LAYOUT_VARIANTS_PER_OPINFO_DTYPE):
                                layout_variants += 1
                                variants = [sample.noncontiguous()]
                                if has_4d(sample):
                                    variants.append(to_channels_last(sample))
                                for variant in variants:
                                    records, _ = run_recorded(
                                        lambda s=variant: call_sample(info, s), decompositions)
                                    collector.add_records(records, gf.SOURCE_LAYOUT, label, index,
                                                          dtype)
                except Exception as error:  # a sample generator that fails on CPU
                    collector.skips[f"sample generator failed: {type(error).__name__}"] += 1
            if info.name in BACKWARD and dtype in BACKWARD_DTYPES:
                collect_backward(collector, info, label, dtype, decompositions)
        collect_errors(collector, info, label, decompositions)
        timings[label] = time.time() - start
    return timings


def collect_backward(collector: Collector, info, label: str, dtype, decompositions) -> None:
    torch.manual_seed(seed_for(label, dtype, "backward"))
    try:
        samples = list(info.sample_inputs("cpu", dtype, requires_grad=True))
    except Exception:
        return
    for index, sample in enumerate(samples[:MAX_SAMPLES_PER_SOURCE]):
        if not sample_tensors_small(sample):
            continue
        generator = torch.Generator().manual_seed(seed_for(label, dtype, index))

        def forward_backward(s=sample, g=generator):
            outputs = call_sample(info, s)
            leaves = [o for o in tree_flatten(outputs)[0]
                      if isinstance(o, torch.Tensor) and o.requires_grad]
            grads = [torch.randn(o.shape, dtype=o.dtype, generator=g) for o in leaves]
            torch.autograd.backward(leaves, grads)

        records, _ = run_recorded(forward_backward, decompositions)
        collector.add_records(records, gf.SOURCE_BACKWARD, label, index, dtype)


def collect_errors(collector: Collector, info, label: str, decompositions) -> None:
    torch.manual_seed(seed_for(label, "errors"))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            error_inputs = list(info.error_inputs("cpu"))
    except Exception:
        return
    for index, error_input in enumerate(error_inputs[:MAX_ERROR_SAMPLES_PER_OPINFO]):
        sample = error_input.sample_input
        records, error = run_recorded(lambda s=sample: call_sample(info, s), decompositions)
        if error is None:
            continue
        failed = [r for r in records if r.error is not None]
        if not failed:
            collector.skips["error raised outside a core op"] += 1
            continue
        dtype = None
        leaves, _ = tree_flatten((sample.input, sample.args, sample.kwargs))
        tensors = [x for x in leaves if isinstance(x, torch.Tensor)]
        if tensors and tensors[0].dtype in gf.SCALAR_TYPE:
            dtype = tensors[0].dtype
        collector.add_records(failed[-1:], gf.SOURCE_ERROR, label, index, dtype,
                              getattr(error_input, "error_regex", None))


def collect_boundary(collector: Collector) -> None:
    for index, (name, op, args, kwargs) in enumerate(golden_boundary.cases()):
        torch.manual_seed(seed_for("boundary", name))
        record = direct_record(op, args, kwargs)
        if record is None:
            raise AssertionError(f"boundary case {name} is larger than MAX_CALL_ELEMENTS")
        dtype = None
        leaves, _ = tree_flatten((record.args, record.kwargs))
        snaps = [x for x in leaves if isinstance(x, Snap)]
        if snaps and snaps[0].values.dtype in gf.SCALAR_TYPE:
            dtype = snaps[0].values.dtype
        before = sum(collector.skips.values())
        collector.add_records([record], gf.SOURCE_BOUNDARY, "boundary:" + name, index, dtype)
        if sum(collector.skips.values()) != before:
            raise AssertionError(f"boundary case {name} cannot be encoded: {collector.skips}")


# ---------------------------------------------------------------------------
# Selection


def note_drop(collector: "Collector", stats: collections.Counter, what: str,
              candidate: Candidate, reason: Invalid) -> None:
    stats[f"{what}: {reason.args[0]}"] += 1
    if len(reason.args) > 1 and reason.args[1]:
        collector.findings.append({
            "kernel": candidate.kernel, "source": candidate.case.source,
            "sample": candidate.case.sample_index,
            "dtype": str(gf.DTYPE_OF.get(candidate.case.dtype, "")).replace("torch.", ""),
            "reason": reason.args[0], "detail": reason.args[1]})


def select(kernel: str, collector: Collector, stats: collections.Counter) -> List[gf.Case]:
    rng = random.Random(seed_for("select", kernel))
    chosen: List[gf.Case] = []
    covered: set = set()
    budget = KERNEL_BUDGET_BYTES
    queues: Dict[int, List[Candidate]] = {}
    for dtype, candidates in sorted(collector.compute.get(kernel, {}).items()):
        order = list(candidates)
        rng.shuffle(order)
        queues[dtype] = order
    taken = collections.Counter()
    progress = True
    while progress and budget > 0:
        progress = False
        for dtype in sorted(queues):
            queue = queues[dtype]
            if taken[dtype] >= MAX_CASES_PER_KERNEL_DTYPE or not queue:
                continue
            best = max(range(len(queue)), key=lambda i: (
                sum(FEATURE_WEIGHT[f[0]] for f in queue[i].features - covered), -i))
            candidate = queue.pop(best)
            if candidate.size > budget:
                continue
            progress = True
            try:
                validate(candidate)
            except Invalid as reason:
                note_drop(collector, stats, "dropped", candidate, reason)
                continue
            chosen.append(candidate.case)
            covered |= candidate.features
            budget -= candidate.size
            taken[dtype] += 1
    errors = list(collector.errors.get(kernel, []))
    rng.shuffle(errors)
    kept_errors = 0
    seen_notes = set()
    for candidate in errors:
        if kept_errors >= MAX_ERROR_CASES_PER_KERNEL:
            break
        if candidate.case.note in seen_notes:
            continue
        try:
            validate(candidate)
        except Invalid as reason:
            note_drop(collector, stats, "dropped error", candidate, reason)
            continue
        seen_notes.add(candidate.case.note)
        chosen.append(candidate.case)
        kept_errors += 1
    for candidate in collector.boundary.get(kernel, []):
        try:
            validate(candidate)
        except Invalid as reason:
            note_drop(collector, stats, "dropped boundary", candidate, reason)
            log.info("boundary case %s for %s dropped: %s", candidate.case.source, kernel, reason)
            continue
        chosen.append(candidate.case)
    return chosen


# ---------------------------------------------------------------------------
# Output


def kernel_schemas() -> Dict[str, str]:
    schemas = {}
    for entry in CORE.values():
        schemas[entry["kernel"]] = entry["kernel_schema"]
    return schemas


def write(golden_dir: Path, stats_path: Path, selected: Dict[str, List[gf.Case]],
          collector: Collector, stats: collections.Counter) -> None:
    golden_dir.mkdir(parents=True, exist_ok=True)
    for old in golden_dir.glob("*.bin"):
        old.unlink()
    provenance = f"torch {torch.__version__}; seed {SEED}"
    schemas = kernel_schemas()
    index_lines = [f"# Generated by {GENERATOR}; do not edit.",
                   "# One golden file per kernel: <kernel> <file> <value cases> <error cases>"]
    per_kernel = {}
    for kernel in sorted(selected):
        cases = selected[kernel]
        if not cases:
            continue
        name = gf.file_name(kernel)
        data = gf.encode_file(GENERATOR, provenance, kernel, schemas[kernel], cases)
        (golden_dir / name).write_bytes(data)
        values = sum(c.expect == gf.EXPECT_VALUES for c in cases)
        errors = len(cases) - values
        index_lines.append(f"{kernel} {name} {values} {errors}")
        per_kernel[kernel] = {
            "file": name,
            "bytes": len(data),
            "value_cases": values,
            "error_cases": errors,
            "dtypes": sorted({gf.DTYPE_OF[c.dtype].__str__().replace("torch.", "")
                              for c in cases if c.dtype != gf.NO_DTYPE
                              and c.expect == gf.EXPECT_VALUES}),
            "sources": dict(sorted(collections.Counter(
                gf.SOURCE_NAMES[c.source_kind] for c in cases).items())),
            "tolerances": dict(sorted(collections.Counter(
                gf.TOLERANCE_NAMES[c.tolerance] for c in cases
                if c.expect == gf.EXPECT_VALUES).items())),
            "opinfos": sorted({c.source for c in cases if not c.source.startswith("boundary:")}),
        }
    (golden_dir / "index.txt").write_text("\n".join(index_lines) + "\n")
    no_opinfo = sorted(k for k in {e["kernel"] for e in CORE.values()}
                       if not collector.opinfo_kernels.get(k))
    document = {
        "generator": GENERATOR,
        "torch_version": torch.__version__,
        "seed": SEED,
        "caps": {"MAX_SAMPLES_PER_SOURCE": MAX_SAMPLES_PER_SOURCE,
                 "MAX_CALL_ELEMENTS": MAX_CALL_ELEMENTS, "MAX_CASE_BYTES": MAX_CASE_BYTES,
                 "MAX_CASES_PER_KERNEL_DTYPE": MAX_CASES_PER_KERNEL_DTYPE,
                 "KERNEL_BUDGET_BYTES": KERNEL_BUDGET_BYTES,
                 "MAX_ERROR_CASES_PER_KERNEL": MAX_ERROR_CASES_PER_KERNEL},
        "kernels": per_kernel,
        "kernels_without_opinfo_cases": no_opinfo,
        "counters": dict(sorted(stats.items())),
        "skips": dict(sorted(collector.skips.items())),
        "pytorch_findings": collector.findings,
        "calibration": dict(sorted(CALIBRATION.items())),
    }
    stats_path.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--golden-dir", type=Path, default=REPO / "datasets/golden")
    parser.add_argument("--stats", type=Path, default=OPS_DIR / "golden_stats.json")
    parser.add_argument("-v", "--verbose", action="store_true")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(name)s: %(message)s")
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    # Uninitialized memory (torch.empty, the targets of copy_) must not
    # leak into the files: deterministic mode fills it with NaN (floats)
    # or the largest integer, so every run writes the same bytes.
    torch.use_deterministic_algorithms(True, warn_only=True)
    torch.utils.deterministic.fill_uninitialized_memory = True
    from torch._decomp import core_aten_decompositions

    decompositions = core_aten_decompositions().materialize()
    started = time.time()
    collector = Collector()
    timings = collect_opinfo(collector, decompositions)
    collected = time.time()
    collect_boundary(collector)
    stats: collections.Counter = collections.Counter()
    kernels = sorted(set(collector.compute) | set(collector.errors) | set(collector.boundary))
    selected = {kernel: select(kernel, collector, stats) for kernel in kernels}
    write(args.golden_dir, args.stats, selected, collector, stats)
    total = sum(len(c) for c in selected.values())
    size = sum(p.stat().st_size for p in args.golden_dir.glob("*.bin"))
    slowest = sorted(timings.items(), key=lambda kv: -kv[1])[:5]
    print(f"{GENERATOR}: {total} cases in {sum(1 for c in selected.values() if c)} files, "
          f"{size / 1e6:.2f} MB; OpInfo pass {collected - started:.0f} s, "
          f"total {time.time() - started:.0f} s; slowest OpInfos: "
          + ", ".join(f"{k} {v:.1f}s" for k, v in slowest))
    return 0


if __name__ == "__main__":
    sys.exit(main())
