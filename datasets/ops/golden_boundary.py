# SPDX-License-Identifier: Apache-2.0
"""Hand-written boundary cases for the golden vectors (generate_golden.py).

OpInfo samples are random values in small ranges; they rarely hold NaN,
infinities, -0.0, subnormals, integer extremes or empty tensors, and some
core ops have no OpInfo at all. Each case here is one call of a core ATen
op (torch.ops.aten.<op>.<overload>, args, kwargs) on deterministic tensors;
generate_golden.py makes the call itself and records its outputs (or its
error) exactly as it records OpInfo samples, so every expected value comes
from PyTorch. Nothing here states an expected value by hand. (Calls are
made directly rather than under the dispatch recorder because symbolic
and CompositeImplicit ops, such as sym_size and var.dim, never reach a
TorchDispatchMode.)

Deliberately absent:
  * div(INT_MIN, -1, rounding_mode='trunc') for int32/int64: PyTorch 2.13
    itself dies with SIGFPE on x86 (floor mode and int8/int16 are fine and
    are included);
  * NaN, infinities and out-of-range floats converted to integers: C and
    c10 leave these undefined (x86 happens to give INT_MIN);
  * sym_storage_offset of a view: an etref tensor has no storage offset
    (ExecuTorch's neither), so only offset-0 tensors are asked about.
"""

import math
from typing import Callable, Iterator, List, Tuple

import torch

aten = torch.ops.aten

FLOAT_DTYPES = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
INT_DTYPES = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]
SIGNED_INT_DTYPES = [torch.int8, torch.int16, torch.int32, torch.int64]

Call = Tuple[str, Callable, tuple, dict]  # name, op, args, kwargs


def special_floats(dtype: torch.dtype) -> torch.Tensor:
    """NaN, +-inf, +-0, the smallest subnormal and normal, the largest
    finite values, and halves (round-half-even) for `dtype`."""
    info = torch.finfo(dtype)
    subnormal = info.smallest_normal * info.eps  # 2^(emin - mantissa bits)
    values = [math.nan, math.inf, -math.inf, -0.0, 0.0, subnormal, -subnormal,
              info.smallest_normal, info.max, -info.max, 1.0, -1.0, 0.5, -0.5,
              1.5, 2.5, -2.5, 3.75, -3.75, 0.1]
    return torch.tensor(values, dtype=torch.float64).to(dtype)


def grid_floats(dtype: torch.dtype) -> torch.Tensor:
    """Ten special values for all-pairs binary cases."""
    info = torch.finfo(dtype)
    values = [math.nan, math.inf, -math.inf, -0.0, 0.0,
              info.smallest_normal * info.eps, 1.0, -1.0, 2.5, info.max]
    return torch.tensor(values, dtype=torch.float64).to(dtype)


def int_extremes(dtype: torch.dtype) -> torch.Tensor:
    info = torch.iinfo(dtype)
    values = sorted({info.min, info.min + 1, -1 if info.min < 0 else 2, 0, 1,
                     info.max - 1, info.max})
    return torch.tensor(values, dtype=dtype)


def small_ints(dtype: torch.dtype) -> torch.Tensor:
    """-7..7 (0..14 for uint8), for division and remainder sign rules."""
    if dtype == torch.uint8:
        return torch.arange(0, 15, dtype=dtype)
    return torch.arange(-7, 8, dtype=dtype)


def divisors(dtype: torch.dtype) -> torch.Tensor:
    values = [1, 2, 3, 5] if dtype == torch.uint8 else [-3, -2, 2, 3]
    return torch.tensor(values, dtype=dtype)


def call(name: str, op: Callable, *args, **kwargs) -> Call:
    return (name, op, args, kwargs)


# (name, op, extra positional args, kwargs) applied to one float tensor.
UNARY_FLOAT_OPS = [
    ("abs", aten.abs.default, (), {}), ("neg", aten.neg.default, (), {}),
    ("sign", aten.sign.default, (), {}), ("ceil", aten.ceil.default, (), {}),
    ("floor", aten.floor.default, (), {}), ("round", aten.round.default, (), {}),
    ("trunc", aten.trunc.default, (), {}), ("exp", aten.exp.default, (), {}),
    ("expm1", aten.expm1.default, (), {}), ("log", aten.log.default, (), {}),
    ("log10", aten.log10.default, (), {}), ("log1p", aten.log1p.default, (), {}),
    ("log2", aten.log2.default, (), {}), ("sqrt", aten.sqrt.default, (), {}),
    ("rsqrt", aten.rsqrt.default, (), {}), ("reciprocal", aten.reciprocal.default, (), {}),
    ("sin", aten.sin.default, (), {}), ("cos", aten.cos.default, (), {}),
    ("tan", aten.tan.default, (), {}), ("asin", aten.asin.default, (), {}),
    ("acos", aten.acos.default, (), {}), ("atan", aten.atan.default, (), {}),
    ("sinh", aten.sinh.default, (), {}), ("cosh", aten.cosh.default, (), {}),
    ("tanh", aten.tanh.default, (), {}), ("asinh", aten.asinh.default, (), {}),
    ("acosh", aten.acosh.default, (), {}), ("atanh", aten.atanh.default, (), {}),
    ("erf", aten.erf.default, (), {}), ("sigmoid", aten.sigmoid.default, (), {}),
    ("relu", aten.relu.default, (), {}), ("gelu", aten.gelu.default, (), {}),
    ("gelu_tanh", aten.gelu.default, (), {"approximate": "tanh"}),
    ("elu", aten.elu.default, (1.0, 1.0, 1.0), {}),
    ("leaky_relu", aten.leaky_relu.default, (0.01,), {}),
    ("hardtanh", aten.hardtanh.default, (-1.0, 1.0), {}),
    ("isnan", aten.isnan.default, (), {}), ("isinf", aten.isinf.default, (), {}),
    ("logical_not", aten.logical_not.default, (), {}),
]

# (name, op, kwargs) applied to two tensors.
BINARY_OPS = [
    ("add", aten.add.Tensor, {}), ("sub", aten.sub.Tensor, {}), ("mul", aten.mul.Tensor, {}),
    ("div", aten.div.Tensor, {}),
    ("div_floor", aten.div.Tensor_mode, {"rounding_mode": "floor"}),
    ("div_trunc", aten.div.Tensor_mode, {"rounding_mode": "trunc"}),
    ("remainder", aten.remainder.Tensor, {}), ("fmod", aten.fmod.Tensor, {}),
    ("pow", aten.pow.Tensor_Tensor, {}), ("atan2", aten.atan2.default, {}),
    ("maximum", aten.maximum.default, {}), ("minimum", aten.minimum.default, {}),
    ("eq", aten.eq.Tensor, {}), ("ne", aten.ne.Tensor, {}), ("lt", aten.lt.Tensor, {}),
    ("le", aten.le.Tensor, {}), ("gt", aten.gt.Tensor, {}), ("ge", aten.ge.Tensor, {}),
    ("logical_and", aten.logical_and.default, {}), ("logical_or", aten.logical_or.default, {}),
    ("logical_xor", aten.logical_xor.default, {}),
]
BINARY = {name: (op, kwargs) for name, op, kwargs in BINARY_OPS}


def _unary_float_cases() -> Iterator[Call]:
    for name, op, extra, kwargs in UNARY_FLOAT_OPS:
        for dtype in FLOAT_DTYPES:
            yield call(f"specials.{name}.{dtype}", op, special_floats(dtype), *extra, **kwargs)


def _binary_float_cases() -> Iterator[Call]:
    # All pairs of special values through broadcasting: [10, 1] op [1, 10].
    for name, op, kwargs in BINARY_OPS:
        for dtype in FLOAT_DTYPES:
            x = grid_floats(dtype)
            yield call(f"specials_grid.{name}.{dtype}", op, x.reshape(-1, 1), x.reshape(1, -1),
                       **kwargs)


def _integer_cases() -> Iterator[Call]:
    for dtype in INT_DTYPES:
        e = int_extremes(dtype)
        column, row = e.reshape(-1, 1), e.reshape(1, -1)
        for name in ("add", "sub", "mul", "maximum", "minimum", "eq", "lt"):
            op, kwargs = BINARY[name]
            yield call(f"int_wrap.{name}.{dtype}", op, column, row, **kwargs)
        yield call(f"int_wrap.add_alpha.{dtype}", aten.add.Tensor, e, e, alpha=3)
        yield call(f"int_wrap.add_scalar.{dtype}", aten.add.Scalar, e, 1)
        yield call(f"int_wrap.sub_scalar.{dtype}", aten.sub.Scalar, e, 1)
        yield call(f"int_wrap.mul_scalar.{dtype}", aten.mul.Scalar, e, 3)
        for name in ("and", "or", "xor"):
            tensor_op = getattr(aten, f"bitwise_{name}").Tensor
            scalar_op = getattr(aten, f"bitwise_{name}").Scalar
            yield call(f"int_bits.bitwise_{name}.{dtype}", tensor_op, column, row)
            yield call(f"int_bits.bitwise_{name}_scalar.{dtype}", scalar_op, e, 6)
        yield call(f"int_bits.bitwise_not.{dtype}", aten.bitwise_not.default, e)
        yield call(f"int_extreme.abs.{dtype}", aten.abs.default, e)
        yield call(f"int_extreme.neg.{dtype}", aten.neg.default, e)
        yield call(f"int_extreme.sign.{dtype}", aten.sign.default, e)
        yield call(f"int_extreme.true_div.{dtype}", aten.div.Tensor, column, row)
        yield call(f"int_extreme.pow2.{dtype}", aten.pow.Tensor_Scalar, e, 2)
        yield call(f"int_extreme.sum.{dtype}", aten.sum.dim_IntList, e, [0])
        yield call(f"int_extreme.cumsum.{dtype}", aten.cumsum.default, e, 0)
        yield call(f"int_extreme.prod.{dtype}", aten.prod.default, e)
        # Division and remainder sign rules: floor vs trunc, Python-style
        # remainder vs C-style fmod.
        a, b = small_ints(dtype).reshape(-1, 1), divisors(dtype).reshape(1, -1)
        for name in ("div_floor", "div_trunc", "remainder", "fmod"):
            op, kwargs = BINARY[name]
            yield call(f"int_div.{name}.{dtype}", op, a, b, **kwargs)
        yield call(f"int_div.remainder_scalar.{dtype}", aten.remainder.Scalar, a, 3)
        yield call(f"int_div.fmod_scalar.{dtype}", aten.fmod.Scalar, a, 3)
        yield call(f"int_div.div_scalar_floor.{dtype}", aten.div.Scalar_mode, a, 2,
                   rounding_mode="floor")
        yield call(f"int_div.div_scalar_trunc.{dtype}", aten.div.Scalar_mode, a, 2,
                   rounding_mode="trunc")
        # PyTorch defines integer division and remainder by zero as errors;
        # true division by zero is floating (inf, nan).
        zero = torch.zeros(1, dtype=dtype)
        yield call(f"int_div_by_zero.div_floor.{dtype}", aten.div.Tensor_mode, a, zero,
                   rounding_mode="floor")
        yield call(f"int_div_by_zero.div_trunc.{dtype}", aten.div.Tensor_mode, a, zero,
                   rounding_mode="trunc")
        yield call(f"int_div_by_zero.remainder.{dtype}", aten.remainder.Tensor, a, zero)
        yield call(f"int_div_by_zero.fmod.{dtype}", aten.fmod.Tensor, a, zero)
        yield call(f"int_div_by_zero.remainder_scalar.{dtype}", aten.remainder.Scalar, a, 0)
        yield call(f"int_div_by_zero.fmod_scalar.{dtype}", aten.fmod.Scalar, a, 0)
        yield call(f"int_div_by_zero.div_scalar_floor.{dtype}", aten.div.Scalar_mode, a, 0,
                   rounding_mode="floor")
        yield call(f"int_div_by_zero.true_div.{dtype}", aten.div.Tensor, a, zero)
        if dtype != torch.uint8:
            yield call(f"int_pow.negative_exponent.{dtype}", aten.pow.Tensor_Scalar, a, -1)
            yield call(f"int_pow.tensor_negative_exponent.{dtype}", aten.pow.Tensor_Tensor, a,
                       torch.full((1,), -1, dtype=dtype))
        yield call(f"int_pow.scalar_base.{dtype}", aten.pow.Scalar, 2, a.abs())
    # Floor division of INT_MIN by -1 wraps to INT_MIN (trunc mode traps
    # inside PyTorch for int32/int64; see the module docstring).
    for dtype in SIGNED_INT_DTYPES:
        info = torch.iinfo(dtype)
        x = torch.tensor([info.min, info.min + 1], dtype=dtype)
        y = torch.full((1,), -1, dtype=dtype)
        yield call(f"int_min_by_minus_one.div_floor.{dtype}", aten.div.Tensor_mode, x, y,
                   rounding_mode="floor")
        yield call(f"int_min_by_minus_one.remainder.{dtype}", aten.remainder.Tensor, x, y)
        yield call(f"int_min_by_minus_one.fmod.{dtype}", aten.fmod.Tensor, x, y)
        if dtype in (torch.int8, torch.int16):
            yield call(f"int_min_by_minus_one.div_trunc.{dtype}", aten.div.Tensor_mode, x, y,
                       rounding_mode="trunc")


def _reduction_cases() -> Iterator[Call]:
    nan, inf = math.nan, math.inf
    for dtype in FLOAT_DTYPES:
        x = torch.tensor([[1.0, nan, 3.0, -inf], [inf, -0.0, 0.0, 2.0], [-1.0, 5.0, nan, nan]],
                         dtype=torch.float64).to(dtype)
        bounds = torch.tensor([nan, 0.0, -1.0, 1.0], dtype=dtype)
        # Sorting leaves the order of equal values (and of NaNs) open, so
        # its rows hold one NaN and no ties.
        distinct = torch.tensor([[1.0, nan, 3.0, -inf], [inf, -0.0, 2.0, -5.0],
                                 [-1.0, 5.0, nan, 0.5]], dtype=torch.float64).to(dtype)
        yield call(f"nan_reduce.amax.{dtype}", aten.amax.default, x, [1])
        yield call(f"nan_reduce.amin.{dtype}", aten.amin.default, x, [0])
        yield call(f"nan_reduce.max_dim.{dtype}", aten.max.dim, x, 1)
        yield call(f"nan_reduce.min_dim.{dtype}", aten.min.dim, x, 0, True)
        yield call(f"nan_reduce.argmax.{dtype}", aten.argmax.default, x, 1)
        yield call(f"nan_reduce.argmin.{dtype}", aten.argmin.default, x, 0)
        yield call(f"nan_reduce.sum.{dtype}", aten.sum.dim_IntList, x, [1])
        yield call(f"nan_reduce.mean.{dtype}", aten.mean.dim, x, [0])
        yield call(f"nan_reduce.prod.{dtype}", aten.prod.dim_int, x, 1)
        yield call(f"nan_reduce.cumsum.{dtype}", aten.cumsum.default, x, 1)
        yield call(f"nan_reduce.var.{dtype}", aten.var.correction, x, [1], correction=1)
        yield call(f"nan_reduce.any.{dtype}", aten.any.dim, x, 1)
        yield call(f"nan_reduce.sort.{dtype}", aten.sort.default, distinct, 1)
        yield call(f"nan_reduce.sort_descending.{dtype}", aten.sort.default, distinct, 1, True)
        yield call(f"nan_reduce.topk.{dtype}", aten.topk.default, distinct, 2, 1)
        yield call(f"nan_reduce.softmax.{dtype}", aten._softmax.default, x, 1, False)
        yield call(f"nan_reduce.clamp_nan_input.{dtype}", aten.clamp.default, x, -1.0, 2.0)
        yield call(f"nan_reduce.clamp_min_above_max.{dtype}", aten.clamp.default, x, 2.0, -1.0)
        yield call(f"nan_reduce.clamp_tensor_nan_bound.{dtype}", aten.clamp.Tensor, x, bounds)
        yield call(f"nan_reduce.where.{dtype}", aten.where.self, torch.isnan(x), -x, x)


def _empty_cases() -> Iterator[Call]:
    for dtype in (torch.float32, torch.int64):
        empty = torch.ones(0, 3, dtype=dtype)
        row = torch.arange(3, dtype=dtype)
        yield call(f"empty.add_broadcast.{dtype}", aten.add.Tensor, empty, row)
        yield call(f"empty.sum_all.{dtype}", aten.sum.dim_IntList, empty, None)
        yield call(f"empty.sum_dim0.{dtype}", aten.sum.dim_IntList, empty, [0])
        yield call(f"empty.prod_all.{dtype}", aten.prod.default, empty)
        yield call(f"empty.any_all.{dtype}", aten.any.default, empty)
        yield call(f"empty.amax_dim0.{dtype}", aten.amax.default, empty, [0])
        yield call(f"empty.amax_dim1.{dtype}", aten.amax.default, empty, [1])
        yield call(f"empty.argmax_all.{dtype}", aten.argmax.default, empty)
        yield call(f"empty.cat.{dtype}", aten.cat.default, [empty, row.reshape(1, 3), empty])
        yield call(f"empty.clone.{dtype}", aten.clone.default, empty)
        yield call(f"empty.permute.{dtype}", aten.permute.default, empty, [1, 0])
        yield call(f"empty.constant_pad.{dtype}", aten.constant_pad_nd.default, empty,
                   [1, 1, 0, 2], 7)
        yield call(f"empty.cumsum.{dtype}", aten.cumsum.default, empty, 0)
    f = torch.float32
    yield call("empty.mean_all", aten.mean.dim, torch.ones(0, 3, dtype=f), None)
    yield call("empty.mm_k0", aten.mm.default, torch.ones(2, 0, dtype=f), torch.ones(0, 3, dtype=f))
    yield call("empty.bmm_k0", aten.bmm.default, torch.ones(2, 3, 0, dtype=f),
               torch.ones(2, 0, 4, dtype=f))
    yield call("empty.addmm_k0", aten.addmm.default, torch.full((2, 3), 1.5, dtype=f),
               torch.ones(2, 0, dtype=f), torch.ones(0, 3, dtype=f), beta=2)
    yield call("empty.softmax", aten._softmax.default, torch.ones(0, 4, dtype=f), 1, False)
    yield call("empty.log_softmax", aten._log_softmax.default, torch.ones(4, 0, dtype=f), 0, False)
    yield call("empty.where", aten.where.self, torch.ones(0, dtype=torch.bool),
               torch.ones(0, dtype=f), torch.ones(0, dtype=f))


def _magnitude_cases() -> Iterator[Call]:
    h, f = torch.float16, torch.float32
    # Half sums accumulate in float: the mean is representable, the sum not.
    yield call("magnitude.half_sum_overflows", aten.sum.dim_IntList,
               torch.full((4,), 60000.0, dtype=h), [0])
    yield call("magnitude.half_mean_no_overflow", aten.mean.dim, torch.full((4,), 60000.0, dtype=h), [0])
    yield call("magnitude.softmax_large", aten._softmax.default,
               torch.tensor([[1000.0, 1000.0, -1000.0], [-1e30, 0.0, 1e30]], dtype=f), 1, False)
    yield call("magnitude.log_softmax_large", aten._log_softmax.default,
               torch.tensor([[1000.0, 0.0, -1000.0]], dtype=f), 1, False)
    yield call("magnitude.sigmoid_saturates", aten.sigmoid.default,
               torch.tensor([-1000.0, -100.0, -20.0, 20.0, 100.0, 1000.0], dtype=f))
    yield call("magnitude.tanh_saturates", aten.tanh.default,
               torch.tensor([-50.0, -20.0, -1e-8, 1e-8, 20.0, 50.0], dtype=f))
    yield call("magnitude.exp_float_limits", aten.exp.default,
               torch.tensor([88.7, 88.8, -103.9, -104.0, -87.3], dtype=f))
    yield call("magnitude.expm1_tiny", aten.expm1.default, torch.tensor([1e-10, -1e-10, 1e-5], dtype=f))
    yield call("magnitude.log1p_tiny", aten.log1p.default, torch.tensor([1e-10, -1e-10, 1e-5], dtype=f))
    yield call("magnitude.var_cancellation", aten.var.correction,
               torch.tensor([1e4 + 1, 1e4 + 2, 1e4 + 3, 1e4 + 4], dtype=f), None, correction=1)
    yield call("magnitude.layer_norm_constant_row", aten.native_layer_norm.default,
               torch.full((2, 4), 3.0, dtype=f), [4], None, None, 1e-5)
    yield call("magnitude.mul_subnormal_result", aten.mul.Tensor,
               torch.tensor([1e-20, 1e-30], dtype=f), torch.tensor([1e-20, 1e-10], dtype=f))
    yield call("magnitude.add_absorbs", aten.add.Tensor,
               torch.tensor([1e8, 16777216.0], dtype=f), torch.tensor([1.0, 1.0], dtype=f))


def _conversion_cases() -> Iterator[Call]:
    for source in FLOAT_DTYPES:
        x = special_floats(source)
        for target in FLOAT_DTYPES + [torch.bool, torch.complex64]:
            if target != source:
                yield call(f"convert.{source}_to_{target}", aten._to_copy.default, x, dtype=target)
        finite = torch.tensor([-2.7, -0.5, -0.0, 0.0, 0.5, 1.5, 2.7, 100.9, -100.9],
                              dtype=torch.float64).to(source)
        for target in INT_DTYPES:
            values = finite.abs() if target == torch.uint8 else finite
            yield call(f"convert.{source}_to_{target}", aten._to_copy.default, values, dtype=target)
    big = torch.tensor([2**24 + 1, 2**53 + 1, -(2**62) - 1, 65519, 65520, 300, -300],
                       dtype=torch.int64)
    for target in (torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int8,
                   torch.uint8, torch.int16, torch.int32, torch.bool):
        yield call(f"convert.int64_to_{target}", aten._to_copy.default, big, dtype=target)
    flags = torch.tensor([True, False, True], dtype=torch.bool)
    for target in (torch.float32, torch.int64, torch.uint8, torch.float16):
        yield call(f"convert.bool_to_{target}", aten._to_copy.default, flags, dtype=target)


def _ops_without_opinfo() -> Iterator[Call]:
    f = torch.float32
    x = torch.arange(24, dtype=f).reshape(2, 3, 4)
    # Symbolic (prim) ops: their "outputs" are Python numbers.
    yield call("prim.sym_size", aten.sym_size.int, x, 1)
    yield call("prim.sym_size_negative_dim", aten.sym_size.int, x, -1)
    yield call("prim.sym_size_dim_out_of_range", aten.sym_size.int, x, 3)
    yield call("prim.sym_numel", aten.sym_numel.default, x)
    yield call("prim.sym_numel_empty", aten.sym_numel.default, torch.ones(3, 0))
    yield call("prim.sym_numel_zero_dim", aten.sym_numel.default, torch.tensor(1.0))
    yield call("prim.sym_stride", aten.sym_stride.int, x, 0)
    yield call("prim.sym_stride_transposed", aten.sym_stride.int, x.transpose(0, 2), 0)
    yield call("prim.sym_storage_offset", aten.sym_storage_offset.default, x)
    yield call("prim.sym_is_contiguous", aten.sym_is_contiguous.default, x)
    yield call("prim.sym_is_contiguous_transposed", aten.sym_is_contiguous.default,
               x.transpose(0, 1))
    nhwc = torch.arange(16, dtype=f).reshape(1, 4, 2, 2).contiguous(memory_format=torch.channels_last)
    yield call("prim.sym_is_contiguous_channels_last", aten.sym_is_contiguous.default, nhwc,
               torch.channels_last)
    yield call("prim.sym_is_contiguous_channels_last_as_default", aten.sym_is_contiguous.default,
               nhwc)
    for name, value in (("float", torch.tensor(2.5)), ("int", torch.tensor([[7]])),
                        ("bool", torch.tensor([True])),
                        ("half", torch.tensor([1.5], dtype=torch.float16)),
                        ("int8", torch.tensor(-3, dtype=torch.int8))):
        yield call(f"prim.local_scalar_dense_{name}", aten._local_scalar_dense.default, value)
    yield call("prim.local_scalar_dense_two_elements_error", aten._local_scalar_dense.default,
               torch.ones(2))
    # randperm: only the multiset of values is defined (class PERMUTATION).
    for n, dtype in ((0, torch.int64), (1, torch.int64), (5, torch.int64), (17, torch.int32),
                     (9, torch.float32)):
        yield call(f"random.randperm_{n}_{dtype}", aten.randperm.default, n, dtype=dtype)
    yield call("random.rand", aten.rand.default, [3, 4])
    yield call("random.randn", aten.randn.default, [2, 5], dtype=torch.float64)
    # native_dropout: deterministic when not training, p = 0 or p = 1.
    y = torch.linspace(-2, 2, 12, dtype=f).reshape(3, 4)
    yield call("dropout.eval", aten.native_dropout.default, y, 0.5, False)
    yield call("dropout.p0", aten.native_dropout.default, y, 0.0, True)
    yield call("dropout.p1", aten.native_dropout.default, y, 1.0, True)
    yield call("dropout.half_eval", aten.native_dropout.default, y.half(), 0.3, False)
    # copy: self's shape and dtype, src broadcast and converted.
    yield call("copy.broadcast", aten.copy.default, torch.zeros(2, 3), torch.tensor([1.5, -2.0, 3.0]))
    yield call("copy.convert", aten.copy.default, torch.zeros(2, 2, dtype=torch.int32),
               torch.tensor([[1.7, -2.7], [3.2, 9.9]]))
    yield call("copy.to_half", aten.copy.default, torch.zeros(3, dtype=torch.float16),
               torch.tensor([1e-8, 70000.0, 1.0 / 3]))
    yield call("copy.bad_broadcast_error", aten.copy.default, torch.zeros(2, 3), torch.ones(4))
    # Scalar overloads and composite ops OpInfo never reaches.
    z = torch.tensor([-7.5, -2.0, 0.0, 2.0, 7.5], dtype=f)
    yield call("scalar.div_scalar_mode_floor", aten.div.Scalar_mode, z, 2.0, rounding_mode="floor")
    yield call("scalar.div_scalar_mode_trunc", aten.div.Scalar_mode, z, -2.0, rounding_mode="trunc")
    yield call("scalar.div_scalar_mode_none", aten.div.Scalar_mode, z, 4, rounding_mode=None)
    yield call("scalar.fmod_scalar", aten.fmod.Scalar, z, 2.5)
    yield call("scalar.fmod_scalar_zero", aten.fmod.Scalar, z, 0.0)
    yield call("scalar.remainder_scalar", aten.remainder.Scalar, z, -2.5)
    yield call("scalar.pow_scalar", aten.pow.Scalar, 2.0, z)
    yield call("scalar.pow_scalar_int_base", aten.pow.Scalar, 3, torch.tensor([0, 1, 2, 5]))
    yield call("scalar.var_dim_unbiased", aten.var.dim, x, [1], True, False)
    yield call("scalar.var_dim_biased_keepdim", aten.var.dim, x, [0, 2], False, True)
    yield call("scalar.var_dim_all", aten.var.dim, x, None, True, False)
    yield call("scalar.scalar_tensor", aten.scalar_tensor.default, -2.5, dtype=torch.float16)
    yield call("scalar.full_bool", aten.full.default, [2, 2], True, dtype=torch.bool)
    yield call("scalar.fill_int_overflow", aten.fill.Scalar, torch.zeros(3, dtype=torch.int8), 300)
    yield call("scalar.fill_half", aten.fill.Scalar, torch.zeros(3, dtype=torch.float16), 1e-8)
    # slice_scatter has an OpInfo-less path in eager (slice + copy_).
    base = torch.zeros(4, 5)
    yield call("scatter.slice_scatter_dim1", aten.slice_scatter.default, base,
               torch.ones(4, 2), 1, 1, 5, 2)
    yield call("scatter.slice_scatter_negative", aten.slice_scatter.default, base,
               torch.ones(2, 5), 0, -2, None, 1)
    yield call("scatter.slice_scatter_bad_shape_error", aten.slice_scatter.default, base,
               torch.ones(3, 5), 0, 0, 2, 1)
    # (OpInfo's slice_scatter samples hold 10,000+ elements, beyond the
    # generator's MAX_CALL_ELEMENTS, so these stand in for them.)
    for dtype in (torch.int64, torch.float16, torch.bool, torch.uint8, torch.float64):
        grid = (torch.arange(24).reshape(2, 3, 4) % 5).to(dtype)
        patch = (torch.arange(12).reshape(2, 3, 2) % 2 == 0).to(dtype)
        yield call(f"scatter.slice_scatter_step2_{dtype}", aten.slice_scatter.default, grid,
                   patch, -1, 0, None, 2)
    wide = torch.arange(30, dtype=f).reshape(5, 6)
    yield call("scatter.slice_scatter_end_beyond_size", aten.slice_scatter.default, wide,
               torch.full((2, 6), -1.0), 0, 3, 2**62, 1)
    yield call("scatter.slice_scatter_noncontiguous_src", aten.slice_scatter.default, wide,
               torch.arange(10, dtype=f).reshape(2, 5).t(), 1, 1, 3, 1)
    # Pooling and resampling overloads eager mode reaches only through
    # composite wrappers (the derived OpInfo calls cover more).
    seq = torch.arange(2 * 3 * 7, dtype=f).reshape(2, 3, 7) / 7
    yield call("pool.adaptive_avg_pool1d", aten.adaptive_avg_pool1d.default, seq, [3])
    yield call("pool.avg_pool1d", aten.avg_pool1d.default, seq, [3], [2], [1], False, True)
    yield call("pool.avg_pool1d_ceil", aten.avg_pool1d.default, seq, [2], [2], [0], True, False)
    img = torch.arange(2 * 3 * 4 * 5, dtype=f).reshape(2, 3, 4, 5) / 10
    yield call("resample.upsample_nearest2d_size", aten.upsample_nearest2d.vec, img, [7, 3], None)
    yield call("resample.upsample_nearest2d_scale", aten.upsample_nearest2d.vec, img, None, [1.5, 2.0])
    yield call("resample.upsample_bilinear2d_size", aten.upsample_bilinear2d.vec, img, [7, 3], False, None)
    yield call("resample.upsample_bilinear2d_corners", aten.upsample_bilinear2d.vec, img, [6, 9], True, None)
    yield call("resample.upsample_bilinear2d_scale", aten.upsample_bilinear2d.vec, img, None, False, [0.5, 1.7])


def cases() -> Iterator[Call]:
    """Every boundary case as (name, op, args, kwargs), in a fixed order."""
    yield from _unary_float_cases()
    yield from _binary_float_cases()
    yield from _integer_cases()
    yield from _reduction_cases()
    yield from _empty_cases()
    yield from _magnitude_cases()
    yield from _conversion_cases()
    yield from _ops_without_opinfo()
