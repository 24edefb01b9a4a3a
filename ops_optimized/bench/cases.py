# SPDX-License-Identifier: Apache-2.0
"""What the benchmark runs: single-operator cases and the models.

A case is one ATen out-variant operator (as ExecuTorch programs call it) on
fixed arguments: tensors described by TensorSpec (shape, dtype, whether the
program holds it as a constant, and its values for constants taken from a
model), plus the schema's other arguments as Python values. Two sources:

  * standard_cases(): sizes chosen to exercise each kernel family (GEMM 64 to
    1024, representative conv2d layers, elementwise ops with their working
    set in L1, L2 and DRAM, reductions, softmax, norms, pooling, upsampling,
    data movement);
  * model_cases(): every distinct KernelCall of the datasets' programs
    (datasets/models/*/model.pte), read back with ExecuTorch's own
    deserializer: operator, argument shapes and scalar values, and the
    program's constant tensors (weights, batch-norm statistics) with their
    values.

build_module() turns a case into a one-operator torch.nn.Module whose
constant tensors are buffers (so ExecuTorch's exporter and XNNPACK's
partitioner see them as weights) and whose other tensors are inputs.
"""

import hashlib
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
import torch

# ExecuTorch ScalarType numbers (exir/scalar_type.py) -> torch dtypes.
_SCALAR_TYPES = {
    0: torch.uint8, 1: torch.int8, 2: torch.int16, 3: torch.int32,
    4: torch.int64, 5: torch.float16, 6: torch.float32, 7: torch.float64,
    11: torch.bool, 15: torch.bfloat16,
}
_DTYPE_NAMES = {
    torch.float32: "f32", torch.float16: "f16", torch.bfloat16: "bf16",
    torch.float64: "f64", torch.int64: "i64", torch.int32: "i32",
    torch.int16: "i16", torch.int8: "i8", torch.uint8: "u8", torch.bool: "b",
    torch.complex64: "c64",
}

# The programs whose operators are benchmarked (the non-delegated models).
MODEL_PROGRAMS = ["mlp", "cnn", "mobilenet_v2", "resnet", "mobilenet_v3", "transformer", "lstm",
                  "mutable_buffer", "cond", "dynamic_shape"]


@dataclass
class TensorSpec:
    shape: Tuple[int, ...]
    dtype: torch.dtype = torch.float32
    const: bool = False  # a program constant (weights), else an input
    values: Optional[np.ndarray] = None  # a model's constant values
    # randn | positive (|randn| + 0.5) | unit (uniform in (-0.9, 0.9)) |
    # above_one (|randn| + 1.1) | index:N (integers in [0, N)) | steps:N
    # (0, N, 2N, ...: offsets) | pool_indices:H:W:K:S:P (the indices a
    # max_pool2d with kernel K, stride S and padding P returns on a random
    # input whose planes are H x W: what its backward receives)
    fill: str = "randn"
    channels_last: bool = False

    def describe(self) -> str:
        dims = "x".join(str(s) for s in self.shape) or "scalar"
        tags = ("c" if self.const else "") + ("nhwc" if self.channels_last else "")
        return f"{_DTYPE_NAMES.get(self.dtype, str(self.dtype))}[{dims}]" + (
            f"({tags})" if tags else "")

    def make(self, generator: torch.Generator) -> torch.Tensor:
        if self.values is not None:
            tensor = torch.from_numpy(self.values.copy()).reshape(self.shape)
        elif self.dtype.is_complex:
            tensor = torch.randn(self.shape, generator=generator, dtype=self.dtype)
        elif self.fill.startswith("steps:"):
            count = int(np.prod(self.shape))
            tensor = (torch.arange(count) * int(self.fill[6:])).reshape(self.shape).to(self.dtype)
        elif self.dtype.is_floating_point:
            tensor = torch.randn(self.shape, generator=generator).to(self.dtype)
            if self.fill == "positive":
                tensor = tensor.abs() + 0.5
            elif self.fill == "above_one":
                tensor = tensor.abs() + 1.1
            elif self.fill == "unit":
                tensor = (torch.rand(self.shape, generator=generator) * 1.8 - 0.9).to(self.dtype)
        elif self.dtype == torch.bool:
            tensor = torch.rand(self.shape, generator=generator) > 0.5
        elif self.fill.startswith("pool_indices:"):
            height, width, kernel, stride, padding = (
                int(v) for v in self.fill.split(":")[1:])
            source = torch.randn(self.shape[:-2] + (height, width), generator=generator)
            tensor = torch.nn.functional.max_pool2d(
                source, kernel, stride, padding, return_indices=True)[1].to(self.dtype)
            assert tuple(tensor.shape) == tuple(self.shape), self.fill
        elif self.fill.startswith("index:"):
            tensor = torch.randint(0, int(self.fill[6:]), self.shape, generator=generator,
                                   dtype=self.dtype)
        else:  # other integer tensors: index-like arguments, zeros are valid
            tensor = torch.zeros(self.shape, dtype=self.dtype)
        if self.channels_last and tensor.dim() == 4:
            tensor = tensor.contiguous(memory_format=torch.channels_last)
        return tensor


@dataclass
class Case:
    id: str  # unique, file-name safe
    group: str  # gemm, conv, elementwise, reduction, norm, pool, ...
    op: str  # "aten::mm.out"
    args: List[Any]  # the schema's non-out arguments, TensorSpec for tensors
    sources: List[str] = field(default_factory=list)  # "standard" or models
    note: str = ""
    # The result dtype, for an out variant that takes it from `out` where
    # the functional overload has a `dtype` argument (_to_dim_order_copy).
    out_dtype: Optional[torch.dtype] = None
    # The outputs' values are random or uninitialized (rand, empty): the
    # runtimes' outputs are compared by shape and dtype only.
    values_random: bool = False
    # Why etref's kernel does more than ExecuTorch's by design (the empty
    # family zero-fills its out): the case is timed and listed, but not
    # judged by the "at least as fast as ExecuTorch" target.
    more_work: str = ""

    def label(self) -> str:
        parts = []
        for value in self.args:
            if isinstance(value, TensorSpec):
                parts.append(value.describe())
            elif isinstance(value, list) and value and isinstance(value[0], TensorSpec):
                parts.append("[" + ", ".join(v.describe() for v in value) + "]")
            elif value is not None:
                parts.append(repr(value).replace(" ", ""))
        if self.out_dtype is not None:
            parts.append("-> " + _DTYPE_NAMES.get(self.out_dtype, str(self.out_dtype)))
        return " ".join(parts)

    def tensor_args(self) -> int:
        """How many tensors the operator reads."""
        return sum(1 if isinstance(v, TensorSpec) else
                   sum(isinstance(x, TensorSpec) for x in v) if isinstance(v, list) else 0
                   for v in self.args)

    def key(self, with_values: bool = True) -> str:
        """Identity of what gets exported: operator, shapes, scalars and,
        with_values, the values of model constants."""
        digest = hashlib.sha256()
        digest.update(self.op.encode())
        for value in self.args:
            digest.update(_spec_key(value, with_values).encode())
        if self.out_dtype is not None:
            digest.update(f"out_dtype={self.out_dtype}".encode())
        return digest.hexdigest()


def _spec_key(value: Any, with_values: bool) -> str:
    if isinstance(value, TensorSpec):
        data = ""
        if with_values and value.values is not None:
            data = hashlib.sha256(value.values.tobytes()).hexdigest()
        return f"T({value.shape},{value.dtype},{value.const},{value.fill},{value.channels_last},{data})"
    if isinstance(value, list):
        return "[" + ",".join(_spec_key(v, with_values) for v in value) + "]"
    return repr(value)


def _load_edge_op_registries() -> None:
    # dim_order_ops::* are defined by ExecuTorch's exir.
    import executorch.exir.passes.dim_order_ops_registry  # noqa: F401
    # quantized_decomposed::*: the functional ops are PyTorch's, their out
    # variants ExecuTorch's quantized library's.
    import torch.ao.quantization.fx._decomposed  # noqa: F401
    import executorch.kernels.quantized  # noqa: F401


def functional_overload(op: str):
    """For "aten::add.out", the functional overload with the same inputs
    (aten.add.Tensor) and the out schema's non-out arguments. Positional
    arguments match in order, keyword-only ones by name (the functional
    overload may have more, with defaults: _to_dim_order_copy's dtype)."""
    _load_edge_op_registries()
    name, _, overload = op.partition(".")
    namespace, base = name.split("::")
    packet = getattr(getattr(torch.ops, namespace), base)
    out_schema = getattr(packet, overload or "default")._schema
    inputs = [a for a in out_schema.arguments if not a.is_out]
    positional = [(a.name, str(a.type)) for a in inputs if not a.kwarg_only]
    keywords = {a.name: str(a.type) for a in inputs if a.kwarg_only}
    best = None
    for candidate in packet.overloads():
        schema = getattr(packet, candidate)._schema
        if any(a.is_out or (a.alias_info is not None and a.alias_info.is_write)
               for a in schema.arguments):
            continue
        their_positional = [a for a in schema.arguments if not a.kwarg_only]
        their_keywords = {a.name: a for a in schema.arguments if a.kwarg_only}
        if [(a.name, str(a.type)) for a in their_positional[: len(positional)]] != positional:
            continue
        if any(name not in their_keywords or str(their_keywords[name].type) != kind
               for name, kind in keywords.items()):
            continue
        extra = their_positional[len(positional):] + [
            a for name, a in their_keywords.items() if name not in keywords]
        if any(not a.has_default_value() for a in extra):
            continue
        if best is None or len(schema.arguments) < len(best[1].arguments):
            best = (candidate, schema)
    if best is None:
        raise ValueError(f"{op}: no functional overload with the same arguments")
    return getattr(packet, best[0]), inputs, len(out_schema.arguments) - len(inputs)


def takes_out_dtype(fn, inputs) -> bool:
    """For functional_overload's fn and inputs: whether the out variant
    takes its result dtype from `out` where the functional overload has a
    `dtype` argument (_to_dim_order_copy): the case then names the dtype
    (Case.out_dtype)."""
    return (all(a.name != "dtype" for a in inputs) and
            any(a.name == "dtype" for a in fn._schema.arguments))


class OneOp(torch.nn.Module):
    """One operator call; constants are buffers, other tensors inputs."""

    def __init__(self, fn, schema_args, template, constants, extra_keywords) -> None:
        super().__init__()
        self.fn = fn
        self.extra_keywords = extra_keywords
        self.schema_args = schema_args
        self.template = template
        for i, tensor in enumerate(constants):
            self.register_buffer(f"constant_{i}", tensor)
        self.num_constants = len(constants)

    def _value(self, item, inputs):
        if isinstance(item, tuple) and len(item) == 2 and item[0] in ("input", "constant"):
            kind, index = item
            return inputs[index] if kind == "input" else getattr(self, f"constant_{index}")
        if isinstance(item, list):
            return [self._value(v, inputs) for v in item]
        return item

    def forward(self, *inputs):
        positional, keywords = [], dict(self.extra_keywords)
        for arg, item in zip(self.schema_args, self.template):
            value = self._value(item, inputs)
            if arg.kwarg_only:
                keywords[arg.name] = value
            else:
                positional.append(value)
        return self.fn(*positional, **keywords)


def build_module(case: Case, seed: int) -> Tuple[torch.nn.Module, List[torch.Tensor]]:
    fn, schema_args, _ = functional_overload(case.op)
    if len(schema_args) != len(case.args):
        raise ValueError(f"{case.op}: {len(case.args)} arguments for {len(schema_args)}")
    generator = torch.Generator().manual_seed(seed)
    inputs: List[torch.Tensor] = []
    constants: List[torch.Tensor] = []

    def place(value):
        if isinstance(value, TensorSpec):
            tensor = value.make(generator)
            pool = constants if value.const else inputs
            pool.append(tensor)
            return ("constant" if value.const else "input", len(pool) - 1)
        if isinstance(value, list):
            return [place(v) for v in value]
        return value

    template = [place(v) for v in case.args]
    extra = {} if case.out_dtype is None else {"dtype": case.out_dtype}
    return OneOp(fn, schema_args, template, constants, extra).eval(), inputs


def case_seed(case: Case) -> int:
    return zlib.crc32(case.id.encode()) & 0x7FFFFFFF


# ---------------------------------------------------------------------------
# Cases from the datasets' programs
# ---------------------------------------------------------------------------

_GROUPS = {
    "convolution": "conv", "mm": "gemm", "addmm": "gemm", "bmm": "gemm",
    "linear": "gemm", "_native_batch_norm_legit_no_training": "norm",
    "native_layer_norm": "norm", "_softmax": "softmax", "_log_softmax": "softmax",
    "max_pool2d_with_indices": "pool", "avg_pool2d": "pool",
    "_adaptive_avg_pool2d": "pool", "mean": "reduction", "sum": "reduction",
    "amax": "reduction", "argmax": "reduction", "var": "reduction",
    "upsample_nearest2d": "resample", "upsample_bilinear2d": "resample",
}
_MOVEMENT = {"permute_copy", "view_copy", "expand_copy", "slice_copy", "cat",
             "split_with_sizes_copy", "squeeze_copy", "unsqueeze_copy",
             "_clone_dim_order", "_to_dim_order_copy", "full", "index_put",
             "clone", "constant_pad_nd", "index_select", "select_copy"}


def group_of(op: str) -> str:
    base = op.split("::")[1].split(".")[0]
    if base in _GROUPS:
        return _GROUPS[base]
    return "movement" if base in _MOVEMENT else "elementwise"


def _run_time_ints(plan) -> Dict[int, Tuple[Optional[int], str]]:
    """The plan's Int values that an instruction writes at run time (the
    symbolic sizes of a dynamic-shape program; the program stores 0 for
    them), each with the value it takes on the program's own tensor sizes
    (for a dynamic dimension, its upper bound), or None where that is not
    known statically, and the operator that writes it. Only
    aten::sym_size.int is evaluated."""
    from executorch.exir import schema

    written: Dict[int, Tuple[Optional[int], str]] = {}
    for chain in plan.chains:
        for instruction in chain.instructions:
            call = instruction.instr_args
            if not isinstance(call, schema.KernelCall) or not call.args:
                continue
            operator = plan.operators[call.op_index]
            if operator.overload.endswith("out"):
                continue
            name = f"{operator.name}.{operator.overload}"
            target = call.args[-1]
            if not isinstance(plan.values[target].val, schema.Int):
                continue
            value = None
            if name == "aten::sym_size.int" and len(call.args) == 3:
                tensor = plan.values[call.args[0]].val
                dim = plan.values[call.args[1]].val
                if isinstance(tensor, schema.Tensor) and isinstance(dim, schema.Int):
                    sizes = list(tensor.sizes)
                    if -len(sizes) <= dim.int_val < len(sizes):
                        value = int(sizes[dim.int_val])
            written[target] = (value, name)
    return written


def _int_at(plan, index: int, run_time: Dict[int, Tuple[Optional[int], str]]) -> int:
    if index in run_time:
        value, writer = run_time[index]
        if value is None:
            raise ValueError(f"an argument is computed at run time by {writer}")
        return value
    return plan.values[index].val.int_val


def _evalue_to_arg(plan, program, index: int, constants_wanted: bool,
                   run_time: Optional[Dict[int, Tuple[Optional[int], str]]] = None):
    from executorch.exir import schema

    run_time = {} if run_time is None else run_time
    val = plan.values[index].val
    if isinstance(val, schema.Tensor):
        dtype = _SCALAR_TYPES.get(int(val.scalar_type))
        if dtype is None:
            raise ValueError(f"scalar type {val.scalar_type}")
        shape = tuple(int(s) for s in val.sizes)
        channels_last = list(val.dim_order) == [0, 2, 3, 1]
        numel = int(np.prod(shape)) if shape else 1
        np_dtype = torch.empty(0, dtype=dtype).numpy().dtype
        is_constant = val.data_buffer_idx > 0 and val.allocation_info is None
        if is_constant and constants_wanted:
            storage = bytes(program.constant_buffer[val.data_buffer_idx].storage)
            if len(storage) >= numel * np_dtype.itemsize:
                values = np.frombuffer(storage, dtype=np_dtype, count=numel).reshape(shape)
                return TensorSpec(shape, dtype, const=True, values=values,
                                  channels_last=channels_last)
        return TensorSpec(shape, dtype, channels_last=channels_last)
    if isinstance(val, schema.Null):
        return None
    if isinstance(val, schema.Int):
        return _int_at(plan, index, run_time)
    if isinstance(val, (schema.Double, schema.Bool)):
        return val.int_val if isinstance(val, schema.Int) else (
            val.double_val if isinstance(val, schema.Double) else val.bool_val)
    if isinstance(val, schema.String):
        return val.string_val
    if isinstance(val, schema.IntList):
        return [_int_at(plan, i, run_time) for i in val.items]
    if isinstance(val, schema.DoubleList):
        return list(val.items)
    if isinstance(val, schema.BoolList):
        return list(val.items)
    if isinstance(val, schema.TensorList):
        return [_evalue_to_arg(plan, program, i, constants_wanted, run_time)
                for i in val.items]
    if isinstance(val, schema.OptionalTensorList):
        return [None if i < 0 else _evalue_to_arg(plan, program, i, constants_wanted, run_time)
                for i in val.items]
    raise ValueError(f"unsupported EValue {type(val).__name__}")


def model_cases(models_dir: Path, models: Sequence[str] = MODEL_PROGRAMS) -> Tuple[List[Case], List[str]]:
    """Every distinct kernel call of the models' programs (deduplicated by
    operator and arguments); notes name the calls that are not benchmarked."""
    from executorch.exir import schema
    from executorch.exir._serialize._program import deserialize_pte_binary

    found: Dict[str, Case] = {}
    skipped: Dict[str, str] = {}
    for model in models:
        program = deserialize_pte_binary((models_dir / model / "model.pte").read_bytes()).program
        for plan in program.execution_plan:
            run_time = _run_time_ints(plan)
            for chain in plan.chains:
                for instruction in chain.instructions:
                    call = instruction.instr_args
                    if not isinstance(call, schema.KernelCall):
                        continue
                    operator = plan.operators[call.op_index]
                    op = f"{operator.name}.{operator.overload}" if operator.overload else operator.name
                    if not operator.overload.endswith("out"):
                        skipped[op] = "not an out-variant kernel (prim op or in-place)"
                        continue
                    try:
                        fn, schema_args, _ = functional_overload(op)
                        args = [_evalue_to_arg(plan, program, i, True, run_time)
                                for i in call.args[: len(schema_args)]]
                        out_dtype = None
                        if takes_out_dtype(fn, schema_args):
                            out = _evalue_to_arg(plan, program, call.args[len(schema_args)],
                                                 False)
                            out_dtype = out.dtype
                    except (ValueError, AttributeError) as error:
                        skipped[op] = str(error)
                        continue
                    case = Case("", group_of(op), op, args, [model], out_dtype=out_dtype)
                    key = case.key(with_values=False)
                    if key in found:
                        if model not in found[key].sources:
                            found[key].sources.append(model)
                        continue
                    base = op.split("::")[1].replace(".", "-")
                    case.id = f"m-{base}-{key[:8]}"
                    found[key] = case
    notes = [f"{op}: {why}" for op, why in sorted(skipped.items())]
    return list(found.values()), notes


# ---------------------------------------------------------------------------
# Standard sizes
# ---------------------------------------------------------------------------

def _t(*shape: int, **kwargs) -> TensorSpec:
    return TensorSpec(tuple(shape), **kwargs)


def _c(*shape: int, **kwargs) -> TensorSpec:
    return TensorSpec(tuple(shape), const=True, **kwargs)


# Rows of 1024 floats whose working set sits in L1, in L2 and in DRAM (a
# binary op's three arrays: 24 KiB, 768 KiB, 192 MiB).
ELEMENTWISE_LEVELS = {"L1": 2, "L2": 64, "DRAM": 16384}
GEMM_SIZES = [64, 128, 256, 384, 512, 768, 1024]


def standard_cases() -> List[Case]:
    cases: List[Case] = []

    def add(case_id: str, group: str, op: str, *args: Any, note: str = "") -> None:
        cases.append(Case(case_id, group, op, list(args), ["standard"], note))

    for n in GEMM_SIZES:
        add(f"mm-{n}", "gemm", "aten::mm.out", _t(n, n), _c(n, n),
            note="square GEMM, B a program constant (a weight)")
    add("addmm-256x1024x1024", "gemm", "aten::addmm.out", _c(1024), _t(256, 1024), _c(1024, 1024), 1, 1)
    add("bmm-8x128x64x128", "gemm", "aten::bmm.out", _t(8, 128, 64), _t(8, 64, 128))
    add("bmm-8x128x128x64", "gemm", "aten::bmm.out", _t(8, 128, 128), _t(8, 128, 64))

    def conv(case_id: str, c: int, h: int, oc: int, k: int, stride: int, groups: int = 1) -> None:
        add(case_id, "conv", "aten::convolution.out", _t(1, c, h, h), _c(oc, c // groups, k, k),
            _c(oc), [stride, stride], [k // 2, k // 2], [1, 1], False, [0, 0], groups)

    conv("conv3x3-64-56", 64, 56, 64, 3, 1)
    conv("conv3x3-128-28", 128, 28, 128, 3, 1)
    conv("conv3x3s2-64-56", 64, 56, 128, 3, 2)
    conv("conv1x1-256to64-56", 256, 56, 64, 1, 1)
    conv("conv1x1-64to256-56", 64, 56, 256, 1, 1)
    conv("conv3x3s2-stem-3-224", 3, 224, 32, 3, 2)
    conv("conv7x7s2-stem-3-224", 3, 224, 64, 7, 2)
    conv("dwconv3x3-32-112", 32, 112, 32, 3, 1, groups=32)
    conv("dwconv3x3s2-96-112", 96, 112, 96, 3, 2, groups=96)
    conv("dwconv5x5s2-72-56", 72, 56, 72, 5, 2, groups=72)
    conv("dwconv5x5-672-14", 672, 14, 672, 5, 1, groups=672)

    def conv_transposed(case_id: str, c: int, h: int, oc: int, k: int, stride: int,
                        pad: int) -> None:
        add(case_id, "conv", "aten::convolution.out", _t(1, c, h, h), _c(c, oc, k, k), _c(oc),
            [stride, stride], [pad, pad], [1, 1], True, [0, 0], 1,
            note="transposed: a decoder's up-sampling")

    conv_transposed("convT2x2s2-64to32-28", 64, 28, 32, 2, 2, 0)
    conv_transposed("convT4x4s2-128to64-16", 128, 16, 64, 4, 2, 1)

    unary = {
        "relu": ("aten::relu.out", ()), "sigmoid": ("aten::sigmoid.out", ()),
        "tanh": ("aten::tanh.out", ()), "gelu": ("aten::gelu.out", ("none",)),
        "exp": ("aten::exp.out", ()), "hardtanh": ("aten::hardtanh.out", (0.0, 6.0)),
        "sqrt": ("aten::sqrt.out", ()),
    }
    binary = {"add": ("aten::add.out", (1,)), "mul": ("aten::mul.out", ()),
              "sub": ("aten::sub.out", (1,)), "div": ("aten::div.out", ())}
    for level, rows in ELEMENTWISE_LEVELS.items():
        for name, (op, extra) in unary.items():
            x = _t(rows, 1024, fill="positive" if name == "sqrt" else "randn")
            add(f"{name}-{level}", "elementwise", op, x, *extra)
        for name, (op, extra) in binary.items():
            add(f"{name}-{level}", "elementwise", op, _t(rows, 1024),
                _t(rows, 1024, fill="positive" if name == "div" else "randn"), *extra)
    add("add-bias-broadcast", "elementwise", "aten::add.out", _t(4096, 1024), _c(1024), 1)
    add("mul-column-broadcast", "elementwise", "aten::mul.out", _t(64, 1024), _t(64, 1))
    x = _t(64, 1024)  # one L2-sized case for every other elementwise op
    for name, op, extra in [
            ("abs", "aten::abs.out", ()), ("neg", "aten::neg.out", ()),
            ("log", "aten::log.out", ()), ("rsqrt", "aten::rsqrt.out", ()),
            ("leaky_relu", "aten::leaky_relu.out", (0.01,)),
            ("elu", "aten::elu.out", (1.0, 1, 1)), ("clamp", "aten::clamp.out", (-1.0, 1.0)),
            ("pow2", "aten::pow.Tensor_Scalar_out", (2.0,)),
            ("add-scalar", "aten::add.Scalar_out", (0.5, 1)),
            ("mul-scalar", "aten::mul.Scalar_out", (0.5,)),
            ("sub-scalar", "aten::sub.Scalar_out", (0.5, 1)),
            ("div-scalar", "aten::div.Scalar_out", (3.0,)),
            ("gt-scalar", "aten::gt.Scalar_out", (0.0,)),
            ("eq-scalar", "aten::eq.Scalar_out", (0.0,))]:
        positive = name in ("log", "rsqrt")
        add(f"{name}-L2", "elementwise", op, _t(64, 1024, fill="positive" if positive else "randn"),
            *extra)
    for name, op in [("maximum", "aten::maximum.out"), ("minimum", "aten::minimum.out"),
                     ("lt", "aten::lt.Tensor_out"), ("ne", "aten::ne.Tensor_out")]:
        add(f"{name}-L2", "elementwise", op, x, _t(64, 1024))
    add("where-L2", "elementwise", "aten::where.self_out", _t(64, 1024, dtype=torch.bool), x,
        _t(64, 1024))
    add("clamp-tensor-L2", "elementwise", "aten::clamp.Tensor_out", x, _t(64, 1024), _t(64, 1024))

    m = _t(1024, 1024)
    add("sum-rows-1024", "reduction", "aten::sum.IntList_out", m, [-1], False, None)
    add("sum-cols-1024", "reduction", "aten::sum.IntList_out", m, [0], False, None)
    add("mean-hw-256x56", "reduction", "aten::mean.out", _t(1, 256, 56, 56), [2, 3], True, None)
    add("mean-hw-128x4", "reduction", "aten::mean.out", _t(1, 128, 4, 4), [-1, -2], True, None)
    add("amax-rows-1024", "reduction", "aten::amax.out", m, [-1], False)
    add("amin-rows-1024", "reduction", "aten::amin.out", m, [-1], False)
    add("argmax-rows-1024", "reduction", "aten::argmax.out", m, -1, False)
    add("argmin-rows-1024", "reduction", "aten::argmin.out", m, -1, False)
    add("max-dim-1024", "reduction", "aten::max.dim_max", m, -1, False)
    add("min-dim-1024", "reduction", "aten::min.dim_min", m, -1, False)
    add("var-rows-1024", "reduction", "aten::var.correction_out", m, [-1], 1, False)
    add("any-1M", "reduction", "aten::any.all_out", _t(1024, 1024, dtype=torch.bool))

    add("softmax-64x1024", "softmax", "aten::_softmax.out", _t(64, 1024), -1, False)
    add("softmax-4096x1024", "softmax", "aten::_softmax.out", _t(4096, 1024), -1, False)
    add("softmax-attn-8x128x128", "softmax", "aten::_softmax.out", _t(8, 128, 128), -1, False)
    add("log_softmax-64x1024", "softmax", "aten::_log_softmax.out", _t(64, 1024), -1, False)
    add("layer_norm-256x768", "norm", "aten::native_layer_norm.out", _t(256, 768), [768],
        _c(768), _c(768), 1e-5)
    add("layer_norm-4096x768", "norm", "aten::native_layer_norm.out", _t(4096, 768), [768],
        _c(768), _c(768), 1e-5)
    add("batch_norm-64x112", "norm", "aten::_native_batch_norm_legit_no_training.out",
        _t(1, 64, 112, 112), _c(64), _c(64), _c(64), _c(64, fill="positive"), 0.1, 1e-5)
    add("group_norm-64x56-g32", "norm", "aten::native_group_norm.out", _t(1, 64, 56, 56),
        _c(64), _c(64), 1, 64, 56 * 56, 32, 1e-5)

    add("maxpool3x3s2-64x112", "pool", "aten::max_pool2d_with_indices.out", _t(1, 64, 112, 112),
        [3, 3], [2, 2], [1, 1], [1, 1], False)
    add("maxpool2x2s2-64x56", "pool", "aten::max_pool2d_with_indices.out", _t(1, 64, 56, 56),
        [2, 2], [2, 2], [0, 0], [1, 1], False)
    add("avgpool2x2s2-64x56", "pool", "aten::avg_pool2d.out", _t(1, 64, 56, 56), [2, 2], [2, 2],
        [0, 0], False, True, None)
    # The datasets' CNN: max_pool2d(2) with indices, avg_pool2d(2).
    add("maxpool2x2s2-16x32", "pool", "aten::max_pool2d_with_indices.out", _t(1, 16, 32, 32),
        [2, 2], [2, 2], [0, 0], [1, 1], False)
    add("avgpool2x2s2-32x16", "pool", "aten::avg_pool2d.out", _t(1, 32, 16, 16), [2, 2], [2, 2],
        [0, 0], False, True, None)
    add("avgpool3x3s1-64x56", "pool", "aten::avg_pool2d.out", _t(1, 64, 56, 56), [3, 3], [1, 1],
        [1, 1], False, True, None)
    add("adaptive_avgpool-512x7", "pool", "aten::_adaptive_avg_pool2d.out", _t(1, 512, 7, 7),
        [1, 1])
    add("upsample_nearest2x-64x56", "resample", "aten::upsample_nearest2d.vec_out",
        _t(1, 64, 56, 56), [112, 112], None)
    add("upsample_bilinear2x-64x56", "resample", "aten::upsample_bilinear2d.vec_out",
        _t(1, 64, 56, 56), [112, 112], False, None)

    # 16-bit and integer variants of common ops (each fell back to the
    # reference kernel before 2026-12-06).
    h = torch.float16
    add("relu-f16-L2", "elementwise", "aten::relu.out", _t(64, 1024, dtype=h))
    add("mul-i64-L2", "elementwise", "aten::mul.out", _t(64, 1024, dtype=torch.int64),
        _t(64, 1024, dtype=torch.int64))
    add("lt-i64-L2", "elementwise", "aten::lt.Tensor_out", _t(64, 1024, dtype=torch.int64),
        _t(64, 1024, dtype=torch.int64))
    add("sum-rows-i64-1024", "reduction", "aten::sum.IntList_out",
        _t(1024, 1024, dtype=torch.int64), [-1], False, None)
    add("maxpool3x3s2-f16-64x112", "pool", "aten::max_pool2d_with_indices.out",
        _t(1, 64, 112, 112, dtype=h), [3, 3], [2, 2], [1, 1], [1, 1], False)
    add("avgpool2x2s2-f16-64x56", "pool", "aten::avg_pool2d.out", _t(1, 64, 56, 56, dtype=h),
        [2, 2], [2, 2], [0, 0], False, True, None)
    add("upsample_nearest2x-f16-64x56", "resample", "aten::upsample_nearest2d.vec_out",
        _t(1, 64, 56, 56, dtype=h), [112, 112], None)
    add("upsample_bilinear2x-f16-64x56", "resample", "aten::upsample_bilinear2d.vec_out",
        _t(1, 64, 56, 56, dtype=h), [112, 112], False, None)

    f = _t(1, 64, 56, 56)
    add("permute-nchw-to-nhwc-64x56", "movement", "aten::permute_copy.out", f, [0, 2, 3, 1])
    add("transpose-1024", "movement", "aten::permute_copy.out", m, [1, 0])
    # The CNN's and MobileNetV2's classifier weights (permute_copy of linear).
    add("transpose-10x2048", "movement", "aten::permute_copy.out", _t(10, 2048), [1, 0])
    add("transpose-10x128", "movement", "aten::permute_copy.out", _t(10, 128), [1, 0])
    add("cat-2x64x56", "movement", "aten::cat.out", [f, _t(1, 64, 56, 56)], 1)
    add("slice-channels-128x56", "movement", "aten::slice_copy.Tensor_out", _t(1, 128, 56, 56),
        1, 0, 64, 1)
    add("expand-1024", "movement", "aten::expand_copy.out", _t(1, 1024), [1024, 1024], False)
    add("pad-64x56", "movement", "aten::constant_pad_nd.out", f, [1, 1, 1, 1], 0.0)
    add("clone-to-channels-last-64x56", "movement", "dim_order_ops::_clone_dim_order.out", f,
        False, [0, 2, 3, 1])
    # What x.clone() and x.to(dtype) become in an ExecuTorch program.
    add("clone-64x56", "movement", "dim_order_ops::_clone_dim_order.out", f, False, None)
    for source, target in ((torch.float32, torch.float16), (torch.float16, torch.float32),
                           (torch.float32, torch.bfloat16), (torch.int64, torch.float32)):
        name = f"to-{_DTYPE_NAMES[source]}-{_DTYPE_NAMES[target]}-64x56"
        fill = "index:1000" if source == torch.int64 else "randn"
        cases.append(Case(name, "movement", "dim_order_ops::_to_dim_order_copy.out",
                          [_t(1, 64, 56, 56, dtype=source, fill=fill), False, None],
                          ["standard"], out_dtype=target))
    add("split-2x64x56", "movement", "aten::split_with_sizes_copy.out", _t(1, 128, 56, 56),
        [64, 64], 1)
    add("flip-w-64x56", "movement", "aten::flip.out", f, [3])
    add("repeat-4x-64x1024", "movement", "aten::repeat.out", x, [4, 1])
    add("full-1024", "movement", "aten::full.out", [1024, 1024], 1.0)
    add("index_select-8192x256", "movement", "aten::index_select.out", _t(8192, 256), 0,
        _t(512, dtype=torch.int64, fill="index:8192"))
    add("embedding-8192x256", "movement", "aten::embedding.out", _c(8192, 256),
        _t(512, dtype=torch.int64, fill="index:8192"), -1, False, False)
    add("gather-1024x64", "movement", "aten::gather.out", m, 1,
        _t(1024, 64, dtype=torch.int64, fill="index:1024"), False)
    add("slice_scatter-128x56", "movement", "aten::slice_scatter.out", _t(1, 128, 56, 56), f,
        1, 0, 64, 1)
    add("diagonal-1024", "movement", "aten::diagonal_copy.out", m, 0, 0, 1)
    return cases + every_op_cases()


# Operators etref registers that no benchmark case calls as an out-variant
# kernel, and why: prim and symbolic ops (no tensor work of their own) and
# in-place ones, which ExecuTorch's exporter never emits as kernel calls.
NOT_BENCHMARKED = {
    "aten::_local_scalar_dense": "returns a Scalar (Tensor.item()), no out tensor",
    "aten::sym_size.int": "symbolic size, resolved by the runtime",
    "aten::sym_stride.int": "symbolic stride, resolved by the runtime",
    "aten::sym_numel": "symbolic numel, resolved by the runtime",
    "aten::sym_storage_offset": "symbolic offset, resolved by the runtime",
    "aten::sym_is_contiguous": "symbolic predicate, resolved by the runtime",
    "aten::resize_": "in place: resizes its argument",
    "aten::copy_": "in place: copies into its argument (mutable buffers)",
    "executorch_prim::et_view.default": "a view: the runtime aliases memory",
    "aten::_native_batch_norm_legit.out": "updates its running statistics in place (no"
    " functional overload with its arguments: a model's buffers make it"
    " _native_batch_norm_legit_functional and copies)",
}


def registered_operators(repo: Path) -> List[str]:
    """The operators etref's optimized kernel table registers
    (ops_optimized/registry.c under `repo`), sorted; [] when that file is
    not there (the smoke test's runfiles)."""
    registry = repo / "ops_optimized" / "registry.c"
    if not registry.exists():
        return []
    return sorted(set(re.findall(r'"([a-z_]+::[A-Za-z0-9_.]+)"', registry.read_text())))


def every_op_cases() -> List[Case]:
    """One case for every operator etref registers that the standard
    cases above and the datasets' programs do not call (but those in
    NOT_BENCHMARKED): a representative size for each, about an L2's worth
    (64x1024 floats) for elementwise ops, so that every operator is timed
    against ExecuTorch's kernel where the wheel has one."""
    cases: List[Case] = []

    def add(case_id: str, group: str, op: str, *args: Any, note: str = "",
            out_dtype: Optional[torch.dtype] = None, values_random: bool = False,
            more_work: str = "") -> None:
        cases.append(Case(f"op-{case_id}", group, op, list(args), ["standard"], note,
                          out_dtype=out_dtype, values_random=values_random,
                          more_work=more_work))

    def x(fill: str = "randn", dtype: torch.dtype = torch.float32) -> TensorSpec:
        return _t(64, 1024, fill=fill, dtype=dtype)

    unary = [("acos", "unit"), ("acosh", "above_one"), ("asin", "unit"), ("asinh", "randn"),
             ("atan", "randn"), ("atanh", "unit"), ("ceil", "randn"), ("cos", "randn"),
             ("cosh", "randn"), ("erf", "randn"), ("expm1", "randn"), ("floor", "randn"),
             ("log10", "positive"), ("log1p", "positive"), ("log2", "positive"),
             ("reciprocal", "positive"), ("round", "randn"), ("sign", "randn"),
             ("sin", "randn"), ("sinh", "randn"), ("tan", "unit"), ("trunc", "randn"),
             ("isinf", "randn"), ("isnan", "randn")]
    for name, fill in unary:
        add(name, "elementwise", f"aten::{name}.out", x(fill))
    ints = torch.int32
    add("bitwise_not-i32", "elementwise", "aten::bitwise_not.out", x("index:1000", ints))
    add("logical_not", "elementwise", "aten::logical_not.out", x())
    add("atan2", "elementwise", "aten::atan2.out", x(), x())
    for name in ("bitwise_and", "bitwise_or", "bitwise_xor"):
        add(f"{name}-i32", "elementwise", f"aten::{name}.Tensor_out", x("index:1000", ints),
            x("index:1000", ints))
        add(f"{name}-scalar-i32", "elementwise", f"aten::{name}.Scalar_out",
            x("index:1000", ints), 5)
    for name in ("logical_and", "logical_or", "logical_xor"):
        add(name, "elementwise", f"aten::{name}.out", x(), x())
    for name in ("eq", "ge", "gt", "le"):
        add(f"{name}-tensor", "elementwise", f"aten::{name}.Tensor_out", x(), x())
    for name in ("ge", "le", "lt", "ne"):
        add(f"{name}-scalar", "elementwise", f"aten::{name}.Scalar_out", x(), 0.0)
    add("fmod-scalar", "elementwise", "aten::fmod.Scalar_out", x(), 0.7)
    add("fmod-tensor", "elementwise", "aten::fmod.Tensor_out", x(), x("positive"))
    add("remainder-tensor", "elementwise", "aten::remainder.Tensor_out", x(), x("positive"))
    add("pow-scalar-base", "elementwise", "aten::pow.Scalar_out", 2.0, x())
    add("pow-tensor", "elementwise", "aten::pow.Tensor_Tensor_out", x("positive"), x())
    add("div-floor", "elementwise", "aten::div.out_mode", x(), x("positive"), "floor")
    add("div-scalar-trunc", "elementwise", "aten::div.Scalar_mode_out", x(), 3.0, "trunc")
    add("fill", "elementwise", "aten::fill.Scalar_out", x(), 2.0)

    m = _t(1024, 1024)
    b = _t(1024, 1024, dtype=torch.bool)
    add("any-dim", "reduction", "aten::any.out", b, 1, False)
    add("any-dims", "reduction", "aten::any.dims_out", b, [1], False)
    add("mean-all", "reduction", "aten::mean.dtype_out", m, None)
    add("var-rows", "reduction", "aten::var.out", m, [1], True, False)
    near_one = _t(1024, 1024, fill="positive")
    add("prod-rows", "reduction", "aten::prod.int_out", near_one, 1, False, None)
    add("prod-all", "reduction", "aten::prod.out", _t(64, 64, fill="positive"), None)
    add("cumsum-rows", "reduction", "aten::cumsum.out", x(), 1, None)
    add("cumsum-cols", "reduction", "aten::cumsum.out", x(), 0, None)
    add("sort-rows", "reduction", "aten::sort.values", x(), -1, False)
    add("topk-5-rows", "reduction", "aten::topk.values", x(), 5, -1, True, True)
    add("nonzero", "reduction", "aten::nonzero.out", x())
    add("nonzero-bool", "reduction", "aten::nonzero.out", x(dtype=torch.bool),
        note="a random mask, half True")

    f = _t(1, 64, 56, 56)
    add("batch_norm-train-64x56", "norm", "aten::_native_batch_norm_legit.no_stats_out", f,
        _c(64), _c(64), True, 0.1, 1e-5)
    add("layer_norm_backward-256x768", "backward", "aten::native_layer_norm_backward.out",
        _t(256, 768), _t(256, 768), [768], _t(256, 1), _t(256, 1, fill="positive"),
        _c(768), _c(768), [True, True, True])
    add("group_norm_backward-64x56-g32", "backward", "aten::native_group_norm_backward.out", f,
        _t(1, 64, 56, 56), _t(1, 32), _t(1, 32, fill="positive"), _c(64), 1, 64, 56 * 56,
        32, [True, True, True])

    sequence = _t(1, 64, 1024)
    volume = _t(1, 16, 16, 32, 32)
    add("avgpool1d-3s2-64x1024", "pool", "aten::avg_pool1d.out", sequence, [3], [2], [1],
        False, True)
    add("adaptive_avgpool1d-64x1024", "pool", "aten::adaptive_avg_pool1d.out", sequence, [64])
    add("avgpool3d-2s2-16x32", "pool", "aten::avg_pool3d.out", volume, [2, 2, 2], [2, 2, 2],
        [0, 0, 0], False, True, None)
    add("maxpool3d-2s2-16x32", "pool", "aten::max_pool3d_with_indices.out", volume, [2, 2, 2],
        [2, 2, 2], [0, 0, 0], [1, 1, 1], False)
    add("adaptive_avgpool3d-16x32", "pool", "aten::_adaptive_avg_pool3d.out", volume,
        [4, 4, 4])
    # ExecuTorch 1.5.1's portable kernel adds the gradients into grad_input
    # without zeroing it first: a second execute() on the same inputs
    # returns twice the gradient, a third three times (checked against eager
    # with executorch.runtime). etref zeroes the 3.2 MB first, as ATen does.
    add("maxpool_backward-3x3s2-64x112", "backward",
        "aten::max_pool2d_with_indices_backward.grad_input", f, _t(1, 64, 112, 112), [3, 3],
        [2, 2], [1, 1], [1, 1], False, _t(1, 64, 56, 56, dtype=torch.int64,
                                          fill="pool_indices:112:112:3:2:1"),
        more_work="etref zero-fills grad_input first, as ATen does; ExecuTorch's portable"
        " kernel only adds into it, so its second execution returns twice the gradient")
    add("avgpool_backward-2x2s2-64x56", "backward", "aten::avg_pool2d_backward.grad_input",
        _t(1, 64, 28, 28), f, [2, 2], [2, 2], [0, 0], False, True, None)
    add("adaptive_avgpool_backward-64x56", "backward", "aten::_adaptive_avg_pool2d_backward.out",
        _t(1, 64, 7, 7), f)

    add("reflection_pad1d-64x1024", "movement", "aten::reflection_pad1d.out", sequence, [2, 2])
    add("reflection_pad2d-64x56", "movement", "aten::reflection_pad2d.out", f, [1, 1, 1, 1])
    add("reflection_pad3d-16x32", "movement", "aten::reflection_pad3d.out", volume,
        [1, 1, 1, 1, 1, 1])
    add("replication_pad2d-64x56", "movement", "aten::replication_pad2d.out", f, [1, 1, 1, 1])
    add("replication_pad3d-16x32", "movement", "aten::replication_pad3d.out", volume,
        [1, 1, 1, 1, 1, 1])
    add("grid_sampler-bilinear-16x56", "resample", "aten::grid_sampler_2d.out",
        _t(1, 16, 56, 56), _t(1, 56, 56, 2, fill="unit"), 0, 0, False)
    add("col2im-3x3-64x56", "movement", "aten::col2im.out", _t(1, 64 * 9, 56 * 56), [56, 56],
        [3, 3], [1, 1], [1, 1], [1, 1])
    add("cdist-512x64", "reduction", "aten::_cdist_forward.out", _t(512, 64), _t(512, 64),
        2.0, None)
    add("pdist-256x64", "reduction", "aten::_pdist_forward.out", _t(256, 64), 2.0)
    add("fft_r2c-64x1024", "fft", "aten::_fft_r2c.out", x(), [1], 0, True)
    add("fft_c2r-64x1024", "fft", "aten::_fft_c2r.out", _t(64, 513, dtype=torch.complex64),
        [1], 0, 1024)
    # Whisper's STFT: 400-point frames (not a power of two).
    add("fft_r2c-64x400", "fft", "aten::_fft_r2c.out", _t(64, 400), [1], 0, True)
    add("fft_c2r-64x400", "fft", "aten::_fft_c2r.out", _t(64, 201, dtype=torch.complex64),
        [1], 0, 400)
    # Odd lengths: n complex points (225: radix-3/5 steps; 401, a prime:
    # Bluestein's transform).
    add("fft_r2c-64x225", "fft", "aten::_fft_r2c.out", _t(64, 225), [1], 0, True)
    add("fft_c2r-64x225", "fft", "aten::_fft_c2r.out", _t(64, 113, dtype=torch.complex64),
        [1], 0, 225)
    add("fft_r2c-64x401", "fft", "aten::_fft_r2c.out", _t(64, 401), [1], 0, True)

    table = _c(8192, 256)
    tokens = _t(512, dtype=torch.int64, fill="index:8192")
    add("embedding_bag-sum-8192x256", "movement", "aten::_embedding_bag.out", table, tokens,
        _t(64, dtype=torch.int64, fill="steps:8"), False, 0, False, None, False, -1)
    add("embedding_backward-8192x256", "backward", "aten::embedding_dense_backward.out",
        _t(512, 256), tokens, 8192, -1, False)
    add("index-rows-8192x256", "movement", "aten::index.Tensor_out", _t(8192, 256), [tokens])
    rows = _t(1024, 64, dtype=torch.int64, fill="index:1024")
    add("scatter-src-1024x64", "movement", "aten::scatter.src_out", m, 0, rows,
        _t(1024, 64))
    add("scatter-value-1024x64", "movement", "aten::scatter.value_out", m, 0, rows, 2.0)
    add("scatter_add-1024x64", "movement", "aten::scatter_add.out", m, 0, rows, _t(1024, 64))
    add("scatter_reduce-amax-1024x64", "movement", "aten::scatter_reduce.two_out", m, 0,
        rows, _t(1024, 64), "amax", True)
    add("masked_scatter", "movement", "aten::masked_scatter.out", x(),
        x(dtype=torch.bool), x())
    add("select-channel-128x56", "movement", "aten::select_copy.int_out", _t(1, 128, 56, 56),
        1, 5)
    add("select_scatter-1024", "movement", "aten::select_scatter.out", m, _t(1024), 0, 3)
    add("squeeze-dim-64x56", "movement", "aten::squeeze_copy.dim_out", f, 0)
    add("alias", "movement", "aten::alias_copy.out", x())
    add("as_strided-every-other", "movement", "aten::as_strided_copy.out", x(), [64, 512],
        [1024, 2], None)
    add("copy", "movement", "aten::copy.out", x(), x(), False)
    add("clone", "movement", "aten::clone.out", x(), None)
    add("to_copy-f32-f16", "movement", "aten::_to_copy.out", x(), False, None,
        out_dtype=torch.float16)
    add("full_like", "movement", "aten::full_like.out", x(), 1.0, None)
    add("scalar_tensor", "movement", "aten::scalar_tensor.out", 3.0)
    add("arange-64Ki", "movement", "aten::arange.start_out", 0, 65536, 1)
    add("linear-256x1024x1024", "gemm", "aten::linear.out", _t(256, 1024), _c(1024, 1024),
        _c(1024))
    add("conv_backward-3x3-32x28", "backward", "aten::convolution_backward.out",
        _t(1, 32, 28, 28), _t(1, 32, 28, 28), _c(32, 32, 3, 3), [32], [1, 1], [1, 1], [1, 1],
        False, [0, 0], 1, [True, True, True])

    zeroes = ("etref zero-fills the out (deterministic runs); ExecuTorch's kernel leaves the"
              " memory as it is")
    add("empty-64x1024", "movement", "aten::empty.out", [64, 1024], None, values_random=True,
        more_work=zeroes)
    add("empty_strided-64x1024", "movement", "aten::empty_strided.out", [64, 1024], [1024, 1],
        values_random=True, more_work=zeroes)
    add("empty_dim_order-64x1024", "movement", "dim_order_ops::_empty_dim_order.out",
        [64, 1024], [0, 1], values_random=True, more_work=zeroes)
    add("rand-64x1024", "random", "aten::rand.out", [64, 1024], values_random=True)
    add("randn-64x1024", "random", "aten::randn.out", [64, 1024], values_random=True)
    add("randperm-64Ki", "random", "aten::randperm.out", 65536, values_random=True)
    add("dropout-64x1024", "random", "aten::native_dropout.out", x(), 0.5, True,
        values_random=True)

    q = "quantized_decomposed::"
    add("quantize-per-tensor", "quantized", q + "quantize_per_tensor.out", x(), 0.05, 3, -128,
        127, torch.int8)
    add("dequantize-per-tensor", "quantized", q + "dequantize_per_tensor.out",
        x("index:100", torch.int8), 0.05, 3, -128, 127, torch.int8, None)
    add("quantize-per-channel", "quantized", q + "quantize_per_channel.out", x(),
        _c(64, fill="positive", dtype=torch.float64), _c(64, dtype=torch.int64, fill="index:5"), 0, -128, 127,
        torch.int8)
    add("dequantize-per-channel", "quantized", q + "dequantize_per_channel.out",
        x("index:100", torch.int8), _c(64, fill="positive"),
        _c(64, dtype=torch.int64, fill="index:5"), 0, -128, 127, torch.int8, None)
    scale, zero = _c(1, dtype=torch.float64, fill="positive"), _c(1, dtype=torch.int64)
    add("quantize-per-tensor-tensor-args", "quantized", q + "quantize_per_tensor.Tensor_out",
        x(), scale, zero, -128, 127, torch.int8)
    add("dequantize-per-tensor-tensor-args", "quantized",
        q + "dequantize_per_tensor.Tensor_out", x("index:100", torch.int8), scale, zero, -128,
        127, torch.int8, None)
    return cases
