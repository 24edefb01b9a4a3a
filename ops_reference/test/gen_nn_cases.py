#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Generates the golden cases of the "nn" family kernel tests (pooling,
normalization, convolution backward, sampling, FFT) with PyTorch eager as
the oracle.

Besides the per-op cases, nn_dtypes_cases.h calls every op on the 15
dtypes etref tests with small exact inputs: PyTorch's result becomes the
expected value, its refusal ("not implemented for ..."), NotSupported.

Each case is one call of an out-variant kernel: its arguments in the
out-variant schema order (torch.Generator-seeded inputs, one seed per op)
and the values PyTorch gives every out tensor (and every in-place argument
after the call, for the batch-norm running statistics). Cases are written
as C literals (ops_reference/test/op_nn_case_util.h types) into
ops_reference/test/generated/nn_<group>_cases.h, which the Criterion tests
op_nn_*_test.c replay in contiguous, non-contiguous and channels-last
layouts.

Oracle: integer and Bool cases, and every case of the ops whose result
depends on a dtype's own arithmetic (the uint8 bilinear kernel, the
float index math of nearest upsampling and grid sampling), use PyTorch at
the case's dtype. Other floating cases call the same op on float64 copies
of the floating inputs and round the results to the case's dtype (the
reference kernels compute in double and round once); every such case is
checked here against PyTorch at its own dtype (torch.testing.assert_close,
whose tolerances the C tests use, widened for Half/BFloat16 by the
accumulation ops where PyTorch itself rounds intermediates to 16 bits),
so the two can only differ by PyTorch's own rounding.

Usage (from the repository root):
    .venv/bin/python ops_reference/test/gen_nn_cases.py          # rewrite
    .venv/bin/python ops_reference/test/gen_nn_cases.py --check  # compare
    .venv/bin/python ops_reference/test/gen_nn_cases.py --stress 200
        # adds 200 random calls per op (random shapes, parameters and
        # dtypes, PyTorch-rejected draws skipped) for a local soak run of
        # the same tests; rerun without it before checking in.
"""

import math
import os
import random
import sys

import torch

A = torch.ops.aten
OUT_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "generated")
GENERATOR = "ops_reference/test/gen_nn_cases.py"

DTYPE_NAMES = {
    torch.bool: "ETR_BOOL", torch.uint8: "ETR_BYTE", torch.int8: "ETR_CHAR",
    torch.int16: "ETR_SHORT", torch.int32: "ETR_INT", torch.int64: "ETR_LONG",
    torch.float16: "ETR_HALF", torch.bfloat16: "ETR_BFLOAT16",
    torch.float32: "ETR_FLOAT", torch.float64: "ETR_DOUBLE",
    torch.complex64: "ETR_COMPLEX_FLOAT", torch.complex128: "ETR_COMPLEX_DOUBLE",
    torch.uint16: "ETR_UINT16", torch.uint32: "ETR_UINT32", torch.uint64: "ETR_UINT64",
}
F16 = (torch.float16, torch.bfloat16)


def c_double(x):
    if math.isnan(x):
        return "NAN"
    if math.isinf(x):
        return "INFINITY" if x > 0 else "-INFINITY"
    text = repr(float(x))
    return text if ("." in text or "e" in text or "n" in text) else text + ".0"


# ---------------------------------------------------------------------------
# Arguments of a case. Each becomes one nn_arg_t literal.


class Arg:
    def __init__(self, kind, value=None, after=None):
        self.kind, self.value, self.after = kind, value, after


def T(t):  # input tensor (None: an absent optional tensor)
    return Arg("NN_NONE") if t is None else Arg("NN_TENSOR", t)


def I(v):  # noqa: E743
    return Arg("NN_INT", int(v))


def D(v):
    return Arg("NN_DOUBLE", float(v))


def B(v):
    return Arg("NN_BOOL", bool(v))


def IL(v):
    return Arg("NN_INTS", list(v))


def DL(v):
    return Arg("NN_DOUBLES", list(v))


def BL(v):
    return Arg("NN_BOOLS", list(v))


NONE = Arg("NN_NONE")


def OUT(expected):  # an out tensor and its expected value; None: masked out
    return Arg("NN_MASKED") if expected is None else Arg("NN_OUT", expected)


def INOUT(initial, after):  # an input the kernel updates in place
    return Arg("NN_INOUT", initial, after)


class Writer:
    """Collects the arrays and cases of one generated header."""

    def __init__(self, group):
        self.group = group
        self.arrays = []
        self.cases = []
        self.counter = 0

    def _name(self, what):
        self.counter += 1
        return f"k_nn_{self.group}_{what}_{self.counter}"

    def tensor(self, t):
        if t is None:
            return "{false, ETR_FLOAT, 0, {0}, 0, NULL}"
        t = t.detach().contiguous()
        assert t.dim() <= 6
        if t.is_complex():
            flat = torch.view_as_real(t).reshape(-1).double().tolist()
        else:
            flat = t.reshape(-1).double().tolist()
        array = self._name("values")
        values = [c_double(v) for v in flat] or ["0.0"]
        lines = [", ".join(values[i:i + 4]) for i in range(0, len(values), 4)]
        self.arrays.append(f"static const double {array}[] = {{\n    " + ",\n    ".join(lines) + "};")
        sizes = ", ".join(str(s) for s in t.shape) or "0"
        return f"{{true, {DTYPE_NAMES[t.dtype]}, {t.dim()}, {{{sizes}}}, {len(flat)}, {array}}}"

    def list_array(self, ctype, values, fmt):
        array = self._name("list")
        body = ", ".join(fmt(v) for v in values) or fmt(0)
        self.arrays.append(f"static const {ctype} {array}[] = {{{body}}};")
        return array

    def arg(self, a):
        k = a.kind
        if k in ("NN_TENSOR", "NN_OUT"):
            return f"{{.kind = {k}, .tensor = {self.tensor(a.value)}}}"
        if k == "NN_INOUT":
            return f"{{.kind = {k}, .tensor = {self.tensor(a.value)}, .after = {self.tensor(a.after)}}}"
        if k in ("NN_NONE", "NN_MASKED"):
            return f"{{.kind = {k}}}"
        if k == "NN_INT":
            return f"{{.kind = {k}, .int_value = {a.value}}}"
        if k == "NN_DOUBLE":
            return f"{{.kind = {k}, .double_value = {c_double(a.value)}}}"
        if k == "NN_BOOL":
            return f"{{.kind = {k}, .int_value = {1 if a.value else 0}}}"
        if k == "NN_INTS":
            arr = self.list_array("int64_t", a.value, str)
            return f"{{.kind = {k}, .count = {len(a.value)}, .ints = {arr}}}"
        if k == "NN_DOUBLES":
            arr = self.list_array("double", a.value, c_double)
            return f"{{.kind = {k}, .count = {len(a.value)}, .doubles = {arr}}}"
        if k == "NN_BOOLS":
            arr = self.list_array("bool", a.value, lambda v: "true" if v else "false")
            return f"{{.kind = {k}, .count = {len(a.value)}, .bools = {arr}}}"
        raise ValueError(k)

    def case(self, op, name, args, status="ETR_OK"):
        array = self._name("args")
        body = ",\n    ".join(self.arg(a) for a in args)
        self.arrays.append(f"static const nn_arg_t {array}[] = {{\n    {body}}};")
        self.cases.append(f'    {{"{op}", "{name}", {len(args)}, {array}, {status}}},')

    def text(self, seed_note):
        guard = f"ETR_OPS_REFERENCE_TEST_GENERATED_NN_{self.group.upper()}_CASES_H"
        table = "k" + "".join(p.capitalize() for p in ("nn_" + self.group).split("_")) + "Cases"
        return f"""// SPDX-License-Identifier: Apache-2.0
//
// Generated by {GENERATOR} ({seed_note}) from PyTorch
// {torch.__version__.split('+')[0]} eager; do not edit. Golden cases of the nn family kernel tests.
#ifndef {guard}
#define {guard}

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "ops_reference/test/op_nn_case_util.h"

{chr(10).join(self.arrays)}

static const nn_case_t {table}[] = {{
{chr(10).join(self.cases)}
}};

#endif  // {guard}
"""


# ---------------------------------------------------------------------------
# Inputs and oracles.


def randn(gen, *shape, dtype=torch.float32, scale=1.0):
    return (torch.randn(tuple(shape), generator=gen, dtype=torch.float64) * scale).to(dtype)


def randint(gen, low, high, *shape, dtype=torch.int64):
    return torch.randint(low, high, tuple(shape), generator=gen).to(dtype)


def upcast(x):
    if isinstance(x, torch.Tensor) and x.is_floating_point():
        return x.double()
    if isinstance(x, torch.Tensor) and x.is_complex():
        return x.to(torch.complex128)
    return x


def as_list(r):
    return list(r) if isinstance(r, (tuple, list)) else [r]


def oracle(fn, args, dtype_like, loose=False, native_only=False, inplace=()):
    """Runs fn(*args). For floating cases computes in float64 and rounds to
    the native result's dtypes, after checking the native result is close.
    `inplace` lists arg positions fn updates in place; returns
    (outputs, [after values of the in-place args])."""
    native_args = [a.clone() if isinstance(a, torch.Tensor) else a for a in args]
    native = as_list(fn(*native_args))
    native_after = [native_args[i] for i in inplace]
    floating = dtype_like.is_floating_point or dtype_like.is_complex
    if native_only or not floating or dtype_like == torch.float64:
        return native, native_after
    wide_args = [upcast(a.clone()) if isinstance(a, torch.Tensor) else a for a in args]
    wide = as_list(fn(*wide_args))
    results = []
    for n, w in zip(native, wide):
        if n is None or w is None:  # masked out (float32 CPU convolution
            # backward computes an unrequested grad_weight anyway)
            results.append(None)
            continue
        r = w.to(n.dtype)
        check_close(n, r, loose, dtype_like)
        results.append(r)
    after = []
    for i, n in zip(inplace, native_after):
        r = wide_args[i].to(n.dtype)
        check_close(n, r, loose, dtype_like)
        after.append(r)
    return results, after


def check_close(native, rounded, loose, case_dtype):
    """PyTorch's Half/BFloat16 CPU kernels often sum in the 16-bit type, so
    their results are checked loosely (a semantic difference is far larger);
    `loose` widens Float too, for the accumulation-heavy backward ops."""
    if native.dtype in F16 or case_dtype in F16:
        scale = max(1.0, rounded.double().abs().nan_to_num(0.0).max().item()) if rounded.numel() else 1.0
        torch.testing.assert_close(native.double(), rounded.double(), rtol=5e-2, atol=5e-2 * scale,
                                   equal_nan=True)
    elif loose:
        torch.testing.assert_close(native, rounded, rtol=1e-4, atol=1e-4, equal_nan=True)
    else:
        torch.testing.assert_close(native, rounded, equal_nan=True)


# ---------------------------------------------------------------------------
# Pooling.


def gen_pool():
    w = Writer("pool")
    gen = torch.Generator().manual_seed(201)

    # avg_pool1d(self, kernel, stride, padding, ceil, include_pad, *, out)
    specs = [
        ("basic", (2, 3, 8), [3], [], [0], False, True, torch.float32),
        ("pad_ceil_include", (1, 2, 7), [3], [2], [1], True, True, torch.float32),
        ("pad_ceil_exclude", (1, 2, 7), [3], [2], [1], True, False, torch.float32),
        ("unbatched", (3, 9), [4], [3], [2], False, False, torch.float32),
        ("empty_batch", (0, 2, 5), [2], [1], [0], False, True, torch.float32),
        ("double", (2, 2, 6), [2], [1], [1], True, True, torch.float64),
        ("half", (1, 3, 6), [3], [1], [1], False, True, torch.float16),
        ("bfloat16", (2, 2, 5), [2], [2], [1], True, False, torch.bfloat16),
        ("int64", (2, 2, 7), [3], [2], [1], True, True, torch.int64),
    ]
    for name, shape, k, s, p, ceil, inc, dtype in specs:
        x = randn(gen, *shape, dtype=dtype) if dtype.is_floating_point else randint(gen, -20, 20, *shape)
        (y,), _ = oracle(lambda a: A.avg_pool1d(a, k, s, p, ceil, inc), [x], dtype)
        w.case("aten::avg_pool1d.out", name, [T(x), IL(k), IL(s), IL(p), B(ceil), B(inc), OUT(y)])

    # avg_pool3d(self, kernel, stride, padding, ceil, include_pad, divisor?, *, out)
    specs = [
        ("basic", (1, 2, 4, 4, 4), [2], [], [0], False, True, None, torch.float32),
        ("mixed", (2, 1, 5, 6, 4), [3, 2, 2], [2, 1, 2], [1, 1, 0], False, True, None, torch.float32),
        ("ceil_include", (1, 2, 5, 5, 6), [3, 3, 2], [2, 2, 2], [1, 1, 1], True, True, None, torch.float32),
        ("ceil_exclude", (1, 2, 5, 5, 6), [3, 3, 2], [2, 2, 2], [1, 1, 1], True, False, None, torch.float32),
        ("divisor", (1, 1, 4, 4, 4), [2], [2], [1], False, True, 3, torch.float32),
        ("negative_divisor", (1, 1, 3, 4, 4), [2, 3, 2], [1], [1], False, False, -5, torch.float32),
        ("unbatched", (2, 4, 5, 3), [2], [1], [1], True, False, None, torch.float32),
        ("empty_batch", (0, 2, 3, 3, 3), [2], [1], [0], False, True, None, torch.float32),
        ("double", (1, 2, 3, 4, 5), [2, 2, 3], [1, 2, 1], [1, 0, 1], True, True, None, torch.float64),
        ("int64", (1, 2, 4, 4, 4), [3], [2], [1], True, True, None, torch.int64),
        ("int64_divisor", (1, 1, 3, 3, 4), [2], [1], [0], False, True, 3, torch.int64),
    ]
    for name, shape, k, s, p, ceil, inc, div, dtype in specs:
        x = randn(gen, *shape, dtype=dtype) if dtype.is_floating_point else randint(gen, -20, 20, *shape)
        (y,), _ = oracle(lambda a: A.avg_pool3d(a, k, s, p, ceil, inc, div), [x], dtype)
        w.case("aten::avg_pool3d.out", name,
               [T(x), IL(k), IL(s), IL(p), B(ceil), B(inc), NONE if div is None else I(div), OUT(y)])

    # max_pool3d_with_indices(self, kernel, stride, padding, dilation, ceil, *, out, indices)
    specs = [
        ("basic", (1, 2, 4, 4, 4), [2], [], [0], [1], False, torch.float32),
        ("pad_stride", (2, 1, 5, 6, 5), [3, 2, 3], [2, 1, 2], [1, 1, 1], [1], False, torch.float32),
        ("ceil", (1, 2, 5, 5, 5), [2], [2], [0], [1], True, torch.float32),
        ("dilation", (1, 1, 7, 6, 7), [2, 3, 2], [2, 1, 3], [1, 1, 0], [2, 2, 3], True, torch.float32),
        ("unbatched", (2, 4, 5, 3), [2], [1], [1], [1], False, torch.float32),
        ("empty_batch", (0, 2, 3, 3, 3), [2], [1], [0], [1], False, torch.float32),
        ("double", (1, 2, 3, 4, 5), [2], [1], [1], [1], False, torch.float64),
        ("half", (1, 2, 4, 4, 4), [3], [2], [1], [1], True, torch.float16),
        ("bfloat16", (1, 2, 4, 4, 4), [2], [1], [0], [2], False, torch.bfloat16),
        ("uint8", (1, 2, 4, 4, 4), [2], [2], [1], [1], False, torch.uint8),
        ("int8_ties", (1, 2, 4, 4, 4), [3], [1], [1], [1], False, torch.int8),
        ("int16", (1, 1, 4, 5, 4), [2], [1], [0], [1], True, torch.int16),
        ("int32", (1, 1, 4, 4, 4), [2, 3, 2], [2], [1], [1], False, torch.int32),
        ("int64", (1, 1, 4, 4, 4), [2], [1], [1], [2], True, torch.int64),
    ]
    for name, shape, k, s, p, d, ceil, dtype in specs:
        if dtype.is_floating_point:
            x = randn(gen, *shape, dtype=dtype)
        elif name.endswith("ties"):
            x = randint(gen, -2, 2, *shape, dtype=dtype)
        else:
            low = 0 if dtype == torch.uint8 else -100
            x = randint(gen, low, 100, *shape, dtype=dtype)
        y, idx = A.max_pool3d_with_indices(x, k, s, p, d, ceil)
        w.case("aten::max_pool3d_with_indices.out", name,
               [T(x), IL(k), IL(s), IL(p), IL(d), B(ceil), OUT(y), OUT(idx)])
    # NaN (the last NaN of a window wins) and -inf windows.
    nan, inf = float("nan"), float("inf")
    x = torch.tensor([1, nan, 3, nan, 0, 0, 7, 0, -inf, -inf, -inf, -inf, 2, nan, 5, 6]).reshape(1, 1, 2, 2, 4)
    y, idx = A.max_pool3d_with_indices(x, [2, 2, 2], [2, 2, 2], [0], [1], False)
    w.case("aten::max_pool3d_with_indices.out", "nan_and_inf",
           [T(x), IL([2]), IL([2]), IL([0]), IL([1]), B(False), OUT(y), OUT(idx)])
    # Dilated windows that miss the input: the dtype's lowest value and the
    # index of the first tap past the padding (outside the input).
    for dtype in (torch.float32, torch.int8, torch.uint8, torch.int64):
        x = (torch.arange(8).reshape(1, 1, 2, 2, 2) + 1).to(dtype)
        y, idx = A.max_pool3d_with_indices(x, [2], [1], [1], [3], False)
        w.case("aten::max_pool3d_with_indices.out", f"window_misses_input_{str(dtype)[6:]}",
               [T(x), IL([2]), IL([1]), IL([1]), IL([3]), B(False), OUT(y), OUT(idx)])

    # adaptive_avg_pool1d(self, output_size, *, out)
    specs = [("down", (2, 3, 10), [4], torch.float32), ("up", (1, 2, 3), [7], torch.float32),
             ("global", (2, 5), [1], torch.float32), ("empty_channels_2d", (0, 6), [3], torch.float32),
             ("empty_out", (2, 2, 5), [0], torch.float32), ("double", (2, 2, 7), [3], torch.float64),
             ("half", (1, 3, 9), [4], torch.float16), ("bfloat16", (2, 8), [5], torch.bfloat16)]
    for name, shape, size, dtype in specs:
        x = randn(gen, *shape, dtype=dtype)
        (y,), _ = oracle(lambda a: A.adaptive_avg_pool1d(a, size), [x], dtype)
        w.case("aten::adaptive_avg_pool1d.out", name, [T(x), IL(size), OUT(y)])

    # _adaptive_avg_pool3d(self, output_size, *, out)
    specs = [("down", (1, 2, 5, 7, 6), [2, 3, 4], torch.float32), ("up", (1, 1, 2, 3, 2), [3, 5, 4], torch.float32),
             ("global", (2, 3, 3, 4, 5), [1, 1, 1], torch.float32), ("unbatched", (2, 4, 4, 6), [3, 2, 4], torch.float32),
             ("unbatched_no_channels", (0, 3, 4, 2), [2, 2, 1], torch.float32),
             ("empty_out", (1, 1, 3, 3, 3), [0, 2, 2], torch.float32), ("double", (1, 2, 4, 5, 3), [3, 2, 2], torch.float64),
             ("half", (1, 2, 4, 4, 4), [2, 3, 3], torch.float16), ("bfloat16", (1, 2, 3, 5, 4), [2, 2, 3], torch.bfloat16)]
    for name, shape, size, dtype in specs:
        x = randn(gen, *shape, dtype=dtype)
        (y,), _ = oracle(lambda a: A._adaptive_avg_pool3d(a, size), [x], dtype)
        w.case("aten::_adaptive_avg_pool3d.out", name, [T(x), IL(size), OUT(y)])
    return w


def gen_pool_backward():
    w = Writer("pool_backward")
    gen = torch.Generator().manual_seed(202)

    # _adaptive_avg_pool2d_backward(grad_output, self, *, out)
    specs = [("down", (2, 3, 7, 5), (3, 2), torch.float32), ("up", (1, 2, 3, 2), (5, 4), torch.float32),
             ("global", (1, 2, 4, 4), (1, 1), torch.float32), ("unbatched", (3, 6, 5), (4, 3), torch.float32),
             ("unbatched_no_channels", (0, 4, 4), (2, 2), torch.float32),
             ("empty_batch", (0, 2, 4, 4), (2, 3), torch.float32), ("double", (1, 2, 5, 6), (2, 4), torch.float64),
             ("half", (1, 2, 6, 6), (4, 3), torch.float16), ("bfloat16", (1, 2, 5, 4), (3, 3), torch.bfloat16)]
    for name, shape, size, dtype in specs:
        x = randn(gen, *shape, dtype=dtype)
        go = randn(gen, *shape[:-2], *size, dtype=dtype)
        (y,), _ = oracle(lambda g, a: A._adaptive_avg_pool2d_backward(g, a), [go, x], dtype)
        w.case("aten::_adaptive_avg_pool2d_backward.out", name, [T(go), T(x), OUT(y)])

    # avg_pool2d_backward(grad_output, self, kernel, stride, padding, ceil, include_pad, divisor?, *, grad_input)
    specs = [
        ("basic", (1, 2, 4, 4), [2, 2], [], [0, 0], False, True, None, torch.float32),
        ("overlap_pad_include", (2, 2, 5, 6), [3, 3], [1, 2], [1, 1], False, True, None, torch.float32),
        ("overlap_pad_exclude", (2, 2, 5, 6), [3, 3], [1, 2], [1, 1], False, False, None, torch.float32),
        ("ceil_include", (1, 2, 5, 7), [3, 2], [2, 3], [1, 1], True, True, None, torch.float32),
        ("ceil_exclude", (1, 2, 5, 7), [3, 2], [2, 3], [1, 1], True, False, None, torch.float32),
        ("divisor", (1, 1, 4, 5), [2, 3], [1, 1], [1, 1], False, True, -3, torch.float32),
        ("unbatched", (3, 5, 4), [2], [1], [1], True, False, None, torch.float32),
        ("empty_batch", (0, 2, 4, 4), [2], [1], [0], False, True, None, torch.float32),
        ("double", (1, 2, 5, 5), [3, 2], [2, 1], [1, 1], True, True, None, torch.float64),
        ("half", (1, 2, 6, 6), [3, 3], [2, 2], [1, 1], False, False, None, torch.float16),
        ("bfloat16", (1, 2, 5, 4), [2, 2], [1, 1], [1, 0], False, True, None, torch.bfloat16),
        ("int64", (1, 2, 5, 5), [3, 3], [2, 1], [1, 1], True, True, None, torch.int64),
        ("int64_divisor", (1, 1, 4, 4), [2, 2], [1, 1], [0, 0], False, True, 3, torch.int64),
    ]
    for name, shape, k, s, p, ceil, inc, div, dtype in specs:
        fx = randn(gen, *shape)
        out_shape = A.avg_pool2d(fx, k, s, p, ceil, inc, div).shape
        if dtype.is_floating_point:
            x = fx.to(dtype)
            go = randn(gen, *out_shape, dtype=dtype)
        else:
            x = randint(gen, -9, 9, *shape)
            go = randint(gen, -40, 40, *out_shape)
        (y,), _ = oracle(lambda g, a: A.avg_pool2d_backward(g, a, k, s, p, ceil, inc, div), [go, x], dtype)
        w.case("aten::avg_pool2d_backward.grad_input", name,
               [T(go), T(x), IL(k), IL(s), IL(p), B(ceil), B(inc), NONE if div is None else I(div), OUT(y)])

    # max_pool2d_with_indices_backward(grad_output, self, kernel, stride, padding, dilation, ceil, indices,
    #                                  *, grad_input); overlapping windows make indices repeat.
    specs = [
        ("basic", (1, 2, 4, 4), [2, 2], [2, 2], [0, 0], [1, 1], False, torch.float32),
        ("overlap", (2, 2, 6, 5), [3, 3], [1, 1], [1, 1], [1, 1], False, torch.float32),
        ("ceil_dilation", (1, 2, 7, 7), [3, 2], [2, 2], [1, 1], [2, 2], True, torch.float32),
        ("unbatched", (3, 5, 5), [3], [2], [1], [1], True, torch.float32),
        ("empty_batch", (0, 2, 4, 4), [2], [1], [0], [1], False, torch.float32),
        ("double", (1, 2, 5, 5), [2, 2], [1, 1], [1, 1], [1, 1], False, torch.float64),
        ("half", (1, 2, 6, 6), [3, 3], [1, 1], [1, 1], [1, 1], False, torch.float16),
        ("bfloat16", (1, 2, 5, 6), [2, 3], [1, 2], [1, 1], [1, 1], False, torch.bfloat16),
    ]
    for name, shape, k, s, p, d, ceil, dtype in specs:
        x = randn(gen, *shape, dtype=dtype)
        _, idx = A.max_pool2d_with_indices(x, k, s, p, d, ceil)
        go = randn(gen, *idx.shape, dtype=dtype)
        # The kernel accumulates in the result dtype like PyTorch: native.
        y = A.max_pool2d_with_indices_backward(go, x, k, s, p, d, ceil, idx)
        w.case("aten::max_pool2d_with_indices_backward.grad_input", name,
               [T(go), T(x), IL(k), IL(s), IL(p), IL(d), B(ceil), T(idx), OUT(y)])
    # An index of -1 is skipped.
    x = randn(gen, 1, 1, 4, 4)
    idx = torch.tensor([[[[5, -1], [13, 15]]]])
    go = torch.tensor([[[[1.5, 2.0], [-3.0, 4.0]]]])
    y = A.max_pool2d_with_indices_backward(go, x, [2, 2], [2, 2], [0, 0], [1, 1], False, idx)
    w.case("aten::max_pool2d_with_indices_backward.grad_input", "skip_minus_one",
           [T(go), T(x), IL([2, 2]), IL([2, 2]), IL([0, 0]), IL([1, 1]), B(False), T(idx), OUT(y)])
    return w


# ---------------------------------------------------------------------------
# Normalization.


def gen_norm():
    w = Writer("norm")
    gen = torch.Generator().manual_seed(203)

    # _native_batch_norm_legit(input, weight?, bias?, running_mean, running_var, training, momentum, eps,
    #                          *, out, save_mean, save_invstd)
    specs = [
        ("train_affine", (4, 3, 5), True, True, True, 0.1, 1e-5, torch.float32, torch.float32),
        ("train_no_affine_4d", (2, 3, 3, 4), False, False, True, 0.3, 1e-3, torch.float32, torch.float32),
        ("train_rank2", (6, 4), True, False, True, 0.0, 1e-5, torch.float32, torch.float32),
        ("train_rank5", (2, 2, 2, 3, 2), False, True, True, 1.0, 1e-5, torch.float64, torch.float64),
        ("train_single_value", (1, 3, 1), True, True, True, 0.1, 1e-5, torch.float32, torch.float32),
        ("train_half_float_params", (3, 2, 4), True, True, True, 0.1, 1e-5, torch.float16, torch.float32),
        ("train_bfloat16", (3, 2, 4), True, True, True, 0.2, 1e-5, torch.bfloat16, torch.bfloat16),
        ("train_double", (3, 4, 2), True, True, True, 0.1, 1e-6, torch.float64, torch.float64),
        ("eval", (2, 3, 4), True, True, False, 0.1, 1e-5, torch.float32, torch.float32),
        ("eval_empty_batch", (0, 3, 4), True, True, False, 0.1, 1e-5, torch.float32, torch.float32),
        ("eval_half", (2, 3, 2, 2), True, False, False, 0.1, 1e-5, torch.float16, torch.float16),
    ]
    for name, shape, hw, hb, training, momentum, eps, dtype, pdtype in specs:
        c = shape[1]
        x = randn(gen, *shape, dtype=dtype, scale=2.0) + 0.5
        weight = randn(gen, c, dtype=pdtype) if hw else None
        bias = randn(gen, c, dtype=pdtype) if hb else None
        rm = randn(gen, c, dtype=pdtype, scale=0.3)
        rv = (torch.rand(c, generator=gen, dtype=torch.float64) + 0.5).to(pdtype)
        outs, after = oracle(
            lambda a, wt, b, m, v: A._native_batch_norm_legit(a, wt, b, m, v, training, momentum, eps),
            [x, weight, bias, rm, rv], dtype, inplace=(3, 4), loose=name == "train_single_value")
        w.case("aten::_native_batch_norm_legit.out", name,
               [T(x), T(weight), T(bias), INOUT(rm, after[0]), INOUT(rv, after[1]), B(training), D(momentum),
                D(eps), OUT(outs[0]), OUT(outs[1]), OUT(outs[2])])
    # .no_stats(input, weight?, bias?, training, momentum, eps, *, out, save_mean, save_invstd)
    specs = [("affine", (4, 3, 5), True, True, torch.float32, torch.float32),
             ("no_affine", (2, 2, 3, 3), False, False, torch.float32, torch.float32),
             ("half_float_weight", (3, 2, 4), True, False, torch.float16, torch.float32),
             ("half", (3, 2, 4), False, False, torch.float16, torch.float16),
             ("double", (5, 2), True, True, torch.float64, torch.float64)]
    for name, shape, hw, hb, dtype, pdtype in specs:
        c = shape[1]
        x = randn(gen, *shape, dtype=dtype, scale=1.5)
        weight = randn(gen, c, dtype=pdtype) if hw else None
        bias = randn(gen, c, dtype=pdtype) if hb else None
        outs, _ = oracle(lambda a, wt, b: A._native_batch_norm_legit.no_stats(a, wt, b, True, 0.1, 1e-5),
                         [x, weight, bias], dtype)
        w.case("aten::_native_batch_norm_legit.no_stats_out", name,
               [T(x), T(weight), T(bias), B(True), D(0.1), D(1e-5), OUT(outs[0]), OUT(outs[1]), OUT(outs[2])])

    # native_group_norm(input, weight?, bias?, N, C, HxW, group, eps, *, out0, out1, out2)
    specs = [
        ("affine", (2, 6, 5), (2, 6, 5, 3), True, True, 1e-5, torch.float32, torch.float32),
        ("no_affine_4d", (2, 4, 3, 3), (2, 4, 9, 2), False, False, 1e-5, torch.float32, torch.float32),
        ("rank2", (3, 4), (3, 4, 1, 4), True, False, 1e-3, torch.float32, torch.float32),
        ("one_group", (2, 3, 4), (2, 3, 4, 1), False, True, 1e-5, torch.float32, torch.float32),
        ("args_not_shape", (2, 4, 3), (3, 4, 2, 2), False, False, 1e-5, torch.float32, torch.float32),
        ("empty_batch", (0, 4, 3), (0, 4, 3, 2), True, True, 1e-5, torch.float32, torch.float32),
        ("empty_groups", (2, 4, 0), (2, 4, 0, 2), True, True, 1e-5, torch.float32, torch.float32),
        ("double", (2, 4, 5), (2, 4, 5, 2), True, True, 1e-6, torch.float64, torch.float64),
        ("half_float_params", (2, 4, 6), (2, 4, 6, 2), True, True, 1e-5, torch.float16, torch.float32),
        ("bfloat16", (2, 4, 3), (2, 4, 3, 4), True, True, 1e-5, torch.bfloat16, torch.bfloat16),
    ]
    for name, shape, (n, c, hxw, g), hw, hb, eps, dtype, pdtype in specs:
        x = randn(gen, *shape, dtype=dtype, scale=2.0) - 0.3
        weight = randn(gen, c, dtype=pdtype) if hw else None
        bias = randn(gen, c, dtype=pdtype) if hb else None
        outs, _ = oracle(lambda a, wt, b: A.native_group_norm(a, wt, b, n, c, hxw, g, eps), [x, weight, bias], dtype)
        w.case("aten::native_group_norm.out", name,
               [T(x), T(weight), T(bias), I(n), I(c), I(hxw), I(g), D(eps), OUT(outs[0]), OUT(outs[1]),
                OUT(outs[2])])

    # native_group_norm_backward(grad_out, input, mean, rstd, weight?, N, C, HxW, group, output_mask,
    #                            *, out0, out1, out2)
    specs = [
        ("all", (2, 6, 5), (2, 6, 5, 3), True, [True, True, True], torch.float32, torch.float32),
        ("input_only_no_weight", (2, 4, 3, 2), (2, 4, 6, 2), False, [True, False, False], torch.float32,
         torch.float32),
        ("weight_only", (3, 4, 2), (3, 4, 2, 4), True, [False, True, False], torch.float32, torch.float32),
        ("bias_only", (3, 4, 2), (3, 4, 2, 1), True, [False, False, True], torch.float32, torch.float32),
        ("params_only", (2, 4, 3), (2, 4, 3, 2), True, [False, True, True], torch.float32, torch.float32),
        ("empty_batch", (0, 4, 3), (0, 4, 3, 2), True, [True, True, True], torch.float32, torch.float32),
        ("double", (2, 4, 5), (2, 4, 5, 2), True, [True, True, True], torch.float64, torch.float64),
        ("half_float_stats", (2, 4, 6), (2, 4, 6, 2), True, [True, True, True], torch.float16, torch.float32),
        ("bfloat16", (2, 4, 3), (2, 4, 3, 2), True, [True, True, True], torch.bfloat16, torch.bfloat16),
    ]
    for name, shape, (n, c, hxw, g), hw, mask, dtype, pdtype in specs:
        x = randn(gen, *shape, dtype=dtype, scale=2.0)
        go = randn(gen, *shape, dtype=dtype)
        weight = randn(gen, c, dtype=pdtype) if hw else None
        x_p = x.to(pdtype) if dtype in F16 and pdtype == torch.float32 else x
        _, mean, rstd = A.native_group_norm(x_p, weight, None, n, c, hxw, g, 1e-5)
        mean, rstd = mean.to(pdtype), rstd.to(pdtype)
        outs, _ = oracle(lambda gg, a, m, r, wt: A.native_group_norm_backward(gg, a, m, r, wt, n, c, hxw, g, mask),
                         [go, x, mean, rstd, weight], dtype, loose=True)
        w.case("aten::native_group_norm_backward.out", name,
               [T(go), T(x), T(mean), T(rstd), T(weight), I(n), I(c), I(hxw), I(g), BL(mask),
                OUT(outs[0]), OUT(outs[1]), OUT(outs[2])])

    # native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight?, bias?, output_mask,
    #                            *, out0, out1, out2)
    specs = [
        ("all", (3, 5), [5], True, True, [True, True, True], torch.float32, torch.float32),
        ("two_dims", (2, 3, 4), [3, 4], True, True, [True, True, True], torch.float32, torch.float32),
        ("no_params", (4, 6), [6], False, False, [True, False, False], torch.float32, torch.float32),
        ("weight_grad_only", (2, 2, 5), [5], True, False, [False, True, False], torch.float32, torch.float32),
        ("bias_grad_only", (3, 4), [4], False, True, [False, False, True], torch.float32, torch.float32),
        ("rank1", (7,), [7], True, True, [True, True, True], torch.float32, torch.float32),
        ("no_rows", (0, 3), [3], True, True, [True, True, True], torch.float32, torch.float32),
        ("double", (3, 4), [4], True, True, [True, True, True], torch.float64, torch.float64),
        ("half_float_params", (2, 8), [8], True, True, [True, True, True], torch.float16, torch.float32),
        ("half", (2, 8), [8], True, True, [True, True, True], torch.float16, torch.float16),
        ("bfloat16", (3, 4), [4], True, False, [True, True, False], torch.bfloat16, torch.bfloat16),
    ]
    for name, shape, ns, hw, hb, mask, dtype, pdtype in specs:
        x = randn(gen, *shape, dtype=dtype, scale=2.0) + 0.4
        go = randn(gen, *shape, dtype=dtype)
        weight = randn(gen, *ns, dtype=pdtype) if hw else None
        bias = randn(gen, *ns, dtype=pdtype) if hb else None
        _, mean, rstd = A.native_layer_norm(x, ns, weight, bias, 1e-5)
        outs, _ = oracle(lambda gg, a, m, r, wt, b: A.native_layer_norm_backward(gg, a, ns, m, r, wt, b, mask),
                         [go, x, mean, rstd, weight, bias], dtype, loose=True)
        w.case("aten::native_layer_norm_backward.out", name,
               [T(go), T(x), IL(ns), T(mean), T(rstd), T(weight), T(bias), BL(mask),
                OUT(outs[0]), OUT(outs[1]), OUT(outs[2])])
    return w


# ---------------------------------------------------------------------------
# Convolution backward, embedding backward, col2im.


def gen_grad():
    w = Writer("grad")
    gen = torch.Generator().manual_seed(204)

    # convolution_backward(grad_output, input, weight, bias_sizes?, stride, padding, dilation, transposed,
    #                      output_padding, groups, output_mask, *, out0, out1, out2)
    specs = [
        # name, input, weight, stride, padding, dilation, transposed, out_pad, groups, mask, dtype
        ("basic_2d", (1, 2, 5, 5), (3, 2, 3, 3), [1], [0], [1], False, [0], 1, [True, True, True], torch.float32),
        ("stride_pad_dilation", (2, 3, 7, 6), (4, 3, 3, 2), [2, 1], [1, 2], [2, 1], False, [0, 0], 1,
         [True, True, True], torch.float32),
        ("groups", (1, 4, 5, 5), (6, 2, 3, 3), [1], [1], [1], False, [0], 2, [True, True, True], torch.float32),
        ("depthwise", (2, 3, 6, 6), (3, 1, 3, 3), [2, 2], [1, 1], [1, 1], False, [0, 0], 3, [True, True, True],
         torch.float32),
        ("conv1d", (2, 3, 9), (2, 3, 4), [2], [1], [2], False, [0], 1, [True, True, True], torch.float32),
        ("conv3d", (1, 2, 4, 4, 3), (2, 2, 2, 3, 2), [1, 2, 1], [1, 0, 1], [1, 1, 2], False, [0, 0, 0], 1,
         [True, True, True], torch.float32),
        ("transposed", (1, 2, 4, 3), (2, 3, 3, 3), [2, 2], [1, 0], [1, 1], True, [1, 0], 1, [True, True, True],
         torch.float32),
        ("transposed_groups_dilation", (2, 4, 3, 3), (4, 2, 2, 3), [1, 3], [0, 1], [2, 1], True, [1, 2], 2,
         [True, True, True], torch.float32),
        ("transposed_1d", (1, 2, 5), (2, 1, 3), [3], [1], [1], True, [2], 1, [True, True, True], torch.float32),
        ("transposed_3d", (1, 2, 2, 3, 2), (2, 2, 2, 2, 3), [2, 1, 2], [0, 1, 1], [1, 1, 1], True, [1, 0, 0], 1,
         [True, True, True], torch.float32),
        ("input_grad_only", (1, 2, 5, 5), (3, 2, 3, 3), [2], [1], [1], False, [0], 1, [True, False, False],
         torch.float32),
        ("weight_grad_only", (2, 2, 5, 4), (3, 2, 2, 2), [1], [0], [1], False, [0], 1, [False, True, False],
         torch.float32),
        ("bias_grad_only", (2, 2, 4, 4), (3, 2, 3, 3), [1], [1], [1], False, [0], 1, [False, False, True],
         torch.float32),
        ("empty_batch", (0, 2, 5, 5), (3, 2, 3, 3), [1], [0], [1], False, [0], 1, [True, True, True], torch.float32),
        ("double", (1, 2, 4, 4), (2, 2, 2, 2), [1, 1], [1, 1], [1, 1], False, [0, 0], 1, [True, True, True],
         torch.float64),
        ("half", (1, 2, 4, 4), (2, 2, 2, 2), [1, 1], [0, 0], [1, 1], False, [0, 0], 1, [True, True, True],
         torch.float16),
        ("bfloat16_transposed", (1, 2, 3, 3), (2, 2, 2, 2), [2, 2], [0, 0], [1, 1], True, [1, 1], 1,
         [True, True, True], torch.bfloat16),
    ]
    for name, ishape, wshape, stride, padding, dilation, tr, op, groups, mask, dtype in specs:
        x = randn(gen, *ishape, dtype=dtype)
        weight = randn(gen, *wshape, dtype=dtype, scale=0.5)
        out_ch = wshape[1] * groups if tr else wshape[0]
        y = A.convolution(x.double(), weight.double(), None, stride, padding, dilation, tr, op, groups)
        go = randn(gen, *y.shape, dtype=dtype)
        outs, _ = oracle(lambda g, a, wt: A.convolution_backward(g, a, wt, [out_ch], stride, padding, dilation, tr,
                                                                 op, groups, mask),
                         [go, x, weight], dtype, loose=True)
        outs = [o if m else None for o, m in zip(outs, mask)]
        w.case("aten::convolution_backward.out", name,
               [T(go), T(x), T(weight), IL([out_ch]), IL(stride), IL(padding), IL(dilation), B(tr), IL(op),
                I(groups), BL(mask), OUT(outs[0]), OUT(outs[1]), OUT(outs[2])])

    # embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq, *, out)
    specs = [
        ("basic", (5, 3), [1, 0, 3, 1, 1], 4, -1, False, torch.float32),
        ("padding_idx", (6, 2), [2, 0, 2, 3, 2, 0], 5, 2, False, torch.float32),
        ("scale_by_freq", (6, 3), [2, 0, 2, 3, 2, 0], 5, -1, True, torch.float32),
        ("scale_by_freq_padding", (6, 3), [2, 0, 2, 3, 2, 0], 4, 0, True, torch.float32),
        ("indices_2d", (2, 3, 4), [[0, 1, 2], [2, 2, 0]], 3, -1, False, torch.float32),
        ("indices_int32", (4, 2), [3, 3, 0, 1], 4, 1, True, torch.float32),
        ("out_of_range_skipped", (4, 2), [0, 7, -1, 2], 3, -1, False, torch.float32),
        ("no_indices", (0, 4), [], 3, -1, False, torch.float32),
        ("zero_dim_indices", (5,), 2, 3, -1, False, torch.float32),
        ("double", (5, 3), [1, 0, 3, 1, 1], 4, -1, True, torch.float64),
        ("half", (5, 3), [1, 0, 3, 1, 1], 4, 0, False, torch.float16),
        ("bfloat16", (5, 3), [1, 0, 3, 1, 1], 4, -1, True, torch.bfloat16),
        ("complex64", (4, 2), [1, 0, 1, 1], 3, -1, True, torch.complex64),
        ("complex128", (4, 2), [2, 0, 2, 1], 3, 1, False, torch.complex128),
        ("bool", (5, 2), [1, 0, 3, 1, 1], 4, -1, False, torch.bool),
        ("bool_scale_by_freq", (5, 2), [1, 0, 3, 1, 1], 4, -1, True, torch.bool),
        ("uint8_wraps", (4, 2), [1, 1, 1, 0], 2, -1, False, torch.uint8),
        ("int8", (5, 2), [1, 0, 3, 1, 1], 4, -1, False, torch.int8),
        ("int16_scale_by_freq", (5, 2), [1, 0, 3, 1, 2], 4, -1, True, torch.int16),
        ("int32", (5, 2), [1, 0, 3, 1, 1], 4, 3, False, torch.int32),
        ("int64_scale_by_freq", (5, 2), [1, 0, 3, 1, 1], 4, -1, True, torch.int64),
    ]
    for name, gshape, indices, num_weights, padding_idx, freq, dtype in specs:
        idx = torch.tensor(indices, dtype=torch.int32 if "int32" == name.split("_")[-1] else torch.int64)
        if dtype.is_floating_point:
            g = randn(gen, *gshape, dtype=dtype)
        elif dtype.is_complex:
            g = torch.complex(randn(gen, *gshape, dtype=torch.float64),
                              randn(gen, *gshape, dtype=torch.float64)).to(dtype)
        elif dtype == torch.bool:
            g = randint(gen, 0, 2, *gshape, dtype=torch.bool)
        elif dtype == torch.uint8:
            g = randint(gen, 100, 255, *gshape, dtype=dtype)
        else:
            g = randint(gen, -50, 50, *gshape, dtype=dtype)
        (y,), _ = oracle(lambda gg: A.embedding_dense_backward(gg, idx, num_weights, padding_idx, freq), [g], dtype,
                         loose=True)
        w.case("aten::embedding_dense_backward.out", name,
               [T(g), T(idx), I(num_weights), I(padding_idx), B(freq), OUT(y)])

    # col2im(self, output_size, kernel_size, dilation, padding, stride, *, out)
    specs = [
        ("basic", (1, 2, 3), (3, 4), (2, 2), (1, 1), (0, 0), (1, 1), torch.float32),
        ("stride_pad", (2, 3, 2), (5, 4), (2, 3), (1, 1), (1, 0), (2, 1), torch.float32),
        ("dilation", (1, 1, 2), (6, 7), (2, 2), (2, 3), (1, 1), (2, 2), torch.float32),
        ("unbatched", (None, 2, 2), (4, 4), (3, 2), (1, 1), (1, 0), (1, 2), torch.float32),
        ("empty_batch", (0, 2, 3), (3, 4), (2, 2), (1, 1), (0, 0), (1, 1), torch.float32),
        ("double", (1, 2, 2), (4, 5), (2, 3), (1, 1), (1, 1), (2, 2), torch.float64),
        ("half", (1, 2, 3), (4, 4), (3, 3), (1, 1), (1, 1), (1, 1), torch.float16),
        ("bfloat16", (1, 1, 4), (3, 3), (2, 2), (1, 1), (0, 0), (1, 1), torch.bfloat16),
        ("complex64", (1, 2, 2), (3, 4), (2, 2), (1, 1), (0, 1), (1, 1), torch.complex64),
        ("complex128", (1, 1, 2), (4, 4), (2, 2), (1, 2), (1, 0), (2, 2), torch.complex128),
        ("bool", (1, 2, 2), (3, 4), (2, 2), (1, 1), (0, 0), (1, 1), torch.bool),
    ]
    for name, (n, c, _), size, k, d, p, s, dtype in specs:
        blocks = [(size[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(2)]
        shape = ([n] if n is not None else []) + [c * k[0] * k[1], blocks[0] * blocks[1]]
        if dtype.is_floating_point:
            x = randn(gen, *shape, dtype=dtype)
        elif dtype.is_complex:
            x = torch.complex(randn(gen, *shape, dtype=torch.float64), randn(gen, *shape, dtype=torch.float64)).to(dtype)
        else:
            x = randint(gen, 0, 5, *shape) == 0
        (y,), _ = oracle(lambda a: A.col2im(a, list(size), list(k), list(d), list(p), list(s)), [x], dtype)
        w.case("aten::col2im.out", name, [T(x), IL(size), IL(k), IL(d), IL(p), IL(s), OUT(y)])
    return w


# ---------------------------------------------------------------------------
# Sampling: grid_sampler_2d, upsample_bilinear2d, upsample_nearest2d.


def gen_sample():
    w = Writer("sample")
    gen = torch.Generator().manual_seed(205)

    # grid_sampler_2d(input, grid, interpolation_mode, padding_mode, align_corners, *, out)
    x = randn(gen, 2, 3, 4, 5)
    grid = randn(gen, 2, 3, 4, 2, scale=0.8)
    grid[0, 0, 0] = torch.tensor([1.7, -1.4])  # outside, both axes
    grid[0, 0, 1] = torch.tensor([-3.2, 0.4])
    grid[1, 2, 3] = torch.tensor([5.1, -6.3])   # folded several times by reflection
    grid[1, 1, 1] = torch.tensor([1.0, -1.0])   # the corners exactly
    grid[1, 1, 2] = torch.tensor([0.25, 0.5])   # ties for nearest (W = 5, H = 4)
    for mode in range(3):
        for padding in range(3):
            for align in (False, True):
                name = f"{['bilinear', 'nearest', 'bicubic'][mode]}_{['zeros', 'border', 'reflection'][padding]}" \
                       f"{'_align' if align else ''}"
                y = A.grid_sampler_2d(x, grid, mode, padding, align)
                w.case("aten::grid_sampler_2d.out", name, [T(x), T(grid), I(mode), I(padding), B(align), OUT(y)])
    for dtype in (torch.float64, torch.float16, torch.bfloat16):
        xd, gd = x[:1].to(dtype), grid[:1].to(dtype)
        for mode, padding, align in ((0, 0, False), (2, 2, True)):
            (y,), _ = oracle(lambda a, g: A.grid_sampler_2d(a, g, mode, padding, align), [xd, gd], dtype)
            w.case("aten::grid_sampler_2d.out", f"{str(dtype)[6:]}_mode{mode}_padding{padding}",
                   [T(xd), T(gd), I(mode), I(padding), B(align), OUT(y)])
    x1 = randn(gen, 1, 1, 1, 1)
    g1 = randn(gen, 1, 2, 2, 2)
    for padding in range(3):
        y = A.grid_sampler_2d(x1, g1, 0, padding, True)
        w.case("aten::grid_sampler_2d.out", f"single_pixel_padding{padding}",
               [T(x1), T(g1), I(0), I(padding), B(True), OUT(y)])
    # NaN and infinite locations: NaN for bilinear and bicubic with zeros
    # padding, 0 for nearest; border and reflection clip NaN to 0.
    nan, inf = float("nan"), float("inf")
    xs = torch.arange(12.0).reshape(1, 1, 3, 4) + 1
    gs = torch.tensor([[[[nan, 0.0], [0.0, nan], [inf, 0.0], [-inf, 0.0], [0.2, 0.3], [5.0, -7.0]]]])
    for mode in range(3):
        for padding in range(3):
            y = A.grid_sampler_2d(xs, gs, mode, padding, False)
            w.case("aten::grid_sampler_2d.out", f"non_finite_mode{mode}_padding{padding}",
                   [T(xs), T(gs), I(mode), I(padding), B(False), OUT(y)])
    x0, g0 = randn(gen, 0, 2, 3, 3), randn(gen, 0, 2, 2, 2)
    w.case("aten::grid_sampler_2d.out", "empty_batch",
           [T(x0), T(g0), I(0), I(0), B(False), OUT(A.grid_sampler_2d(x0, g0, 0, 0, False))])

    # upsample_bilinear2d.vec(input, output_size?, align_corners, scale_factors?, *, out)
    specs = [
        ("up", (1, 2, 3, 4), [5, 7], None, False, torch.float32),
        ("up_align", (1, 2, 3, 4), [5, 7], None, True, torch.float32),
        ("down", (2, 1, 7, 8), [3, 5], None, False, torch.float32),
        ("down_align", (2, 1, 7, 8), [3, 5], None, True, torch.float32),
        ("to_one_align", (1, 1, 4, 5), [1, 1], None, True, torch.float32),
        ("same_height", (1, 2, 4, 3), [4, 6], None, False, torch.float32),
        ("scale", (1, 2, 3, 5), None, [1.7, 2.3], False, torch.float32),
        ("scale_down", (1, 1, 9, 7), None, [0.45, 0.6], False, torch.float32),
        ("scale_same_size", (1, 1, 3, 4), None, [1.3, 1.1], False, torch.float32),
        ("scale_align", (1, 1, 3, 5), None, [2.5, 1.5], True, torch.float32),
        ("empty_batch", (0, 2, 3, 3), [4, 4], None, False, torch.float32),
        ("double", (1, 2, 4, 3), [6, 5], None, False, torch.float64),
        ("half", (1, 2, 4, 3), [7, 5], None, True, torch.float16),
        ("bfloat16", (1, 2, 5, 4), [3, 6], None, False, torch.bfloat16),
        ("uint8_up", (1, 3, 4, 5), [7, 9], None, False, torch.uint8),
        ("uint8_down_align", (1, 3, 7, 9), [4, 5], None, True, torch.uint8),
        ("uint8_many_channels", (2, 5, 5, 4), [3, 7], None, False, torch.uint8),
        ("uint8_scale", (1, 2, 4, 4), None, [1.6, 0.7], False, torch.uint8),
        ("uint8_same_width", (1, 3, 3, 4), [6, 4], None, True, torch.uint8),
    ]
    for name, shape, size, scales, align, dtype in specs:
        if dtype == torch.uint8:
            x = randint(gen, 0, 256, *shape, dtype=dtype)
        else:
            x = randn(gen, *shape, dtype=dtype)
        native = dtype in (torch.uint8, torch.float32)
        (y,), _ = oracle(lambda a: A.upsample_bilinear2d.vec(a, size, align, scales), [x], dtype,
                         native_only=native)
        w.case("aten::upsample_bilinear2d.vec_out", name,
               [T(x), NONE if size is None else IL(size), B(align), NONE if scales is None else DL(scales), OUT(y)])

    # upsample_nearest2d.vec(input, output_size?, scale_factors?, *, out)
    specs = [
        ("up", (1, 2, 3, 4), [5, 7], None, torch.float32),
        ("down", (2, 1, 7, 8), [3, 5], None, torch.float32),
        ("double_size", (1, 2, 3, 4), [6, 8], None, torch.float32),
        ("scale", (1, 2, 3, 5), None, [1.7, 2.3], torch.float32),
        ("scale_down", (1, 1, 9, 7), None, [0.45, 0.6], torch.float32),
        ("scale_same_size", (1, 1, 3, 10), None, [1.3, 1.05], torch.float32),
        ("scale_double_size", (1, 1, 3, 10), None, [2.1, 2.05], torch.float32),
        ("empty_batch", (0, 2, 3, 3), [4, 4], None, torch.float32),
        ("double", (1, 2, 4, 3), [6, 5], None, torch.float64),
        ("half", (1, 2, 4, 3), [7, 5], None, torch.float16),
        ("bfloat16", (1, 2, 5, 4), [3, 6], None, torch.bfloat16),
        ("uint8", (1, 3, 4, 5), [7, 9], None, torch.uint8),
    ]
    for name, shape, size, scales, dtype in specs:
        if dtype == torch.uint8:
            x = randint(gen, 0, 256, *shape, dtype=dtype)
        else:
            x = randn(gen, *shape, dtype=dtype)
        y = A.upsample_nearest2d.vec(x, size, scales)
        w.case("aten::upsample_nearest2d.vec_out", name,
               [T(x), NONE if size is None else IL(size), NONE if scales is None else DL(scales), OUT(y)])
    return w


# ---------------------------------------------------------------------------
# FFT.


def gen_fft():
    w = Writer("fft")
    gen = torch.Generator().manual_seed(206)

    # _fft_r2c(self, dim, normalization, onesided, *, out)
    specs = [
        ("1d_onesided", (3, 8), [1], 0, True, torch.float32),
        ("1d_odd_full", (2, 7), [1], 1, False, torch.float32),
        ("1d_first_dim", (5, 3), [0], 2, True, torch.float32),
        ("2d", (4, 6), [0, 1], 0, True, torch.float32),
        ("2d_reversed", (4, 5), [1, 0], 1, True, torch.float32),
        ("2d_full", (3, 4), [0, 1], 2, False, torch.float32),
        ("3d_middle", (2, 3, 5, 2), [1, 2], 0, True, torch.float32),
        ("length_one", (3, 1), [1], 1, True, torch.float32),
        ("double", (2, 9), [1], 2, True, torch.float64),
        ("double_3d", (3, 4, 5), [0, 1, 2], 1, False, torch.float64),
    ]
    for name, shape, dims, norm, onesided, dtype in specs:
        x = randn(gen, *shape, dtype=dtype)
        (y,), _ = oracle(lambda a: A._fft_r2c(a, dims, norm, onesided), [x], dtype)
        w.case("aten::_fft_r2c.out", name, [T(x), IL(dims), I(norm), B(onesided), OUT(y)])

    # _fft_c2r(self, dim, normalization, last_dim_size, *, out)
    specs = [
        ("1d_even", (3, 5), [1], 0, 8, torch.complex64),
        ("1d_odd", (2, 4), [1], 2, 7, torch.complex64),
        ("1d_full_length_input", (2, 6), [1], 1, 6, torch.complex64),
        ("1d_first_dim", (4, 3), [0], 2, 6, torch.complex64),
        ("2d", (4, 4), [0, 1], 2, 6, torch.complex64),
        ("2d_reversed", (3, 5), [1, 0], 1, 4, torch.complex64),
        ("3d_middle", (2, 3, 3, 2), [1, 2], 0, 5, torch.complex64),
        ("length_one", (3, 1), [1], 1, 1, torch.complex64),
        ("double", (2, 5), [1], 2, 9, torch.complex128),
        ("double_3d", (3, 4, 3), [0, 1, 2], 1, 4, torch.complex128),
    ]
    for name, shape, dims, norm, n, dtype in specs:
        # Not Hermitian: the imaginary parts of the zero (and Nyquist)
        # frequencies must be ignored.
        real = randn(gen, *shape, dtype=torch.float64)
        imag = randn(gen, *shape, dtype=torch.float64)
        x = torch.complex(real, imag).to(dtype)
        (y,), _ = oracle(lambda a: A._fft_c2r(a, dims, norm, n), [x], dtype)
        w.case("aten::_fft_c2r.out", name, [T(x), IL(dims), I(norm), I(n), OUT(y)])
    return w


# ---------------------------------------------------------------------------
# Dtype acceptance: every op on each of the 15 dtypes ETR tests, with small
# exact inputs; PyTorch's verdict (a result, or "not implemented for" and
# its kin) becomes the expected value or NotSupported.

SWEEP_DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16,
                torch.bfloat16, torch.float32, torch.float64, torch.complex64, torch.complex128, torch.uint16,
                torch.uint32, torch.uint64]


def small(d, *shape):
    n = 1
    for x in shape:
        n *= x
    return (torch.arange(1, 1 + n).reshape(shape) % 3).to(d)


def sweep_builders():
    """op -> builder(d) -> (fn, inputs, args_fn, inplace): fn(*inputs) runs
    PyTorch; args_fn(inputs, outs, after) gives the kernel's arguments."""
    b = {}

    def simple(op, fn, shapes, extra, out_count=1, index_arg=None):
        def builder(d):
            inputs = [small(d, *shape) for shape in shapes]

            def args_fn(ins, outs, after):
                head = [T(t) for t in ins]
                if index_arg is not None:
                    head.insert(index_arg[0], T(index_arg[1]))
                return head + extra + [OUT(o) for o in outs[:out_count]]
            return fn, inputs, args_fn, ()
        b[op] = builder

    simple("aten::avg_pool1d.out", lambda x: A.avg_pool1d(x, [2], [1], [0], False, True), [(1, 2, 5)],
           [IL([2]), IL([1]), IL([0]), B(False), B(True)])
    simple("aten::avg_pool3d.out", lambda x: A.avg_pool3d(x, [2], [1], [0], False, True, None), [(1, 2, 3, 3, 3)],
           [IL([2]), IL([1]), IL([0]), B(False), B(True), NONE])
    simple("aten::max_pool3d_with_indices.out", lambda x: A.max_pool3d_with_indices(x, [2], [1], [0], [1], False),
           [(1, 2, 3, 3, 3)], [IL([2]), IL([1]), IL([0]), IL([1]), B(False)], out_count=2)
    simple("aten::adaptive_avg_pool1d.out", lambda x: A.adaptive_avg_pool1d(x, [3]), [(1, 2, 5)], [IL([3])])
    simple("aten::_adaptive_avg_pool3d.out", lambda x: A._adaptive_avg_pool3d(x, [2, 2, 2]), [(1, 2, 3, 3, 3)],
           [IL([2, 2, 2])])
    simple("aten::_adaptive_avg_pool2d_backward.out", lambda g, x: A._adaptive_avg_pool2d_backward(g, x),
           [(1, 2, 2, 2), (1, 2, 3, 3)], [])
    simple("aten::avg_pool2d_backward.grad_input",
           lambda g, x: A.avg_pool2d_backward(g, x, [2, 2], [1, 1], [0, 0], False, True, None),
           [(1, 2, 2, 2), (1, 2, 3, 3)], [IL([2, 2]), IL([1, 1]), IL([0, 0]), B(False), B(True), NONE])
    idx = A.max_pool2d_with_indices(small(torch.float32, 1, 2, 3, 3), [2, 2], [1, 1])[1]
    b_idx = [IL([2, 2]), IL([1, 1]), IL([0, 0]), IL([1, 1]), B(False), T(idx)]
    simple("aten::max_pool2d_with_indices_backward.grad_input",
           lambda g, x: A.max_pool2d_with_indices_backward(g, x, [2, 2], [1, 1], [0, 0], [1, 1], False, idx),
           [(1, 2, 2, 2), (1, 2, 3, 3)], b_idx)
    simple("aten::_native_batch_norm_legit.no_stats_out",
           lambda x, w_: A._native_batch_norm_legit.no_stats(x, w_, None, True, 0.1, 1e-5), [(2, 2, 3), (2,)],
           [NONE, B(True), D(0.1), D(1e-5)], out_count=3)
    simple("aten::native_group_norm.out", lambda x, w_: A.native_group_norm(x, w_, None, 2, 4, 3, 2, 1e-5),
           [(2, 4, 3), (4,)], [NONE, I(2), I(4), I(3), I(2), D(1e-5)], out_count=3)
    mask = [True, True, True]
    simple("aten::native_group_norm_backward.out",
           lambda g, x, m, r, w_: A.native_group_norm_backward(g, x, m, r, w_, 2, 4, 3, 2, mask),
           [(2, 4, 3), (2, 4, 3), (2, 2), (2, 2), (4,)], [I(2), I(4), I(3), I(2), BL(mask)], out_count=3)

    def layer_norm_backward(d):
        inputs = [small(d, 2, 3), small(d, 2, 3), small(d, 2, 1), small(d, 2, 1), small(d, 3), small(d, 3)]

        def args_fn(ins, outs, after):
            return [T(ins[0]), T(ins[1]), IL([3])] + [T(t) for t in ins[2:]] + [BL(mask)] + [OUT(o) for o in outs]
        return (lambda g, x, m, r, w_, bb: A.native_layer_norm_backward(g, x, [3], m, r, w_, bb, mask), inputs,
                args_fn, ())
    b["aten::native_layer_norm_backward.out"] = layer_norm_backward

    def batch_norm(d):
        inputs = [small(d, 2, 2, 3), small(d, 2), small(d, 2), (small(torch.int64, 2) + 1).to(d)]

        def args_fn(ins, outs, after):
            return [T(ins[0]), T(ins[1]), NONE, INOUT(ins[2], after[0]), INOUT(ins[3], after[1]), B(True), D(0.1),
                    D(1e-5)] + [OUT(o) for o in outs]
        return (lambda x, w_, m, v: A._native_batch_norm_legit(x, w_, None, m, v, True, 0.1, 1e-5), inputs, args_fn,
                (2, 3))
    b["aten::_native_batch_norm_legit.out"] = batch_norm

    def conv_backward(d):
        inputs = [small(d, 1, 2, 2, 2), small(d, 1, 2, 3, 3), small(d, 2, 2, 2, 2)]

        def args_fn(ins, outs, after):
            return [T(t) for t in ins] + [IL([2]), IL([1]), IL([0]), IL([1]), B(False), IL([0]), I(1), BL(mask)] + \
                [OUT(o) for o in outs]
        return (lambda g, x, w_: A.convolution_backward(g, x, w_, [2], [1], [0], [1], False, [0], 1, mask), inputs,
                args_fn, ())
    b["aten::convolution_backward.out"] = conv_backward

    emb_idx = torch.tensor([0, 2, 0])
    simple("aten::embedding_dense_backward.out", lambda g: A.embedding_dense_backward(g, emb_idx, 3, -1, False),
           [(3, 2)], [I(3), I(-1), B(False)], index_arg=(1, emb_idx))
    simple("aten::col2im.out", lambda x: A.col2im(x, [3, 3], [2, 2], [1, 1], [0, 0], [1, 1]), [(1, 4, 4)],
           [IL([3, 3]), IL([2, 2]), IL([1, 1]), IL([0, 0]), IL([1, 1])])

    def grid_sampler(d):
        grid = torch.tensor([[[[0.5, -0.25], [-1.0, 0.75]]]])
        grid = grid.to(d) if d.is_floating_point else small(torch.int64, 1, 1, 2, 2).to(d)
        inputs = [small(d, 1, 2, 3, 3), grid]

        def args_fn(ins, outs, after):
            return [T(ins[0]), T(ins[1]), I(0), I(0), B(False), OUT(outs[0])]
        return lambda x, g: A.grid_sampler_2d(x, g, 0, 0, False), inputs, args_fn, ()
    b["aten::grid_sampler_2d.out"] = grid_sampler

    simple("aten::upsample_bilinear2d.vec_out", lambda x: A.upsample_bilinear2d.vec(x, [4, 5], False, None),
           [(1, 2, 3, 3)], [IL([4, 5]), B(False), NONE])
    simple("aten::upsample_nearest2d.vec_out", lambda x: A.upsample_nearest2d.vec(x, [4, 5], None), [(1, 2, 3, 3)],
           [IL([4, 5]), NONE])
    simple("aten::_fft_r2c.out", lambda x: A._fft_r2c(x, [1], 0, True), [(2, 4)], [IL([1]), I(0), B(True)])
    simple("aten::_fft_c2r.out", lambda x: A._fft_c2r(x, [1], 0, 4), [(2, 3)], [IL([1]), I(0), I(4)])
    return b


def gen_dtypes():
    w = Writer("dtypes")
    for op, builder in sweep_builders().items():
        for d in SWEEP_DTYPES:
            try:
                fn, inputs, args_fn, inplace = builder(d)
                outs, after = oracle(fn, inputs, d, loose=True, inplace=inplace)
            except (RuntimeError, NotImplementedError) as e:
                message = str(e).splitlines()[0]
                assert any(m in message for m in ("not implemented for", "Only supports", "doesn't support")), \
                    (op, d, message)
                # The kernel must refuse the dtype whatever its outs hold.
                inputs = [small(torch.int64, *t.shape).to(d) if isinstance(t, torch.Tensor) else t
                          for t in builder(torch.float32)[1]]
                args = builder(torch.float32)[2](inputs, [torch.zeros(1, dtype=d)] * 3, inputs[-2:])
                w.case(op, str(d)[6:], args, status="ETR_ERR_NOT_SUPPORTED")
                continue
            w.case(op, str(d)[6:], args_fn(inputs, outs, after))
    return w


# ---------------------------------------------------------------------------
# --stress: random calls for a local soak run.


def stress(group, w, count):
    rng = random.Random(9000 + sum(map(ord, group)))
    gen = torch.Generator().manual_seed(rng.randrange(1 << 30))
    fns = STRESS.get(group, [])
    for fn in fns:
        made = 0
        for attempt in range(count * 20):
            if made >= count:
                break
            try:
                call = fn(rng, gen)
            except (RuntimeError, IndexError, ValueError):
                continue  # PyTorch rejects the draw
            if call is None:
                continue
            op, args = call
            w.case(op, f"stress_{made}", args)
            made += 1


def pick(rng, items):
    return items[rng.randrange(len(items))]


def values_for(gen, shape, dtype):
    if dtype.is_floating_point:
        return randn(gen, *shape, dtype=dtype)
    if dtype == torch.uint8:
        return randint(gen, 0, 256, *shape, dtype=dtype)
    return randint(gen, -30, 30, *shape, dtype=dtype)


def stress_avg_pool(rng, gen):
    spatial = pick(rng, [1, 3])
    batched = rng.random() < 0.7
    shape = ([rng.randint(1, 2)] if batched else []) + [rng.randint(1, 3)] + \
        [rng.randint(1, 7) for _ in range(spatial)]
    k = [rng.randint(1, 4) for _ in range(spatial)]
    s = [rng.randint(1, 3) for _ in range(spatial)] if rng.random() < 0.8 else []
    p = [rng.randint(0, kk // 2) for kk in k]
    ceil, inc = rng.random() < 0.5, rng.random() < 0.5
    if spatial == 1:
        dtype = pick(rng, [torch.float32, torch.float64, torch.int64, torch.float16])
        x = values_for(gen, shape, dtype)
        (y,), _ = oracle(lambda a: A.avg_pool1d(a, k, s, p, ceil, inc), [x], dtype)
        return "aten::avg_pool1d.out", [T(x), IL(k), IL(s), IL(p), B(ceil), B(inc), OUT(y)]
    dtype = pick(rng, [torch.float32, torch.float64, torch.int64])
    div = pick(rng, [None, None, rng.randint(1, 9), -rng.randint(1, 9)])
    x = values_for(gen, shape, dtype)
    (y,), _ = oracle(lambda a: A.avg_pool3d(a, k, s, p, ceil, inc, div), [x], dtype)
    return "aten::avg_pool3d.out", [T(x), IL(k), IL(s), IL(p), B(ceil), B(inc), NONE if div is None else I(div),
                                    OUT(y)]


def stress_max_pool3d(rng, gen):
    shape = [rng.randint(1, 2), rng.randint(1, 2)] + [rng.randint(1, 7) for _ in range(3)]
    k = [rng.randint(1, 3) for _ in range(3)]
    s = [rng.randint(1, 3) for _ in range(3)]
    p = [rng.randint(0, kk // 2) for kk in k]
    d = [rng.randint(1, 3) for _ in range(3)]
    ceil = rng.random() < 0.5
    dtype = pick(rng, [torch.float32, torch.float64, torch.int8, torch.uint8, torch.int64])
    x = values_for(gen, shape, dtype) if dtype.is_floating_point else randint(gen, -3, 3, *shape).to(dtype)
    y, idx = A.max_pool3d_with_indices(x, k, s, p, d, ceil)
    return "aten::max_pool3d_with_indices.out", [T(x), IL(k), IL(s), IL(p), IL(d), B(ceil), OUT(y), OUT(idx)]


def stress_adaptive(rng, gen):
    dtype = pick(rng, [torch.float32, torch.float64, torch.float16])
    if rng.random() < 0.5:
        shape = [rng.randint(1, 3), rng.randint(1, 13)]
        if rng.random() < 0.5:
            shape = [rng.randint(1, 2)] + shape
        size = [rng.randint(0, 15)]
        x = randn(gen, *shape, dtype=dtype)
        (y,), _ = oracle(lambda a: A.adaptive_avg_pool1d(a, size), [x], dtype)
        return "aten::adaptive_avg_pool1d.out", [T(x), IL(size), OUT(y)]
    shape = [rng.randint(1, 2), rng.randint(1, 2)] + [rng.randint(1, 7) for _ in range(3)]
    size = [rng.randint(0, 9) for _ in range(3)]
    x = randn(gen, *shape, dtype=dtype)
    (y,), _ = oracle(lambda a: A._adaptive_avg_pool3d(a, size), [x], dtype)
    return "aten::_adaptive_avg_pool3d.out", [T(x), IL(size), OUT(y)]


def stress_pool_backward(rng, gen):
    dtype = pick(rng, [torch.float32, torch.float64])
    shape = [rng.randint(1, 2), rng.randint(1, 2), rng.randint(1, 8), rng.randint(1, 8)]
    which = rng.randrange(3)
    x = randn(gen, *shape, dtype=dtype)
    if which == 0:
        size = [rng.randint(1, 10), rng.randint(1, 10)]
        go = randn(gen, *shape[:2], *size, dtype=dtype)
        (y,), _ = oracle(lambda g, a: A._adaptive_avg_pool2d_backward(g, a), [go, x], dtype)
        return "aten::_adaptive_avg_pool2d_backward.out", [T(go), T(x), OUT(y)]
    k = [rng.randint(1, 4), rng.randint(1, 4)]
    s = [rng.randint(1, 3), rng.randint(1, 3)]
    p = [rng.randint(0, kk // 2) for kk in k]
    ceil = rng.random() < 0.5
    if which == 1:
        inc = rng.random() < 0.5
        div = pick(rng, [None, None, rng.randint(1, 7)])
        if rng.random() < 0.3:
            dtype = torch.int64
            x = randint(gen, -9, 9, *shape)
        go = values_for(gen, A.avg_pool2d(x.double(), k, s, p, ceil, inc, div).shape, dtype)
        (y,), _ = oracle(lambda g, a: A.avg_pool2d_backward(g, a, k, s, p, ceil, inc, div), [go, x], dtype)
        return "aten::avg_pool2d_backward.grad_input", [T(go), T(x), IL(k), IL(s), IL(p), B(ceil), B(inc),
                                                         NONE if div is None else I(div), OUT(y)]
    d = [rng.randint(1, 3), rng.randint(1, 3)]
    _, idx = A.max_pool2d_with_indices(x, k, s, p, d, ceil)
    if (idx >= shape[2] * shape[3]).any():
        return None  # a dilated window missed the input: PyTorch's backward
        # writes outside the plane, the kernel rejects the index
    go = randn(gen, *idx.shape, dtype=dtype)
    y = A.max_pool2d_with_indices_backward(go, x, k, s, p, d, ceil, idx)
    return "aten::max_pool2d_with_indices_backward.grad_input", [T(go), T(x), IL(k), IL(s), IL(p), IL(d), B(ceil),
                                                                  T(idx), OUT(y)]


def stress_conv_backward(rng, gen):
    spatial = rng.randint(1, 3)
    groups = rng.randint(1, 2)
    tr = rng.random() < 0.4
    cin = groups * rng.randint(1, 2)
    cout = groups * rng.randint(1, 2)
    ishape = [rng.randint(1, 2), cin] + [rng.randint(1, 5) for _ in range(spatial)]
    kernel = [rng.randint(1, 3) for _ in range(spatial)]
    wshape = ([cin, cout // groups] if tr else [cout, cin // groups]) + kernel
    stride = [rng.randint(1, 3) for _ in range(spatial)]
    padding = [rng.randint(0, 2) for _ in range(spatial)]
    dilation = [rng.randint(1, 2) for _ in range(spatial)]
    op = [rng.randint(0, max(stride[i], dilation[i]) - 1) if tr else 0 for i in range(spatial)]
    mask = [rng.random() < 0.8 for _ in range(3)]
    dtype = pick(rng, [torch.float32, torch.float64])
    x = randn(gen, *ishape, dtype=dtype)
    weight = randn(gen, *wshape, dtype=dtype)
    y = A.convolution(x.double(), weight.double(), None, stride, padding, dilation, tr, op, groups)
    go = randn(gen, *y.shape, dtype=dtype)
    outs, _ = oracle(lambda g, a, wt: A.convolution_backward(g, a, wt, [cout], stride, padding, dilation, tr, op,
                                                             groups, mask), [go, x, weight], dtype, loose=True)
    outs = [o if m else None for o, m in zip(outs, mask)]
    return "aten::convolution_backward.out", [T(go), T(x), T(weight), IL([cout]), IL(stride), IL(padding),
                                              IL(dilation), B(tr), IL(op), I(groups), BL(mask), OUT(outs[0]),
                                              OUT(outs[1]), OUT(outs[2])]


def stress_col2im(rng, gen):
    k = [rng.randint(1, 3), rng.randint(1, 3)]
    d = [rng.randint(1, 2), rng.randint(1, 2)]
    p = [rng.randint(0, 2), rng.randint(0, 2)]
    s = [rng.randint(1, 3), rng.randint(1, 3)]
    size = [rng.randint(1, 7), rng.randint(1, 7)]
    blocks = [(size[i] + 2 * p[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1 for i in range(2)]
    if min(blocks) < 1:
        return None
    c = rng.randint(1, 2)
    shape = ([rng.randint(1, 2)] if rng.random() < 0.7 else []) + [c * k[0] * k[1], blocks[0] * blocks[1]]
    dtype = pick(rng, [torch.float32, torch.float64])
    x = randn(gen, *shape, dtype=dtype)
    (y,), _ = oracle(lambda a: A.col2im(a, size, k, d, p, s), [x], dtype)
    return "aten::col2im.out", [T(x), IL(size), IL(k), IL(d), IL(p), IL(s), OUT(y)]


def stress_grid_sampler(rng, gen):
    dtype = pick(rng, [torch.float32, torch.float64])
    n, c, h, wd = rng.randint(1, 2), rng.randint(1, 2), rng.randint(1, 5), rng.randint(1, 5)
    ho, wo = rng.randint(1, 4), rng.randint(1, 4)
    x = randn(gen, n, c, h, wd, dtype=dtype)
    # Lattice values hit exact ties and pixel centres; some are random.
    lattice = torch.randint(-24, 25, (n, ho, wo, 2), generator=gen).double() / 16
    noise = randn(gen, n, ho, wo, 2, dtype=torch.float64, scale=1.2)
    grid = torch.where(torch.rand(n, ho, wo, 2, generator=gen) < 0.5, lattice, noise).to(dtype)
    mode, padding, align = rng.randrange(3), rng.randrange(3), rng.random() < 0.5
    y = A.grid_sampler_2d(x, grid, mode, padding, align)
    return "aten::grid_sampler_2d.out", [T(x), T(grid), I(mode), I(padding), B(align), OUT(y)]


def stress_upsample(rng, gen):
    dtype = pick(rng, [torch.float32, torch.float64, torch.uint8, torch.uint8, torch.float16])
    shape = [rng.randint(1, 2), rng.randint(1, 6), rng.randint(1, 7), rng.randint(1, 7)]
    x = values_for(gen, shape, dtype)
    if rng.random() < 0.5:
        size, scales = [rng.randint(1, 15), rng.randint(1, 15)], None
    else:
        size, scales = None, [round(rng.uniform(0.3, 3.5), rng.randint(1, 3)) for _ in range(2)]
    native = dtype in (torch.uint8, torch.float32)
    if rng.random() < 0.5:
        align = rng.random() < 0.5
        out_w = size[1] if size is not None else int(shape[3] * scales[1])
        out_h = size[0] if size is not None else int(shape[2] * scales[0])
        if dtype == torch.uint8 and shape[1] > 4 and out_w == 1 and out_h != shape[2]:
            return None  # PyTorch's generic uint8 kernel repeats row 0 there
        (y,), _ = oracle(lambda a: A.upsample_bilinear2d.vec(a, size, align, scales), [x], dtype, native_only=native)
        return "aten::upsample_bilinear2d.vec_out", [T(x), NONE if size is None else IL(size), B(align),
                                                      NONE if scales is None else DL(scales), OUT(y)]
    y = A.upsample_nearest2d.vec(x, size, scales)
    return "aten::upsample_nearest2d.vec_out", [T(x), NONE if size is None else IL(size),
                                                 NONE if scales is None else DL(scales), OUT(y)]


def stress_fft(rng, gen):
    rank = rng.randint(1, 4)
    shape = [rng.randint(1, 6) for _ in range(rank)]
    dims = rng.sample(range(rank), rng.randint(1, rank))
    norm = rng.randrange(3)
    if rng.random() < 0.5:
        dtype = pick(rng, [torch.float32, torch.float64])
        onesided = rng.random() < 0.6
        x = randn(gen, *shape, dtype=dtype)
        (y,), _ = oracle(lambda a: A._fft_r2c(a, dims, norm, onesided), [x], dtype)
        return "aten::_fft_r2c.out", [T(x), IL(dims), I(norm), B(onesided), OUT(y)]
    dtype = pick(rng, [torch.complex64, torch.complex128])
    n = rng.randint(1, 9)
    shape[dims[-1]] = n // 2 + 1 if rng.random() < 0.8 else n
    x = torch.complex(randn(gen, *shape, dtype=torch.float64), randn(gen, *shape, dtype=torch.float64)).to(dtype)
    (y,), _ = oracle(lambda a: A._fft_c2r(a, dims, norm, n), [x], dtype)
    return "aten::_fft_c2r.out", [T(x), IL(dims), I(norm), I(n), OUT(y)]


def stress_norm(rng, gen):
    dtype = pick(rng, [torch.float32, torch.float64, torch.float16])
    pdtype = torch.float32 if dtype == torch.float16 and rng.random() < 0.5 else dtype
    n, c = rng.randint(1, 3), rng.randint(1, 4)
    spatial = [rng.randint(1, 4) for _ in range(rng.randint(0, 2))]
    shape = [n, c] + spatial
    which = rng.randrange(4)
    x = randn(gen, *shape, dtype=dtype, scale=2.0) + 0.3
    weight = randn(gen, c, dtype=pdtype) if rng.random() < 0.7 else None
    bias = randn(gen, c, dtype=pdtype) if rng.random() < 0.7 else None
    if which == 0:
        training, momentum = rng.random() < 0.7, rng.uniform(0, 1)
        rm = randn(gen, c, dtype=pdtype)
        rv = (torch.rand(c, generator=gen, dtype=torch.float64) + 0.2).to(pdtype)
        outs, after = oracle(lambda a, wt, b, m, v: A._native_batch_norm_legit(a, wt, b, m, v, training, momentum,
                                                                               1e-5),
                             [x, weight, bias, rm, rv], dtype, inplace=(3, 4), loose=True)
        return "aten::_native_batch_norm_legit.out", [T(x), T(weight), T(bias), INOUT(rm, after[0]),
                                                      INOUT(rv, after[1]), B(training), D(momentum), D(1e-5),
                                                      OUT(outs[0]), OUT(outs[1]), OUT(outs[2])]
    hxw = int(torch.tensor(spatial).prod().item()) if spatial else 1
    g = pick(rng, [d for d in range(1, c + 1) if c % d == 0])
    if which == 1:
        outs, _ = oracle(lambda a, wt, b: A.native_group_norm(a, wt, b, n, c, hxw, g, 1e-5), [x, weight, bias],
                         dtype, loose=True)
        return "aten::native_group_norm.out", [T(x), T(weight), T(bias), I(n), I(c), I(hxw), I(g), D(1e-5),
                                               OUT(outs[0]), OUT(outs[1]), OUT(outs[2])]
    go = randn(gen, *shape, dtype=dtype)
    if which == 2:
        mask = [rng.random() < 0.7, weight is not None and rng.random() < 0.7, weight is not None and rng.random() < 0.7]
        x_p = x.to(pdtype)
        _, mean, rstd = A.native_group_norm(x_p, weight, None, n, c, hxw, g, 1e-5)
        outs, _ = oracle(lambda gg, a, m, r, wt: A.native_group_norm_backward(gg, a, m, r, wt, n, c, hxw, g, mask),
                         [go, x, mean.to(pdtype), rstd.to(pdtype), weight], dtype, loose=True)
        outs = [o if k else None for o, k in zip(outs, mask)]
        return "aten::native_group_norm_backward.out", [T(go), T(x), T(mean.to(pdtype)), T(rstd.to(pdtype)),
                                                        T(weight), I(n), I(c), I(hxw), I(g), BL(mask),
                                                        OUT(outs[0]), OUT(outs[1]), OUT(outs[2])]
    ns = shape[rng.randint(1, len(shape) - 1):] if len(shape) > 1 else shape
    w_ln = randn(gen, *ns, dtype=pdtype) if rng.random() < 0.7 else None
    b_ln = randn(gen, *ns, dtype=pdtype) if rng.random() < 0.7 else None
    if w_ln is None and b_ln is None:
        pdtype = dtype
    _, mean, rstd = A.native_layer_norm(x, ns, w_ln, b_ln, 1e-5)
    mask = [rng.random() < 0.7, w_ln is not None and rng.random() < 0.7, b_ln is not None and rng.random() < 0.7]
    outs, _ = oracle(lambda gg, a, m, r, wt, b: A.native_layer_norm_backward(gg, a, ns, m, r, wt, b, mask),
                     [go, x, mean, rstd, w_ln, b_ln], dtype, loose=True)
    outs = [o if k else None for o, k in zip(outs, mask)]
    return "aten::native_layer_norm_backward.out", [T(go), T(x), IL(ns), T(mean), T(rstd), T(w_ln), T(b_ln),
                                                     BL(mask), OUT(outs[0]), OUT(outs[1]), OUT(outs[2])]


def stress_embedding(rng, gen):
    dtype = pick(rng, [torch.float32, torch.float64, torch.int64, torch.int32, torch.bool, torch.complex64])
    count, width, num = rng.randint(0, 6), rng.randint(0, 3), rng.randint(0, 5)
    idx = torch.randint(-1, num + 2, (count,), generator=gen)
    if rng.random() < 0.3:
        idx = idx.int()
    g = values_for(gen, (count, width), dtype) if not dtype.is_complex and dtype != torch.bool else (
        randint(gen, 0, 2, count, width, dtype=torch.bool) if dtype == torch.bool else
        torch.complex(randn(gen, count, width, dtype=torch.float64),
                      randn(gen, count, width, dtype=torch.float64)).to(dtype))
    pad, freq = rng.randint(-2, num), rng.random() < 0.5
    if freq and ((idx < 0) | (idx >= num)).any():
        return None  # PyTorch's frequency count writes out of bounds there
    (y,), _ = oracle(lambda gg: A.embedding_dense_backward(gg, idx, num, pad, freq), [g], dtype, loose=True)
    return "aten::embedding_dense_backward.out", [T(g), T(idx), I(num), I(pad), B(freq), OUT(y)]


STRESS = {"pool": [stress_avg_pool, stress_max_pool3d, stress_adaptive], "norm": [stress_norm],
          "pool_backward": [stress_pool_backward], "grad": [stress_conv_backward, stress_col2im, stress_embedding],
          "sample": [stress_grid_sampler, stress_upsample], "fft": [stress_fft]}


GROUPS = [("pool", gen_pool, "seed 201"), ("pool_backward", gen_pool_backward, "seed 202"),
          ("norm", gen_norm, "seed 203"), ("grad", gen_grad, "seed 204"),
          ("sample", gen_sample, "seed 205"), ("fft", gen_fft, "seed 206"),
          ("dtypes", gen_dtypes, "fixed inputs")]


def main():
    check = "--check" in sys.argv[1:]
    count = int(sys.argv[sys.argv.index("--stress") + 1]) if "--stress" in sys.argv else 0
    torch.set_num_threads(1)
    stale = []
    for group, fn, seed in GROUPS:
        w = fn()
        if count:
            stress(group, w, count)
            seed += f", stress {count}"
        text = w.text(seed)
        path = os.path.join(OUT_DIR, f"nn_{group}_cases.h")
        old = open(path).read() if os.path.exists(path) else None
        if old != text:
            stale.append(path)
            if not check:
                with open(path, "w") as f:
                    f.write(text)
    if check:
        for path in stale:
            print(f"out of date: {path}")
        return 1 if stale else 0
    print(f"wrote {len(GROUPS)} files, {len(stale)} changed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
