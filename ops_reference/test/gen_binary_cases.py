#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Generates the golden cases of the "binary" family's kernel tests with
PyTorch eager as the oracle: atan2, bitwise_and/or/xor, ge/le/ne, fmod,
logical_and/or/xor, maximum, minimum, pow.Scalar / pow.Tensor_Tensor,
div.Scalar_mode and masked_scatter (their out variants, as etref registers
them).

Every case calls PyTorch's out variant itself (torch.ops.aten.<op>.<out
overload>, with an empty out of the dtype the case names, so PyTorch
resizes it), which is exactly the contract the C kernel implements: its
status (a raised error becomes the etref code: "not implemented" ->
NotSupported, the argument errors listed in ERROR_MESSAGES ->
InvalidArgument, anything else stops the generator), the out's dtype,
shape and values. Inputs come from a torch.Generator seeded with SEED, so
the files are reproducible; values are written as exact decimal
round-trips of the doubles holding them (integers stay below 2**53 so a
double holds them exactly).

Files (each names this script):
  generated/binary_sweep_cases.h  every op x the 15 dtypes PyTorch has,
                                  and 11 x 11 dtype pairs for the Tensor
                                  overloads (promotion and which compute
                                  dtypes each op accepts);
  generated/binary_value_cases.h  seeded random values with NaN/inf/-0 and
                                  integer extremes, broadcasting, rank-4
                                  inputs (the test replays them strided and
                                  channels-last), zero-dim and empty
                                  tensors, Scalars of every kind, out dtypes
                                  other than the result's, and failures.

Usage (from the repository root, with the pinned PyTorch):
    .venv/bin/python ops_reference/test/gen_binary_cases.py          # rewrite
    .venv/bin/python ops_reference/test/gen_binary_cases.py --check  # compare
"""

import math
import os
import sys
import warnings

import torch

A = torch.ops.aten
HERE = os.path.dirname(os.path.abspath(__file__))
OUT_DIR = os.path.join(HERE, "generated")
GENERATOR = "ops_reference/test/gen_binary_cases.py"
SEED = 20240611

DTYPE_NAMES = {
    torch.bool: "ETR_BOOL", torch.uint8: "ETR_BYTE", torch.int8: "ETR_CHAR",
    torch.int16: "ETR_SHORT", torch.int32: "ETR_INT", torch.int64: "ETR_LONG",
    torch.float16: "ETR_HALF", torch.bfloat16: "ETR_BFLOAT16",
    torch.float32: "ETR_FLOAT", torch.float64: "ETR_DOUBLE",
    torch.complex64: "ETR_COMPLEX_FLOAT", torch.complex128: "ETR_COMPLEX_DOUBLE",
    torch.uint16: "ETR_UINT16", torch.uint32: "ETR_UINT32", torch.uint64: "ETR_UINT64",
}
ALL_DTYPES = list(DTYPE_NAMES)
PAIR_DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int32, torch.int64, torch.float16,
               torch.bfloat16, torch.float32, torch.float64, torch.complex64, torch.uint16]
FLOATING = [torch.float32, torch.float64, torch.float16, torch.bfloat16]
INTEGRAL = [torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64]

# Functional overload of each out overload (used to learn the result dtype).
FUNCTIONAL = {"Tensor_out": "Tensor", "Scalar_out": "Scalar", "out": "default",
              "Scalar_mode_out": "Scalar_mode", "Tensor_Tensor_out": "Tensor_Tensor"}

# PyTorch errors that are argument errors (InvalidArgument in etref).
ERROR_MESSAGES = ["ZeroDivisionError", "can't be cast to the desired output type",
                  "Promotion for uint16, uint32, uint64 types is not supported",
                  "must match the size of tensor", "Expected out tensor to have dtype",
                  "only supports boolean masks", "Number of elements of source < number of ones",
                  "expected self and source to have same dtypes", "expected rounding_mode"]


def status_of(error):
    text = str(error)
    if isinstance(error, NotImplementedError) or "not implemented" in text:
        return "ETR_ERR_NOT_SUPPORTED"
    if any(message in text for message in ERROR_MESSAGES):
        return "ETR_ERR_INVALID_ARGUMENT"
    raise error


def c_double(x):
    if math.isnan(x):
        return "NAN"
    if math.isinf(x):
        return "INFINITY" if x > 0 else "-INFINITY"
    text = repr(float(x))
    return text if ("." in text or "e" in text or "n" in text) else text + ".0"


class Writer:
    """The value arrays (deduplicated) and case rows of one header."""

    def __init__(self, name):
        self.name = name
        self.arrays = []
        self.by_text = {}
        self.rows = []

    def values(self, flat):
        body = ", ".join(c_double(v) for v in flat) or "0.0"
        if body not in self.by_text:
            array = f"k_{self.name}_values_{len(self.arrays)}"
            self.by_text[body] = array
            self.arrays.append(f"static const double {array}[] = {{{body}}};")
        return self.by_text[body]

    def tensor(self, t):
        if t is None:
            return "{false, ETR_FLOAT, 0, {0}, 0, NULL}"
        t = t.detach().contiguous()
        if t.is_complex():
            flat = torch.view_as_real(t).reshape(-1).double().tolist()
        elif t.dtype in (torch.int64, torch.uint64, torch.uint32):
            flat = [float(v) for v in t.reshape(-1).tolist()]
            assert all(abs(v) < 2.0 ** 53 for v in flat), "integers must fit a double"
        else:
            flat = t.reshape(-1).double().tolist()
        assert t.dim() <= 6
        sizes = ", ".join(str(s) for s in t.shape) or "0"
        return f"{{true, {DTYPE_NAMES[t.dtype]}, {t.dim()}, {{{sizes}}}, {len(flat)}, {self.values(flat)}}}"

    def arg(self, arg):
        kind = arg[0]
        if kind == "t":
            return f"{{SW_TENSOR, {self.tensor(arg[1])}, 0, 0.0, {{0, {{0}}}}, NULL, NULL, 0}}"
        kinds = {"i": "SW_INT", "f": "SW_DOUBLE", "b": "SW_BOOL", "s": "SW_STRING", "none": "SW_NONE"}
        i = int(arg[1]) if kind in ("i", "b") else 0
        f = c_double(arg[1]) if kind == "f" else "0.0"
        string = f'"{arg[1]}"' if kind == "s" else "NULL"
        return f"{{{kinds[kind]}, {self.tensor(None)}, {i}, {f}, {{0, {{0}}}}, {string}, NULL, 0}}"


def python_value(arg):
    kind = arg[0]
    if kind == "t":
        return arg[1]
    if kind == "i":
        return int(arg[1])
    if kind == "f":
        return float(arg[1])
    if kind == "b":
        return bool(arg[1])
    if kind == "s":
        return arg[1]
    return None


def call(overload, values, out=None):
    """Calls an overload with values in schema order (out excluded)."""
    schema_args = [a for a in overload._schema.arguments if not a.is_out]
    positional, keywords = [], {}
    for schema_arg, value in zip(schema_args, values):
        if schema_arg.kwarg_only:
            keywords[schema_arg.name] = value
        else:
            positional.append(value)
    if out is not None:
        keywords["out"] = out
    return overload(*positional, **keywords)


def add_case(w, label, op, args, out_dtype=None):
    """One row: PyTorch's out variant on `args` ((kind, value) pairs)."""
    base, overload_name = op[len("aten::"):].split(".")
    packet = getattr(A, base)
    out_overload = getattr(packet, overload_name)
    values = [python_value(a) for a in args]
    status = "ETR_OK"
    first_tensor = next(a[1] for a in args if a[0] == "t")
    if out_dtype is None:
        # The functional's result dtype; when it fails, self's dtype (the
        # out variant then decides the status, whichever check fires first).
        try:
            out_dtype = call(getattr(packet, FUNCTIONAL[overload_name]), values).dtype
        except (RuntimeError, NotImplementedError):
            out_dtype = first_tensor.dtype
    out = torch.empty(0, dtype=out_dtype)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = call(out_overload, values, out)
        assert result is out
    except (RuntimeError, NotImplementedError) as error:
        status = status_of(error)
    if status != "ETR_OK":
        # A refused call still passes an out: self's shape, the named dtype.
        out = torch.zeros(first_tensor.shape, dtype=out_dtype)
    literal_args = ", ".join(w.arg(a) for a in args)
    w.rows.append(f'    {{"{label}", "{op}", {status}, {"true" if status == "ETR_OK" else "false"}, '
                  f"{len(args)}, {{{literal_args}}}, {w.tensor(out)}}},")


def emit(w, title, description):
    guard = f"ETR_OPS_REFERENCE_TEST_GENERATED_{w.name.upper()}_CASES_H"
    array = "k" + "".join(p[:1].upper() + p[1:] for p in w.name.split("_")) + "Cases"
    text = f"""// SPDX-License-Identifier: Apache-2.0
//
// Generated by {GENERATOR} (seed {SEED}) from PyTorch {torch.__version__.split('+')[0]}
// eager; do not edit. {title}
// {description}
#ifndef {guard}
#define {guard}

#include <math.h>
#include <stdbool.h>

#include "core/error.h"
#include "ops_reference/test/case_types.h"

#ifndef ETR_BINARY_CASE_T_DEFINED
#define ETR_BINARY_CASE_T_DEFINED
// One call of an out-variant kernel: its arguments in schema order (the
// out is `out`, whose dtype the call uses and whose shape and values are
// expected when `status` is ETR_OK).
typedef struct binary_case {{
  const char *name;
  const char *op;
  etr_error_t status;
  bool expect_values;
  size_t num_args;
  sweep_arg_t args[4];
  tt_case_tensor_t out;
}} binary_case_t;
#endif

{chr(10).join(w.arrays)}

static const binary_case_t {array}[] = {{
{chr(10).join(w.rows)}
}};

#endif  // {guard}
"""
    return f"{w.name}_cases.h", text


# ---------------------------------------------------------------------------
# The dtype sweep.

def sweep_tensor(d, *shape, divisor=False, start=0):
    """0, 1, 2, 0, ... (1, 2, 1, ... when `divisor`; True for non-zero in Bool)."""
    n = math.prod(shape)
    base = torch.arange(start, start + n, dtype=torch.int64)
    values = (base % 2 + 1) if divisor else (base % 3)
    return values.reshape(shape).to(d)


def gen_sweep():
    w = Writer("binary_sweep")
    mask = torch.tensor([True, False, True])
    for d in ALL_DTYPES:
        tag = str(d)[6:]
        T = lambda *shape, **kw: sweep_tensor(d, *shape, **kw)
        x, y, divisor = T(2, 3), T(3, start=1), T(3, divisor=True)
        specs = [("atan2", "aten::atan2.out", [("t", x), ("t", y)])]
        for op in ("bitwise_and", "bitwise_or", "bitwise_xor"):
            specs += [(op, f"aten::{op}.Tensor_out", [("t", x), ("t", y)]),
                      (op + "_int", f"aten::{op}.Scalar_out", [("t", x), ("i", 3)]),
                      (op + "_bool", f"aten::{op}.Scalar_out", [("t", x), ("b", True)])]
        for op in ("ge", "le", "ne"):
            specs += [(op, f"aten::{op}.Tensor_out", [("t", x), ("t", y)]),
                      (op + "_scalar", f"aten::{op}.Scalar_out", [("t", x), ("i", 1)])]
        specs += [("fmod", "aten::fmod.Tensor_out", [("t", x), ("t", divisor)]),
                  ("fmod_int", "aten::fmod.Scalar_out", [("t", x), ("i", 2)]),
                  ("fmod_float", "aten::fmod.Scalar_out", [("t", x), ("f", 1.5)])]
        for op in ("logical_and", "logical_or", "logical_xor", "maximum", "minimum"):
            specs.append((op, f"aten::{op}.out", [("t", x), ("t", y)]))
        specs += [("pow", "aten::pow.Tensor_Tensor_out", [("t", x), ("t", y)]),
                  ("pow_scalar_int", "aten::pow.Scalar_out", [("i", 2), ("t", x)]),
                  ("pow_scalar_float", "aten::pow.Scalar_out", [("f", 2.5), ("t", x)]),
                  ("pow_scalar_one", "aten::pow.Scalar_out", [("i", 1), ("t", x)]),
                  ("pow_scalar_bool", "aten::pow.Scalar_out", [("b", True), ("t", x)])]
        for mode in ("trunc", "floor", None):
            mode_arg = ("s", mode) if mode else ("none",)
            specs += [(f"div_{mode}", "aten::div.Scalar_mode_out", [("t", x), ("i", 2), mode_arg]),
                      (f"div_{mode}_float", "aten::div.Scalar_mode_out", [("t", x), ("f", 2.5), mode_arg])]
        specs.append(("masked_scatter", "aten::masked_scatter.out",
                      [("t", x), ("t", mask), ("t", T(6, start=1))]))
        for name, op, args in specs:
            add_case(w, f"{name}_{tag}", op, args)
    # Dtype pairs: which promoted dtypes each op computes in, and refusals.
    pair_ops = ["aten::atan2.out", "aten::bitwise_or.Tensor_out", "aten::fmod.Tensor_out",
                "aten::logical_and.out", "aten::maximum.out", "aten::pow.Tensor_Tensor_out",
                "aten::le.Tensor_out", "aten::ne.Tensor_out"]
    for index, op in enumerate(pair_ops):
        for a in PAIR_DTYPES:
            for b in PAIR_DTYPES:
                x = sweep_tensor(a, 2, 3)
                other = (sweep_tensor(b, 3, divisor=True) if index % 2 == 0
                         else sweep_tensor(b, divisor=True))
                add_case(w, f"{op[6:]}_{str(a)[6:]}_{str(b)[6:]}", op, [("t", x), ("t", other)])
    return emit(w, "The binary family's dtype sweep.",
                "Every op on every dtype, then dtype pairs (see the generator).")


# ---------------------------------------------------------------------------
# Values.

SPECIALS = [math.nan, math.inf, -math.inf, 0.0, -0.0]


def rand(gen, dtype, *shape, lo=None, hi=None, specials=False, scale=3.0):
    if dtype.is_complex:
        real = torch.randn(shape, generator=gen, dtype=torch.float64) * scale
        imag = torch.randn(shape, generator=gen, dtype=torch.float64) * scale
        return torch.complex(real, imag).to(dtype)
    if dtype.is_floating_point:
        t = torch.randn(shape, generator=gen, dtype=torch.float64) * scale
        if specials and t.numel() > 0:
            flat = t.view(-1)
            picks = torch.randperm(flat.numel(), generator=gen)[:len(SPECIALS)]
            for position, value in zip(picks.tolist(), SPECIALS):
                flat[position] = value
        return t.to(dtype)
    if dtype == torch.bool:
        return torch.randint(0, 2, shape, generator=gen).bool()
    if lo is None:
        info = torch.iinfo(dtype)
        lo, hi = max(info.min, -2 ** 40), min(info.max, 2 ** 40)
    return torch.randint(lo, hi + 1, shape, generator=gen, dtype=torch.int64).to(dtype)


def extremes(dtype, n):
    """Integer extremes and small values, n of them (exact in a double)."""
    info = torch.iinfo(dtype)
    low, high = max(info.min, -2 ** 52), min(info.max, 2 ** 52)
    pool = [low, high, 0, 1, -1, 2, -2, 7, low + 1, high - 1]
    pool = [v for v in pool if low <= v <= high]
    return torch.tensor([pool[i % len(pool)] for i in range(n)], dtype=torch.int64).to(dtype)


def value_specs(gen):
    cases = []
    add = lambda label, op, args, out_dtype=None: cases.append((label, op, args, out_dtype))
    tensor_ops = ["aten::atan2.out", "aten::fmod.Tensor_out", "aten::maximum.out", "aten::minimum.out",
                  "aten::pow.Tensor_Tensor_out", "aten::ge.Tensor_out", "aten::le.Tensor_out",
                  "aten::ne.Tensor_out", "aten::logical_and.out", "aten::logical_or.out",
                  "aten::logical_xor.out"]
    # Floating: rank-4 broadcasting (2,3,2,4) with (3,1,4), NaN/inf/-0.
    for d in FLOATING:
        for op in tensor_ops:
            a = rand(gen, d, 2, 3, 2, 4, specials=True)
            b = rand(gen, d, 3, 1, 4, specials=True)
            add(f"{op[6:]}_{d}_bcast", op, [("t", a), ("t", b)])
    # Integral: full-range values and extremes; divisors without 0.
    for d in INTEGRAL:
        for op in tensor_ops + ["aten::bitwise_and.Tensor_out", "aten::bitwise_or.Tensor_out",
                                "aten::bitwise_xor.Tensor_out"]:
            a = torch.cat([extremes(d, 8), rand(gen, d, 16)]).reshape(2, 3, 4)
            b = rand(gen, d, 3, 1)
            if op.startswith("aten::fmod"):
                b = torch.where(b == 0, torch.ones_like(b), b)
            if op.startswith("aten::pow"):
                a = rand(gen, d, 2, 3, 4, lo=-5 if d != torch.uint8 else 0, hi=5)
                b = rand(gen, d, 3, 1, lo=-3 if d != torch.uint8 else 0, hi=9)
            add(f"{op[6:]}_{d}_bcast", op, [("t", a), ("t", b)])
    # Bool and complex, where the ops take them.
    for op in tensor_ops + ["aten::bitwise_xor.Tensor_out"]:
        add(f"{op[6:]}_bool", op, [("t", rand(gen, torch.bool, 4, 3)), ("t", rand(gen, torch.bool, 3))])
    for d in (torch.complex64, torch.complex128):
        for op in ["aten::pow.Tensor_Tensor_out", "aten::ne.Tensor_out", "aten::logical_or.out",
                   "aten::logical_xor.out"]:
            a = rand(gen, d, 2, 3, scale=1.5)
            a[0, 0] = 0
            a[1, 1] = complex(0, 2)
            add(f"{op[6:]}_{d}", op, [("t", a), ("t", rand(gen, d, 3, scale=1.0))])
    # Complex special values (infinite parts must not turn into NaN).
    inf, nan = math.inf, math.nan
    for d in (torch.complex64, torch.complex128):
        z = torch.tensor([complex(inf, 0), complex(0, inf), complex(nan, 0), complex(1, 1), 0j,
                          complex(-inf, 1)], dtype=d)
        e = torch.tensor([2, 0.5 + 1j, 1, complex(0, inf), 0, -1], dtype=d)
        for op in ["aten::pow.Tensor_Tensor_out", "aten::ne.Tensor_out", "aten::logical_and.out"]:
            add(f"{op[6:]}_{d}_specials", op, [("t", z), ("t", e)])
    add("ne_half_complex_zero_dim", "aten::ne.Tensor_out",
        [("t", torch.tensor([1.0, 2.0, 1.0], dtype=torch.float16)),
         ("t", torch.tensor(1.0001 + 1e-8j, dtype=torch.complex128))])
    # Scalar overloads: int, float and bool Scalars.
    scalar_ops = ["aten::bitwise_and.Scalar_out", "aten::bitwise_or.Scalar_out",
                  "aten::bitwise_xor.Scalar_out", "aten::fmod.Scalar_out", "aten::ge.Scalar_out",
                  "aten::le.Scalar_out", "aten::ne.Scalar_out"]
    for op in scalar_ops:
        for d in (torch.int8, torch.uint8, torch.int32, torch.int64, torch.float16, torch.float32,
                  torch.float64, torch.bool):
            a = rand(gen, d, 3, 5, specials=True) if d.is_floating_point else rand(gen, d, 3, 5)
            for scalar in (("i", -7), ("i", 1000), ("f", 2.5), ("b", True)):
                add(f"{op[6:]}_{d}_{scalar[0]}{scalar[1]}", op, [("t", a), scalar])
    # fmod rounds a Scalar divisor to Half/BFloat16 first (no op-math path):
    # Half [1, 3] fmod 0.1 is [0.0002, 0.0007].
    for d in (torch.float16, torch.bfloat16):
        add(f"fmod_{d}_scalar_0.1", "aten::fmod.Scalar_out",
            [("t", torch.tensor([1.0, 3.0, -7.0, 0.25], dtype=d)), ("f", 0.1)])
    # pow.Scalar: bases of every kind, exponents of several dtypes.
    for d in (torch.int8, torch.int32, torch.int64, torch.float16, torch.bfloat16, torch.float32,
              torch.float64, torch.bool, torch.complex64):
        if d == torch.bool:
            e = rand(gen, d, 2, 4)
        elif d.is_floating_point or d.is_complex:
            e = rand(gen, d, 2, 4, scale=2.0)
        else:  # 1000 ** 5 still fits a double exactly
            e = rand(gen, d, 2, 4, lo=-3, hi=12 if d != torch.int64 else 5)
        for base in (("i", 2), ("i", -3), ("i", 0), ("i", 1000), ("f", 1.1), ("f", -0.5), ("f", 1.0),
                     ("i", 1), ("b", False)):
            add(f"pow_scalar_{d}_{base[0]}{base[1]}", "aten::pow.Scalar_out", [base, ("t", e)])
    # div.Scalar_mode: every mode; divisors that expose op-math precision.
    for d in FLOATING + [torch.int8, torch.uint8, torch.int32, torch.int64, torch.bool]:
        a = rand(gen, d, 2, 3, 4, specials=True) if d.is_floating_point else rand(gen, d, 2, 3, 4)
        if d.is_floating_point:
            a.view(-1)[:6] = torch.tensor([1.0, 3.0, -1.0, 7.0, 0.3, 100.0], dtype=d)
        for divisor in (("i", 3), ("i", -2), ("f", 0.1), ("f", -0.7), ("b", True), ("f", 0.0)):
            for mode in (("s", "trunc"), ("s", "floor"), ("none",)):
                label = f"div_{d}_{divisor[0]}{divisor[1]}_{mode[1] if len(mode) > 1 else 'none'}"
                add(label, "aten::div.Scalar_mode_out", [("t", a), divisor, mode])
    # Zero-dim with zero-dim, zero-dim with rank 1, empty tensors.
    for op in tensor_ops + ["aten::bitwise_and.Tensor_out"]:
        d = torch.int32 if "bitwise" in op else torch.float32
        add(f"{op[6:]}_0dim", op, [("t", rand(gen, d, lo=1, hi=9)), ("t", rand(gen, d, lo=1, hi=9))])
        add(f"{op[6:]}_0dim_rank1", op, [("t", rand(gen, d, lo=1, hi=9)), ("t", rand(gen, d, 4, lo=1, hi=9))])
        add(f"{op[6:]}_empty", op, [("t", rand(gen, d, 0, 3)), ("t", rand(gen, d, 3, lo=1, hi=9))])
    add("fmod_empty_zero_divisor", "aten::fmod.Tensor_out",
        [("t", torch.zeros(0, 3, dtype=torch.int32)), ("t", torch.zeros(3, dtype=torch.int32))])
    # Mixed dtypes and out dtypes other than the result's.
    add("maximum_int8_float64_0dim", "aten::maximum.out",
        [("t", rand(gen, torch.int8, 5)), ("t", torch.tensor(1.5, dtype=torch.float64))])
    add("atan2_half_bf16", "aten::atan2.out",
        [("t", rand(gen, torch.float16, 5)), ("t", rand(gen, torch.bfloat16, 5))])
    add("atan2_int_out_double", "aten::atan2.out",
        [("t", rand(gen, torch.int32, 5, lo=-9, hi=9)), ("t", rand(gen, torch.int64, 5, lo=-9, hi=9))],
        torch.float64)
    add("atan2_out_complex", "aten::atan2.out", [("t", rand(gen, torch.float32, 3)),
                                                 ("t", rand(gen, torch.float32, 3))], torch.complex64)
    add("bitwise_and_out_float", "aten::bitwise_and.Tensor_out",
        [("t", rand(gen, torch.int64, 4, lo=-99, hi=99)), ("t", rand(gen, torch.int64, 4, lo=-99, hi=99))],
        torch.float32)
    add("logical_and_out_int16", "aten::logical_and.out",
        [("t", rand(gen, torch.float32, 6, specials=True)), ("t", rand(gen, torch.int8, 6))], torch.int16)
    add("logical_or_out_complex", "aten::logical_or.out",
        [("t", rand(gen, torch.bool, 4)), ("t", rand(gen, torch.bool, 4))], torch.complex64)
    add("logical_xor_0dim_double_tiny", "aten::logical_xor.out",
        [("t", torch.tensor([0.0, 1.0])), ("t", torch.tensor(1e-50, dtype=torch.float64))])
    add("ge_out_float", "aten::ge.Tensor_out",
        [("t", rand(gen, torch.int32, 6, lo=-3, hi=3)), ("t", rand(gen, torch.int32, 6, lo=-3, hi=3))],
        torch.float32)
    add("ne_scalar_out_int", "aten::ne.Scalar_out", [("t", rand(gen, torch.float32, 6, specials=True)),
                                                     ("f", math.nan)], torch.int32)
    add("fmod_out_double", "aten::fmod.Tensor_out",
        [("t", rand(gen, torch.int32, 6)), ("t", rand(gen, torch.int32, 6, lo=1, hi=50))], torch.float64)
    add("pow_int_out_float", "aten::pow.Tensor_Tensor_out",
        [("t", rand(gen, torch.int64, 6, lo=-4, hi=4)), ("t", rand(gen, torch.int64, 6, lo=0, hi=5))],
        torch.float32)
    add("pow_scalar_one_out_bool", "aten::pow.Scalar_out", [("i", 1), ("t", rand(gen, torch.float32, 3))],
        torch.bool)
    add("pow_scalar_one_uint16", "aten::pow.Scalar_out",
        [("f", 1.0), ("t", torch.tensor([1, 2], dtype=torch.uint16))])
    # Failures.
    add("atan2_out_long", "aten::atan2.out", [("t", rand(gen, torch.float32, 3)),
                                              ("t", rand(gen, torch.float32, 3))], torch.int64)
    add("atan2_complex", "aten::atan2.out", [("t", rand(gen, torch.complex64, 3)),
                                             ("t", rand(gen, torch.complex64, 3))])
    add("atan2_no_broadcast", "aten::atan2.out", [("t", rand(gen, torch.float32, 3)),
                                                  ("t", rand(gen, torch.float32, 2))])
    add("bitwise_or_float", "aten::bitwise_or.Tensor_out", [("t", rand(gen, torch.float32, 3)),
                                                            ("t", rand(gen, torch.int32, 3))])
    add("bitwise_xor_scalar_float", "aten::bitwise_xor.Scalar_out", [("t", rand(gen, torch.int32, 3)),
                                                                     ("f", 1.5)])
    add("bitwise_and_out_bool", "aten::bitwise_and.Tensor_out",
        [("t", rand(gen, torch.int32, 3)), ("t", rand(gen, torch.int32, 3))], torch.bool)
    add("bitwise_and_uint16_uint8", "aten::bitwise_and.Tensor_out",
        [("t", torch.tensor([1, 2], dtype=torch.uint16)), ("t", torch.tensor([3, 1], dtype=torch.uint8))])
    add("fmod_zero_divisor", "aten::fmod.Tensor_out",
        [("t", rand(gen, torch.int32, 2, 3)), ("t", torch.tensor([1, 0, 2], dtype=torch.int32))])
    add("fmod_scalar_zero", "aten::fmod.Scalar_out", [("t", rand(gen, torch.int64, 3)), ("i", 0)])
    add("fmod_scalar_wraps_to_zero", "aten::fmod.Scalar_out", [("t", rand(gen, torch.int8, 3)), ("i", 256)])
    add("fmod_bool", "aten::fmod.Tensor_out", [("t", rand(gen, torch.bool, 3)), ("t", rand(gen, torch.bool, 3))])
    add("fmod_out_int", "aten::fmod.Scalar_out", [("t", rand(gen, torch.int32, 3)), ("f", 2.5)], torch.int32)
    add("maximum_complex", "aten::maximum.out", [("t", rand(gen, torch.complex64, 3)),
                                                 ("t", rand(gen, torch.complex64, 3))])
    add("minimum_uint16", "aten::minimum.out", [("t", torch.tensor([1, 2], dtype=torch.uint16)),
                                                ("t", torch.tensor([3, 1], dtype=torch.uint16))])
    add("logical_and_uint32", "aten::logical_and.out", [("t", torch.tensor([1, 0], dtype=torch.uint32)),
                                                        ("t", torch.tensor([1, 1], dtype=torch.uint32))])
    add("ge_complex", "aten::ge.Scalar_out", [("t", rand(gen, torch.complex64, 3)), ("i", 1)])
    add("pow_bool", "aten::pow.Tensor_Tensor_out", [("t", rand(gen, torch.bool, 3)),
                                                    ("t", rand(gen, torch.bool, 3))])
    add("pow_out_int", "aten::pow.Tensor_Tensor_out", [("t", rand(gen, torch.float32, 3)),
                                                       ("t", rand(gen, torch.int32, 3))], torch.int32)
    add("pow_scalar_out_int", "aten::pow.Scalar_out", [("f", 2.5), ("t", rand(gen, torch.int32, 3))],
        torch.int32)
    add("pow_scalar_uint16", "aten::pow.Scalar_out", [("i", 2), ("t", torch.tensor([1, 2], dtype=torch.uint16))])
    add("div_bad_mode", "aten::div.Scalar_mode_out", [("t", rand(gen, torch.float32, 3)), ("i", 2),
                                                      ("s", "round")])
    add("div_trunc_zero", "aten::div.Scalar_mode_out", [("t", rand(gen, torch.int32, 3)), ("i", 0),
                                                        ("s", "trunc")])
    add("div_floor_out_float", "aten::div.Scalar_mode_out", [("t", rand(gen, torch.int32, 3)), ("i", 2),
                                                             ("s", "floor")], torch.float32)
    add("div_none_out_double", "aten::div.Scalar_mode_out", [("t", rand(gen, torch.float32, 3)), ("i", 2),
                                                             ("none",)], torch.float64)
    add("div_floor_complex", "aten::div.Scalar_mode_out", [("t", rand(gen, torch.complex64, 3)), ("i", 2),
                                                           ("s", "floor")])
    add("div_trunc_bool", "aten::div.Scalar_mode_out", [("t", rand(gen, torch.bool, 3)), ("b", True),
                                                        ("s", "trunc")])
    # Two faults at once: PyTorch reports the shape, then the promotion,
    # then the cast to out, then the dtype dispatch.
    f32 = torch.float32
    f3, f2 = rand(gen, f32, 3), rand(gen, f32, 2)
    b3, b2 = rand(gen, torch.bool, 3), rand(gen, torch.bool, 2)
    u16_3, u8_2 = torch.tensor([1, 2, 3], dtype=torch.uint16), torch.tensor([1, 2], dtype=torch.uint8)
    add("order_bitwise_shape_before_dtype", "aten::bitwise_and.Tensor_out", [("t", f3), ("t", f2)])
    add("order_bitwise_cast_before_dtype", "aten::bitwise_and.Tensor_out", [("t", f3), ("t", f3)], torch.int64)
    add("order_fmod_shape_before_dtype", "aten::fmod.Tensor_out", [("t", b3), ("t", b2)], torch.bool)
    add("order_atan2_shape_before_promotion", "aten::atan2.out", [("t", u16_3), ("t", u8_2)])
    add("order_maximum_complex_before_shape", "aten::maximum.out",
        [("t", rand(gen, torch.complex64, 3)), ("t", f2)])
    add("order_pow_dtype_after_cast", "aten::pow.Tensor_Tensor_out", [("t", b3), ("t", b3)], torch.bool)
    add("order_logical_shape_before_dtype", "aten::logical_and.out",
        [("t", u16_3), ("t", torch.tensor([1, 2], dtype=torch.uint16))], torch.bool)
    add("order_fmod_cast_before_zero_divisor", "aten::fmod.Scalar_out",
        [("t", rand(gen, torch.int32, 3)), ("i", 0)], torch.bool)
    # masked_scatter: broadcasting both ways, 0-dim, empty, errors.
    for d in (torch.float32, torch.int16, torch.bool, torch.complex128, torch.bfloat16):
        self = rand(gen, d, 2, 3, 2, 2)
        mask = rand(gen, torch.bool, 3, 1, 2)
        source = rand(gen, d, 30)
        add(f"masked_scatter_{d}", "aten::masked_scatter.out", [("t", self), ("t", mask), ("t", source)])
    add("masked_scatter_self_broadcast", "aten::masked_scatter.out",
        [("t", rand(gen, f32, 3)), ("t", torch.tensor([[True], [False], [True]])), ("t", rand(gen, f32, 2, 5))])
    add("masked_scatter_0dim_self", "aten::masked_scatter.out",
        [("t", rand(gen, f32)), ("t", torch.tensor([True, False, True])), ("t", rand(gen, f32, 2))])
    add("masked_scatter_0dim_source", "aten::masked_scatter.out",
        [("t", rand(gen, f32, 2)), ("t", torch.tensor([False, True])), ("t", rand(gen, f32))])
    add("masked_scatter_empty", "aten::masked_scatter.out",
        [("t", rand(gen, f32, 0, 3)), ("t", torch.tensor([True, False, True])), ("t", rand(gen, f32, 1))])
    add("masked_scatter_all_false_empty_source", "aten::masked_scatter.out",
        [("t", rand(gen, f32, 2, 2)), ("t", torch.zeros(2, 2, dtype=torch.bool)), ("t", rand(gen, f32, 0))])
    add("masked_scatter_short_source", "aten::masked_scatter.out",
        [("t", rand(gen, f32, 2, 3)), ("t", torch.ones(3, dtype=torch.bool)), ("t", rand(gen, f32, 5))])
    add("masked_scatter_uint8_mask", "aten::masked_scatter.out",
        [("t", rand(gen, f32, 3)), ("t", torch.tensor([1, 0, 1], dtype=torch.uint8)), ("t", rand(gen, f32, 3))])
    add("masked_scatter_source_dtype", "aten::masked_scatter.out",
        [("t", rand(gen, f32, 3)), ("t", torch.tensor([True, False, True])),
         ("t", rand(gen, torch.float64, 3))])
    add("masked_scatter_out_dtype", "aten::masked_scatter.out",
        [("t", rand(gen, f32, 3)), ("t", torch.tensor([True, False, True])), ("t", rand(gen, f32, 3))],
        torch.float64)
    add("masked_scatter_no_broadcast", "aten::masked_scatter.out",
        [("t", rand(gen, f32, 3)), ("t", torch.tensor([True, False])), ("t", rand(gen, f32, 3))])
    add("masked_scatter_dtype_before_mask", "aten::masked_scatter.out",
        [("t", rand(gen, f32, 0)), ("t", torch.zeros(0, dtype=torch.uint8)),
         ("t", rand(gen, torch.float64, 0))])
    add("masked_scatter_mask_before_self_dtype", "aten::masked_scatter.out",
        [("t", torch.tensor([1, 2], dtype=torch.uint16)), ("t", torch.tensor([1, 0], dtype=torch.uint8)),
         ("t", torch.tensor([5], dtype=torch.uint16))])
    add("masked_scatter_uint16_empty", "aten::masked_scatter.out",
        [("t", torch.zeros(0, dtype=torch.uint16)), ("t", torch.zeros(0, dtype=torch.bool)),
         ("t", torch.zeros(0, dtype=torch.uint16))])
    add("masked_scatter_uint16", "aten::masked_scatter.out",
        [("t", torch.tensor([1, 2], dtype=torch.uint16)), ("t", torch.tensor([True, False])),
         ("t", torch.tensor([5], dtype=torch.uint16))])
    return cases


def gen_values():
    gen = torch.Generator().manual_seed(SEED)
    w = Writer("binary_value")
    for label, op, args, out_dtype in value_specs(gen):
        add_case(w, label.replace("torch.", ""), op, args, out_dtype)
    return emit(w, "The binary family's value cases.",
                "Random values, broadcasting, Scalars, out dtypes and failures (see the generator).")


GENERATORS = [gen_sweep, gen_values]


def main():
    check = "--check" in sys.argv[1:]
    torch.set_num_threads(1)
    stale = []
    for generator in GENERATORS:
        filename, text = generator()
        path = os.path.join(OUT_DIR, filename)
        old = open(path).read() if os.path.exists(path) else None
        if old != text:
            stale.append(path)
            if not check:
                with open(path, "w") as f:
                    f.write(text)
    if check and stale:
        print("out of date: " + ", ".join(stale))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
