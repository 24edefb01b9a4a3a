#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Generates the cases of the "movement" family tests (data movement,
indexing, padding and tensor creation kernels) with PyTorch eager as the
oracle.

Every case is built from inputs drawn from a torch.Generator seeded per op
(SEED below), run through torch.ops.aten in eager mode, and written as C
literals into ops_reference/test/generated/movement_cases.h, which
op_movement_cases_test.c replays against the reference kernels (in the
contiguous layout, and for layout-independent ops also with non-contiguous
and channels-last inputs). Where PyTorch raises, the case expects the
kernel to fail: NotSupported for a dtype PyTorch does not implement
("not implemented for", or a refused weight dtype), InvalidArgument for
everything else, unless the case names another code. Values are printed as
exact decimal round-trips of the doubles holding the element values.

Departures from PyTorch that the cases encode on purpose (each documented in
the kernel's file):
  * empty.out / empty_strided.out / _empty_dim_order.out: PyTorch leaves
    the memory uninitialized; the kernels zero-fill, so the cases expect 0.
  * arange with a Long out whose size computation overflows int64: PyTorch
    computes with signed overflow (undefined behaviour); the kernel refuses.

Usage (from the repository root, with the pinned venv):
    .venv/bin/python ops_reference/test/gen_movement_cases.py          # rewrite
    .venv/bin/python ops_reference/test/gen_movement_cases.py --check  # compare
"""

import math
import os
import sys
import warnings

import torch

A = torch.ops.aten
HERE = os.path.dirname(os.path.abspath(__file__))
OUT_PATH = os.path.join(HERE, "generated", "movement_cases.h")
GENERATOR = "ops_reference/test/gen_movement_cases.py"
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
WIDE_UNSIGNED = (torch.uint16, torch.uint32, torch.uint64)
F32, F64, F16, BF16 = torch.float32, torch.float64, torch.float16, torch.bfloat16
I64, I32 = torch.int64, torch.int32
L = lambda *v: torch.tensor(v, dtype=torch.int64)
I = lambda *v: torch.tensor(v, dtype=torch.int32)
B = lambda *v: torch.tensor(v, dtype=torch.bool)
MEMORY_FORMATS = {torch.contiguous_format: 0, torch.preserve_format: 1, torch.channels_last: 2,
                  torch.channels_last_3d: 3}

GEN = torch.Generator().manual_seed(SEED)


def values(d, *shape):
    """Seeded values every dtype `d` holds exactly: small integers for the
    integral types, normal floats rounded to d otherwise."""
    n = math.prod(shape)
    if d == torch.bool:
        t = torch.randint(0, 2, (n,), generator=GEN).bool()
    elif d in (torch.uint8, torch.uint16, torch.uint32, torch.uint64):
        t = torch.randint(0, 20, (n,), generator=GEN).to(d)
    elif not d.is_floating_point and not d.is_complex:
        t = torch.randint(-10, 11, (n,), generator=GEN).to(d)
    elif d.is_complex:
        t = torch.complex(torch.randn(n, generator=GEN), torch.randn(n, generator=GEN)).to(d)
    else:
        t = (torch.randn(n, generator=GEN) * 3).to(d)
    return t.reshape(shape)


def arange_t(d, *shape):
    return torch.arange(math.prod(shape)).reshape(shape).to(d)


def c_double(x):
    if math.isnan(x):
        return "NAN"
    if math.isinf(x):
        return "INFINITY" if x > 0 else "-INFINITY"
    text = repr(float(x))
    return text if ("." in text or "e" in text or "n" in text) else text + ".0"


def c_int(v):
    """An int64 literal; INT64_MIN has none in C."""
    return "INT64_MIN" if v == -(2**63) else str(v)


class Writer:
    def __init__(self):
        self.arrays = []
        self.counter = 0

    def tensor(self, t):
        if t is None:
            return "{false, ETR_FLOAT, 0, {0}, 0, NULL}"
        assert t.dim() <= 6, t.shape
        t = t.detach().contiguous()
        if t.is_complex():
            flat = torch.view_as_real(t).reshape(-1).double().tolist()
        elif t.dtype == torch.uint64:
            flat = [float(v) for v in t.reshape(-1).tolist()]
        else:
            flat = t.reshape(-1).double().tolist()
        array = f"k_movement_values_{self.counter}"
        self.counter += 1
        vals = [c_double(v) for v in flat] or ["0.0"]
        lines = [", ".join(vals[i:i + 4]) for i in range(0, len(vals), 4)]
        body = ",\n    ".join(lines)
        self.arrays.append(f"static const double {array}[] = {{\n    {body}}};")
        sizes = ", ".join(str(s) for s in t.shape) or "0"
        return f"{{true, {DTYPE_NAMES[t.dtype]}, {t.dim()}, {{{sizes}}}, {len(flat)}, {array}}}"

    @staticmethod
    def ints(vals):
        vals = list(vals)
        assert len(vals) <= 8, vals
        body = ", ".join(c_int(v) for v in vals) or "0"
        return f"{{{len(vals)}, {{{body}}}}}"

    def arg(self, arg):
        kind = arg[0]
        none = self.tensor(None)
        if kind == "t":
            return f"{{SW_TENSOR, {self.tensor(arg[1])}, 0, 0.0, {{0, {{0}}}}, NULL, NULL, 0}}"
        if kind in ("tl", "otl"):
            array = f"k_movement_list_{self.counter}"
            self.counter += 1
            items = ", ".join(self.tensor(t) for t in arg[1]) or none
            self.arrays.append(f"static const tt_case_tensor_t {array}[] = {{{items}}};")
            name = "SW_TENSORS" if kind == "tl" else "SW_OPTIONAL_TENSORS"
            return f"{{{name}, {none}, 0, 0.0, {{0, {{0}}}}, NULL, {array}, {len(arg[1])}}}"
        kinds = {"i": "SW_INT", "f": "SW_DOUBLE", "b": "SW_BOOL", "ints": "SW_INTS", "none": "SW_NONE",
                 "s": "SW_STRING"}
        i = c_int(int(arg[1])) if kind in ("i", "b") else 0
        f = c_double(arg[1]) if kind == "f" else "0.0"
        ints = self.ints(arg[1]) if kind == "ints" else "{0, {0}}"
        string = f'"{arg[1]}"' if kind == "s" else "NULL"
        return f"{{{kinds[kind]}, {none}, {i}, {f}, {ints}, {string}, NULL, 0}}"


def scalar_arg(v):
    if isinstance(v, bool):
        return ("b", v)
    if isinstance(v, int):
        return ("i", v)
    return ("f", v)


CASES = []


def status_of(error):
    text = str(error)
    if "not implemented for" in text or "'weight' to have one of the following scalar types" in text:
        return "ETR_ERR_NOT_SUPPORTED"
    return "ETR_ERR_INVALID_ARGUMENT"


def case(name, op, args, fn, out_dtypes=None, status=None, data_dependent=False, layouts=True):
    """Runs fn() for the expected outs (or the error) and records the case.
    out_dtypes: the out dtypes to pass when PyTorch refuses the call
    (default: the first tensor argument's dtype)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = fn()
            outs = list(result) if isinstance(result, (tuple, list)) else [result]
            got = "ETR_OK"
        except (RuntimeError, IndexError, ValueError, TypeError, NotImplementedError) as error:
            outs = []
            got = status_of(error)
    expect = status or got
    if not outs or expect != "ETR_OK":
        if out_dtypes is None:
            first = next((a[1] for a in args if a[0] == "t"), None)
            out_dtypes = [first.dtype if first is not None else F32]
        outs = [torch.zeros(2, dtype=d) for d in out_dtypes]
        expect_values = False
    else:
        expect_values = True
    CASES.append((name, op, args, expect, expect_values, outs, data_dependent, layouts))


# ---------------------------------------------------------------------------
# Per-op cases

def gen_alias_copy():
    for d in ALL_DTYPES:
        x = values(d, 2, 3, 2, 2)
        case(f"alias_copy_{d}", "aten::alias_copy.out", [("t", x)], lambda: A.alias_copy(x))
    for shape in [(), (0, 3), (5,)]:
        x = values(F32, *shape)
        case(f"alias_copy_shape_{len(shape)}", "aten::alias_copy.out", [("t", x)], lambda: A.alias_copy(x))


def gen_as_strided():
    x = arange_t(F32, 2, 3, 4)
    specs = [
        ("basic", [2, 2], [1, 2], 1), ("offset_none", [3, 4], [4, 1], None), ("stride0", [4, 2], [0, 3], 5),
        ("overlap", [5, 3], [2, 1], 0), ("edge", [2], [1], 22), ("oob", [2], [1], 23),
        ("neg_stride", [2], [-1], 3), ("neg_offset", [2], [1], -1), ("neg_size", [-1], [1], 0),
        ("len_mismatch", [2], [1, 1], 0), ("zero_size_big_offset", [0], [1], 1000),
        ("zero_size_big_stride", [0, 5], [100, 100], 0), ("zero_dim", [], [], 7), ("zero_dim_oob", [], [], 24),
        ("huge_stride", [2], [2**62], 0), ("huge_offset", [1], [1], 2**62), ("transposed", [4, 3], [1, 4], 0),
        ("whole_4d", [2, 3, 2, 2], [12, 4, 2, 1], 0),
    ]
    for name, size, stride, offset in specs:
        off = ("none",) if offset is None else ("i", offset)
        case(f"as_strided_{name}", "aten::as_strided_copy.out", [("t", x), ("ints", size), ("ints", stride), off],
             lambda: A.as_strided_copy(x, size, stride, offset), layouts=False)
    for d in ALL_DTYPES:
        y = values(d, 3, 4)
        case(f"as_strided_{d}", "aten::as_strided_copy.out", [("t", y), ("ints", [2, 3]), ("ints", [1, 4]), ("i", 1)],
             lambda: A.as_strided_copy(y, [2, 3], [1, 4], 1), layouts=False)
    e = torch.zeros(0)
    case("as_strided_empty_input", "aten::as_strided_copy.out", [("t", e), ("ints", [1]), ("ints", [1]), ("none",)],
         lambda: A.as_strided_copy(e, [1], [1]), layouts=False)
    case("as_strided_empty_input_empty_view", "aten::as_strided_copy.out",
         [("t", e), ("ints", [0]), ("ints", [1]), ("none",)], lambda: A.as_strided_copy(e, [0], [1]), layouts=False)


def gen_arange():
    specs = [
        (0, 5.5, 1.5, I64), (0, 5.5, 1.5, I32), (0.5, 5, 1.5, I64), (0.5, 5, 1.5, I32), (0, 5, 0.5, I64),
        (0, 5, 0.5, I32), (0, 6, 1, F32), (0, 1, 1, F32), (0, 0, 1, F32), (5, 0, 1, F32), (0, 5, 0, F32),
        (0, 5, -1, F32), (5, 0, -1, F32), (0, math.inf, 1, F32), (0, math.nan, 1, F32), (math.nan, 1, 1, F32),
        (0, 5, math.nan, F32), (0, 5, math.inf, F32), (0, 5, math.inf, I32), (0, 5, math.inf, I64),
        (0, 1, 0.1, F32), (0, 1, 0.1, F64), (0, 1, 0.1, F16), (0, 1, 0.1, BF16),
        (0, 300, 1, torch.uint8), (-5, 5, 3, torch.uint8), (0, 1e20, 1e19, I64), (0, 1e20, 1e19, I32),
        (0, 2**62, 2**60, I64), (0, 10, 3, torch.int8), (0, 200, 50, torch.int8), (True, 4, 1, I64),
        (0, 5, 1e-300, F32), (1, 3.0000001, 1, F32), (0, 0.3, 0.1, F64), (0, 0.3, 0.1, F32),
        (0, 0.30000001, 0.1, F32), (0, 5, 2**40, I32), (0, 3e9, 1e9, I32), (0, 3.5, 0.5, I64),
        (0, -3.5, -0.5, I64), (1, -3, -1.5, I64), (1, -3, -1.5, torch.int16), (-3, 3, 0.25, F16),
        (0, 70, 1, F16), (10, -10, -0.75, F32), (-2.5, 2.5, 0.5, BF16), (0, 1e39, 1e38, F16),
        (0, 5, 1e39, F16), (0, 100000, 9999, torch.int16), (2**53, 2**53 + 10, 3, I64),
        (-(2**62), 2**62, 2**61, I64), (0, 20, 1, F32), (3, 40, 7, F64), (0, 1, 1, F64),
    ]
    for k, (start, end, step, d) in enumerate(specs):
        args = [scalar_arg(start), scalar_arg(end), scalar_arg(step)]
        case(f"arange_{k}_{d}", "aten::arange.start_out", args,
             lambda: A.arange.start_out(start, end, step, out=torch.empty(0, dtype=d)), out_dtypes=[d])
    for d in ALL_DTYPES:
        case(f"arange_dtype_{d}", "aten::arange.start_out", [("i", 1), ("i", 7), ("i", 2)],
             lambda: A.arange.start_out(1, 7, 2, out=torch.empty(0, dtype=d)), out_dtypes=[d])
    # Signed overflow in PyTorch's int64 size computation: refused here.
    case("arange_long_size_overflow", "aten::arange.start_out", [("i", -(2**63)), ("i", 2**63 - 1), ("i", 2**62)],
         lambda: None, out_dtypes=[I64], status="ETR_ERR_INVALID_ARGUMENT")


def gen_constant_pad():
    x = values(F32, 2, 3)
    pads = [[1, 1], [1], [1, 1, 1, 1, 1, 1], [-1, 0, 0, -1], [-3, 0], [-4, 0], [-2, -1], [-2, 3], [], [0, 0],
            [2, 0, 0, 3], [-1, 2, 1, -1], [-2, -2], [3, -4], [-(2**63), 0], [2**62, 2**62], [0, 0, 5, -2]]
    for k, pad in enumerate(pads):
        case(f"constant_pad_{k}", "aten::constant_pad_nd.out", [("t", x), ("ints", pad), ("f", 1.5)],
             lambda: A.constant_pad_nd(x, pad, 1.5))
    y = values(F32, 2, 3, 2, 2)
    case("constant_pad_4d", "aten::constant_pad_nd.out", [("t", y), ("ints", [1, 0, 0, 2, 1, 1]), ("i", -2)],
         lambda: A.constant_pad_nd(y, [1, 0, 0, 2, 1, 1], -2))
    for d in ALL_DTYPES:
        z = values(d, 2, 3)
        case(f"constant_pad_{d}", "aten::constant_pad_nd.out", [("t", z), ("ints", [1, 2, 0, 1]), ("i", 1)],
             lambda: A.constant_pad_nd(z, [1, 2, 0, 1], 1))
    value_specs = [(torch.uint8, 300), (torch.uint8, -1), (torch.uint8, -2.5), (I32, 2.5), (torch.bool, 5),
                   (F16, 1e6), (I32, math.nan), (I32, math.inf), (F32, 1e40), (torch.int8, -129), (torch.int8, 127.9),
                   (torch.uint8, -255), (torch.uint8, -256), (F32, True), (F16, 65519.0), (F16, 65504.0),
                   (BF16, 1e39), (torch.complex64, 2.5), (torch.uint64, 1e19), (I64, 2.0**63), (F64, -math.inf)]
    for k, (d, v) in enumerate(value_specs):
        z = values(d, 2, 3)
        case(f"constant_pad_value_{k}_{d}", "aten::constant_pad_nd.out", [("t", z), ("ints", [1, 0]), scalar_arg(v)],
             lambda: A.constant_pad_nd(z, [1, 0], v))
    # The value is converted only when something is padded, and a single
    # padded Half element is filled unchecked.
    for k, (shape, pad, d, v) in enumerate([((2,), [0, 0], torch.uint8, 300), ((2,), [-1, 0], torch.uint8, 300),
                                            ((0,), [1, 0], F16, 1e40), ((0,), [2, 0], F16, 1e40),
                                            ((1,), [1, -1], F16, 1e40), ((0,), [0, 0], torch.uint8, 300),
                                            ((1, 2), [-1, 1], F16, 1e40)]):
        z = values(d, *shape)
        case(f"constant_pad_unchecked_{k}", "aten::constant_pad_nd.out", [("t", z), ("ints", pad), scalar_arg(v)],
             lambda: A.constant_pad_nd(z, pad, v))
    for k, (shape, pad) in enumerate([((0, 3), [1, 1]), ((0, 3), [1, 1, 1, 1]), ((), []), ((), [1, 1])]):
        z = values(F32, *shape)
        case(f"constant_pad_shape_{k}", "aten::constant_pad_nd.out", [("t", z), ("ints", pad), ("i", 0)],
             lambda: A.constant_pad_nd(z, pad, 0))


def gen_diagonal():
    x = values(F32, 3, 4)
    y = values(F32, 2, 3, 4)
    specs = [(x, 0, 0, 1), (x, 1, 0, 1), (x, -1, 0, 1), (x, 5, 0, 1), (x, -5, 0, 1), (x, 0, 1, 1), (x, 0, 1, -1),
             (x, 2, 1, 0), (x, 2**63 - 1, 0, 1), (x, -(2**63), 0, 1), (x, 3, 0, 1), (x, -3, 0, 1), (x, 0, 2, 0),
             (y, 0, 2, 0), (y, 1, -1, 1), (y, -1, 0, 2), (values(F32, 4), 0, 0, 1), (values(F32, 2, 0, 3), 0, 0, 2),
             (values(F32, 2, 3, 2, 2), 1, 1, 3)]
    for k, (t, off, d1, d2) in enumerate(specs):
        case(f"diagonal_{k}", "aten::diagonal_copy.out", [("t", t), ("i", off), ("i", d1), ("i", d2)],
             lambda: A.diagonal_copy(t, off, d1, d2))
    for d in ALL_DTYPES:
        z = values(d, 3, 3)
        case(f"diagonal_{d}", "aten::diagonal_copy.out", [("t", z), ("i", 0), ("i", 0), ("i", 1)],
             lambda: A.diagonal_copy(z))


def gen_embedding():
    w = values(F32, 5, 3)
    specs = [L(1, 0, 4), L(-1), L(5), I(1, 3), torch.tensor([1], dtype=torch.int16), torch.tensor([1.0]),
             torch.tensor(2), L(1, 0, 4, 4, 2, 3).reshape(2, 3), L(), L(0, 1, 2, 3).reshape(2, 1, 2)]
    for k, idx in enumerate(specs):
        case(f"embedding_{k}", "aten::embedding.out",
             [("t", w), ("t", idx), ("i", -1), ("b", False), ("b", False)], lambda: A.embedding(w, idx))
    for k, weight in enumerate([values(F32, 3), values(F32, 2, 2, 2), values(F32, 0, 3)]):
        idx = L(0) if k < 2 else L()
        case(f"embedding_weight_{k}", "aten::embedding.out",
             [("t", weight), ("t", idx), ("i", -1), ("b", False), ("b", False)], lambda: A.embedding(weight, idx))
    we = values(F32, 0, 3)
    case("embedding_empty_weight_index", "aten::embedding.out",
         [("t", we), ("t", L(0)), ("i", -1), ("b", False), ("b", False)], lambda: A.embedding(we, L(0)))
    case("embedding_padding_idx", "aten::embedding.out",
         [("t", w), ("t", L(1, 0)), ("i", 7), ("b", True), ("b", True)], lambda: A.embedding(w, L(1, 0), 7, True, True))
    for d in ALL_DTYPES:
        z = values(d, 4, 2)
        case(f"embedding_{d}", "aten::embedding.out",
             [("t", z), ("t", L(3, 0, 3)), ("i", -1), ("b", False), ("b", False)], lambda: A.embedding(z, L(3, 0, 3)))


def gen_embedding_bag():
    w = values(F32, 6, 3)

    def bag(name, weight, idx, off, mode=0, psw=None, last=False, pad=-1, out_index_dtype=None, status=None):
        index_dtype = out_index_dtype or (I64 if I64 in (idx.dtype, off.dtype) else I32)
        args = [("t", weight), ("t", idx), ("t", off), ("b", False), ("i", mode), ("b", False),
                ("none",) if psw is None else ("t", psw), ("b", last), ("i", pad)]
        case(f"embedding_bag_{name}", "aten::_embedding_bag.out", args,
             lambda: A._embedding_bag(weight, idx, off, False, mode, False, psw, last, pad),
             out_dtypes=[weight.dtype, index_dtype, index_dtype, index_dtype], status=status)

    idx = L(0, 2, 1, 5, 5, 3)
    for mode in (0, 1, 2):
        m = ["sum", "mean", "max"][mode]
        bag(f"{m}_basic", w, idx, L(0, 2), mode)
        bag(f"{m}_last", w, idx, L(0, 2, 6), mode, last=True)
        bag(f"{m}_last_short", w, idx, L(0, 2, 4), mode, last=True)
        bag(f"{m}_empty_bag", w, idx, L(0, 2, 2, 6), mode)
        bag(f"{m}_padding", w, idx, L(0, 2), mode, pad=5)
        bag(f"{m}_padding_all", w, L(5, 5, 1), L(0, 2), mode, pad=5)
        bag(f"{m}_padding_neg", w, idx, L(0, 2), mode, pad=-3)
        bag(f"{m}_padding_big", w, idx, L(0, 2), mode, pad=10)
        bag(f"{m}_last_short_pad", w, idx, L(0, 2, 4), mode, last=True, pad=1)
        bag(f"{m}_int32", w, I(0, 2, 1), I(0, 1), mode)
        bag(f"{m}_mixed", w, I(0, 2, 1), L(0, 1), mode)
        bag(f"{m}_mixed2", w, L(0, 2, 1), I(0, 1), mode)
        bag(f"{m}_empty_indices", w, L(), L(0, 0), mode)
        bag(f"{m}_oob", w, L(0, 6), L(0), mode)
        bag(f"{m}_neg_index", w, L(0, -1), L(0), mode)
        bag(f"{m}_first_offset", w, L(0, 2, 1), L(1, 2), mode)
        bag(f"{m}_offset_past_end", w, L(0, 2, 1), L(0, 5), mode)
        bag(f"{m}_last_no_offsets", w, idx, L(), mode, last=True)
        bag(f"{m}_one_bag_last", w, L(), L(0), mode, last=True)
        bag(f"{m}_nan", torch.tensor([[1.0, math.nan], [2.0, 0.0], [math.nan, 3.0]]), L(0, 1, 2), L(0), mode)
        bag(f"{m}_ties", torch.tensor([[1.0, 2.0], [1.0, 3.0], [0.0, 3.0], [-0.0, 0.0]]), L(0, 1, 2, 3, 3), L(0, 3),
            mode)
        bag(f"{m}_zero_cols", values(F32, 4, 0), L(1, 2), L(0), mode)
        bag(f"{m}_empty_weight", values(F32, 0, 3), L(), L(0), mode)
        for d in (F16, BF16, F64):
            bag(f"{m}_{d}", values(d, 6, 3), idx, L(0, 2, 3), mode)
            bag(f"{m}_{d}_last_short", values(d, 6, 3), idx, L(0, 2, 4), mode, last=True)
            bag(f"{m}_{d}_padding", values(d, 6, 3), idx, L(0, 3), mode, pad=5)
        big_idx = torch.randint(0, 20, (60,), generator=GEN)
        big_off = torch.tensor(sorted(set([0] + torch.randint(0, 61, (12,), generator=GEN).tolist())))
        bag(f"{m}_random", values(F32, 20, 5), big_idx, big_off, mode)
        bag(f"{m}_random_half", values(F16, 20, 5), big_idx, big_off, mode)
    for d in (F32, F16, BF16, F64):
        psw = values(d, 6)
        bag(f"psw_{d}", values(d, 6, 3), idx, L(0, 2), 0, psw=psw)
        bag(f"psw_{d}_padding", values(d, 6, 3), idx, L(0, 2), 0, psw=psw, pad=5)
        bag(f"psw_{d}_last", values(d, 6, 3), idx, L(0, 2, 6), 0, psw=psw, last=True)
    bag("psw_mean", w, idx, L(0, 2), 1, psw=values(F32, 6))
    bag("psw_wrong_dtype", w, idx, L(0, 2), 0, psw=values(F64, 6))
    bag("psw_wrong_size", w, idx, L(0, 2), 0, psw=values(F32, 5))
    bag("bad_mode", w, idx, L(0, 2), 3)
    bag("neg_mode", w, idx, L(0, 2), -1)
    bag("weight_1d", values(F32, 6), idx, L(0, 2), 0)
    bag("offsets_2d", w, idx, L(0, 2).reshape(1, 2), 0)
    bag("indices_0d", w, torch.tensor(1), L(0), 0)
    # PyTorch's fast path returns uninitialized rows or fails, depending on
    # its thread count, for decreasing offsets; the kernel refuses them.
    bag("decreasing_fast", w, L(0, 2, 1), L(0, 2, 1), 0, status="ETR_ERR_INVALID_ARGUMENT")
    bag("decreasing_slow", values(F64, 6, 3), L(0, 2, 1), L(0, 2, 1), 0)
    bag("decreasing_mean_slow", values(F64, 6, 3), L(0, 2, 1, 4), L(0, 3, 1), 1)
    bag("index_float", w, torch.tensor([0.0, 1.0]), L(0), 0, out_index_dtype=I64)
    for d in ALL_DTYPES:
        if d.is_floating_point:
            continue
        bag(f"weight_{d}", values(d, 6, 3), idx, L(0, 2), 0)


def gen_empty():
    for k, size in enumerate([[2, 3], [], [0], [4, 0, 2], [1, 2, 3, 4], [-2], [7]]):
        case(f"empty_{k}", "aten::empty.out", [("ints", size), ("none",)],
             lambda: torch.zeros(size, dtype=F32) if min(size, default=0) >= 0 else A.empty.out(size, out=torch.empty(0)),
             out_dtypes=[F32])
    for d in ALL_DTYPES:
        case(f"empty_{d}", "aten::empty.out", [("ints", [3, 2]), ("none",)], lambda: torch.zeros(3, 2, dtype=d),
             out_dtypes=[d])
    # Programs reach empty.out from empty.memory_format, whose rules apply
    # (PyTorch's own empty.out refuses any memory_format with an out).
    for fmt, number in MEMORY_FORMATS.items():
        for size in ([1, 2, 1, 1], [2, 3], [1, 2, 1, 1, 3], []):
            def run():
                A.empty.memory_format(size, memory_format=fmt)
                return torch.zeros(size)
            case(f"empty_memory_format_{number}_{len(size)}", "aten::empty.out", [("ints", size), ("i", number)],
                 run, out_dtypes=[F32])
    specs = [([2, 3], [1, 2]), ([2, 3], [3, 1]), ([2, 3], [-1, 2]), ([2, 3], [1]), ([-2, 3], [1, 1]), ([], []),
             ([0, 4], [0, 0]), ([3], [2**62]), ([3, 3], [2**62, 2**62])]
    for k, (size, stride) in enumerate(specs):
        def run():
            A.empty_strided.out(size, stride, out=torch.empty(0))
            return torch.zeros(size)
        case(f"empty_strided_{k}", "aten::empty_strided.out", [("ints", size), ("ints", stride)], run,
             out_dtypes=[F32])
    for d in ALL_DTYPES:
        case(f"empty_strided_{d}", "aten::empty_strided.out", [("ints", [2, 2]), ("ints", [2, 1])],
             lambda: torch.zeros(2, 2, dtype=d), out_dtypes=[d])


FILL_VALUES = [300, -1, -129, 128, 2.5, -2.5, -0.5, -0.0, math.nan, math.inf, -math.inf, 1e40, 70000.0, 65520.0,
               65519.0, 3.4e38, 3.5e38, True, False, -256, -255, 2**63 - 1, -(2**63), 1e19, -1e19, 127.9, 255.5,
               9.3e18, 2.0**63]


def gen_fill():
    for d in ALL_DTYPES:
        for k, v in enumerate(FILL_VALUES):
            for shape in [(2, 3), (1,), (0,)]:
                x = values(d, *shape)
                tag = "x".join(str(s) for s in shape)
                case(f"fill_{d}_{k}_{tag}", "aten::fill.Scalar_out", [("t", x), scalar_arg(v)],
                     lambda: A.fill.Scalar(x, v))
            case(f"scalar_tensor_{d}_{k}", "aten::scalar_tensor.out", [scalar_arg(v)],
                 lambda: A.scalar_tensor.out(v, out=torch.empty(0, dtype=d)), out_dtypes=[d])
    x = values(F32, 2, 1, 2, 2)
    case("fill_4d", "aten::fill.Scalar_out", [("t", x), ("f", -3.25)], lambda: A.fill.Scalar(x, -3.25))


def gen_flip():
    x = values(F32, 2, 3, 4)
    for k, dims in enumerate([[0], [1, 2], [-1], [0, 1, 2], [], [0, -3], [3], [2, 0]]):
        case(f"flip_{k}", "aten::flip.out", [("t", x), ("ints", dims)], lambda: A.flip(x, dims))
    for k, (shape, dims) in enumerate([((), [0]), ((), [-1]), ((), []), ((0, 3), [0, 1]), ((2, 3, 2, 2), [1, 3])]):
        z = values(F32, *shape)
        case(f"flip_shape_{k}", "aten::flip.out", [("t", z), ("ints", dims)], lambda: A.flip(z, dims))
    for d in ALL_DTYPES:
        z = values(d, 3, 2)
        for k, dims in enumerate([[0, 1], [0], [1]]):
            if d in WIDE_UNSIGNED:
                # PyTorch flips these only on its memcpy path (a non-last dim
                # of a contiguous tensor); the kernel flips them always.
                fn = lambda: A.flip(z.to(I64), dims).to(d)
            else:
                fn = lambda: A.flip(z, dims)
            case(f"flip_{d}_{k}", "aten::flip.out", [("t", z), ("ints", dims)], fn)


def gen_gather():
    x = values(F32, 3, 4)
    specs = [(x, 1, L(2, 0, 1, 1, 3, 3).reshape(3, 2)), (x, 0, L(2, 0, 1, 1).reshape(1, 4)),
             (x, -1, L(3, 0).reshape(2, 1)), (x, 1, L(-1).reshape(1, 1)), (x, 1, L(4).reshape(1, 1)),
             (x, 1, I(1, 2).reshape(1, 2)), (x, 1, torch.tensor([[1]], dtype=torch.int16)), (x, 1, L(1)),
             (x, 1, L(1, 1, 1, 1).reshape(4, 1)), (x, 0, L(1, 1, 2, 2, 0).reshape(5, 1)),
             (torch.tensor(5.0), 0, torch.tensor(0)), (torch.tensor(5.0), 0, L(0)), (values(F32, 3), 0, torch.tensor(2)),
             (torch.tensor(5.0), 0, L(0, 0)), (torch.tensor(5.0), 0, L(1)), (x, 1, torch.empty(0, 2, dtype=I64)),
             (x, 1, torch.empty(0, 5, dtype=I64)), (x, 1, torch.empty(5, 0, dtype=I64)),
             (x, 1, torch.empty(0, dtype=I64)), (x, 1, torch.empty(0, dtype=torch.int16)),
             (x, 2, L(0).reshape(1, 1)), (x, 1, L(0, 1).reshape(1, 1, 2)),
             (values(F32, 2, 3, 4), 1, L(2, 0, 1, 1, 2, 0).reshape(2, 1, 3))]
    for k, (t, dim, idx) in enumerate(specs):
        case(f"gather_{k}", "aten::gather.out", [("t", t), ("i", dim), ("t", idx), ("b", False)],
             lambda: A.gather(t, dim, idx))
    for d in ALL_DTYPES:
        z = values(d, 3, 2)
        idx = L(2, 0, 1, 1).reshape(2, 2)
        case(f"gather_{d}", "aten::gather.out", [("t", z), ("i", 0), ("t", idx), ("b", True)],
             lambda: A.gather(z, 0, idx))


def gen_index():
    x = values(F32, 2, 3, 4)
    specs = [
        ("none_only", [None]), ("empty_list", []), ("none_none", [None, None]), ("long", [L(1, 0)]),
        ("none_long", [None, L(2, 0)]), ("nonadjacent", [L(1, 0), None, L(3, 1)]), ("adjacent", [None, L(1, 0), L(3, 1)]),
        ("broadcast", [L(1, 0).reshape(2, 1), L(0, 1, 2)]), ("int32", [I(1, 0)]), ("int16", [torch.tensor([1], dtype=torch.int16)]),
        ("float", [torch.tensor([1.0])]), ("negative", [L(-1)]), ("oob", [L(2)]), ("oob_negative", [L(-3)]),
        ("too_many", [None, None, None, L(0)]), ("zero_dim", [torch.tensor(1)]), ("nobroadcast", [L(0, 1), L(0, 1, 2)]),
        ("empty_long", [L()]), ("empty_long_long", [L(), L(0)]), ("zero_dim_none_long", [torch.tensor(1), None, L(0, 1)]),
        ("none_zero_dim", [None, torch.tensor(1)]), ("three", [L(0, 1), L(2, 0), L(3, 3)]),
        ("nonadjacent_2d", [L(0, 1, 1, 0).reshape(2, 2), None, L(3, 2)]), ("last_dim", [None, None, L(3, 0, 3)]),
        ("zero_dim_bool", [torch.tensor(True)]),
    ]
    for name, indices in specs:
        case(f"index_{name}", "aten::index.Tensor_out", [("t", x), ("otl", indices)], lambda: A.index.Tensor(x, indices))
    masks = [
        ("mask", [B(True, False)]), ("mask_2d", [B(True, False, True, False, False, True).reshape(2, 3)]),
        ("mask_wrong_shape", [B(True, False, True, False).reshape(2, 2)]), ("none_mask", [None, B(True, False, True)]),
        ("mask_long", [B(True, True), L(0, 2)]), ("mask_long_broadcast", [B(False, True), L(0, 2)]),
        ("long_none_mask", [L(1), None, B(True, False, True, True)]), ("uint8", [torch.tensor([1, 0], dtype=torch.uint8)]),
        ("empty_mask", [B(False, False)]), ("two_masks_nonadjacent", [B(True, True), None, B(True, False, True, False)]),
        ("mask_none_long", [B(True, True), None, L(0, 1)]), ("mask_3d", [values(torch.bool, 2, 3, 4)]),
        ("mask_long_2d", [None, B(True, False, True), L(0, 3).reshape(2, 1)]),
        ("mask_count1_broadcast", [B(False, True), L(0, 1, 2)]), ("long_mask_2d", [L(1, 0, 1), B(True, False, True, True, False, True, True, False, True, True, True, False).reshape(3, 4)]),
    ]
    for name, indices in masks:
        case(f"index_{name}", "aten::index.Tensor_out", [("t", x), ("otl", indices)],
             lambda: A.index.Tensor(x, indices), data_dependent=True)
    s = torch.tensor(5.0)
    for name, indices in [("scalar_bool", [torch.tensor(True)]), ("scalar_long", [L(0)]), ("scalar_none", [None])]:
        case(f"index_{name}", "aten::index.Tensor_out", [("t", s), ("otl", indices)], lambda: A.index.Tensor(s, indices))
    e = values(F32, 0, 3)
    for name, indices in [("empty_self", [None, L(1)]), ("empty_self_oob", [L(0)]), ("empty_self_empty", [L()])]:
        case(f"index_{name}", "aten::index.Tensor_out", [("t", e), ("otl", indices)], lambda: A.index.Tensor(e, indices))
    for d in ALL_DTYPES:
        z = values(d, 3, 4)
        indices = [L(2, 0), None]
        case(f"index_{d}", "aten::index.Tensor_out", [("t", z), ("otl", indices)], lambda: A.index.Tensor(z, indices))
        mask = [None, B(True, False, False, True)]
        case(f"index_mask_{d}", "aten::index.Tensor_out", [("t", z), ("otl", mask)], lambda: A.index.Tensor(z, mask),
             data_dependent=True)


def gen_index_select():
    x = values(F32, 3, 4)
    specs = [(x, 1, L(2, 0)), (x, 1, L(-1)), (x, 1, L(4)), (x, 0, I(1, 1, 2)), (x, 1, torch.tensor([1], dtype=torch.int16)),
             (x, 1, L(1, 1).reshape(1, 2)), (x, 1, torch.tensor(2)), (torch.tensor(5.0), 0, L(0)),
             (torch.tensor(5.0), 0, L(0, 0)), (torch.tensor(5.0), 0, L(1)), (torch.tensor(5.0), 0, L(-1)),
             (torch.tensor(5.0), 0, L()), (torch.tensor(5.0), -1, torch.tensor(0)), (x, 1, L()),
             (values(F32, 0, 3), 1, L(1)), (values(F32, 2, 0), 1, L(0)), (values(F32, 2, 0), 1, L()),
             (x, 2, L(0)), (values(F32, 2, 3, 2, 2), 1, L(2, 2, 0, 1))]
    for k, (t, dim, idx) in enumerate(specs):
        case(f"index_select_{k}", "aten::index_select.out", [("t", t), ("i", dim), ("t", idx)],
             lambda: A.index_select(t, dim, idx))
    for d in ALL_DTYPES:
        z = values(d, 3, 2)
        case(f"index_select_{d}", "aten::index_select.out", [("t", z), ("i", 0), ("t", L(2, 0, 2))],
             lambda: A.index_select(z, 0, L(2, 0, 2)))


def gen_pads():
    ops = [("reflection_pad1d", 1, A.reflection_pad1d), ("reflection_pad2d", 2, A.reflection_pad2d),
           ("reflection_pad3d", 3, A.reflection_pad3d), ("replication_pad2d", 2, A.replication_pad2d),
           ("replication_pad3d", 3, A.replication_pad3d)]
    for name, k, fn in ops:
        op = f"aten::{name}.out"
        spatial = [3, 4, 5][-k:] if k > 1 else [4]
        for batch in ([], [2], [0]):
            shape = [*batch, 2, *spatial]
            x = values(F32, *shape)
            for j, pad in enumerate([[1] * (2 * k), [2, 0] * k, [0, 1] * k, [-1, 2] * k, [2, -1] * k,
                                     [-1, -1] * k, [3, 3] * k, [1] * (2 * k - 1), [0] * (2 * k)]):
                tag = f"{name}_b{len(batch)}{''.join(str(b) for b in batch)}_{j}"
                case(tag, op, [("t", x), ("ints", pad)], lambda: fn(x, pad))
        x = values(F32, 1, 2, *spatial)
        for j, shape in enumerate([[2, *spatial], [1, 1, 2, *spatial], [1, 0, *spatial], spatial,
                                   [1, 2, *spatial[:-1], 0], [1, 2, *([1] * k)]]):
            z = values(F32, *shape)
            case(f"{name}_shape_{j}", op, [("t", z), ("ints", [0, 1] * k)], lambda: fn(z, [0, 1] * k))
        # Exhaustive small pads on the last dim.
        w = values(F32, 1, 1, *([2] * (k - 1)), 3)
        for before in range(-4, 5):
            for after in range(-4, 5):
                pad = [before, after] + [0] * (2 * k - 2)
                case(f"{name}_w_{before}_{after}".replace("-", "m"), op, [("t", w), ("ints", pad)],
                     lambda: fn(w, pad))
        if k >= 2:
            for j, pad in enumerate([[-3, 0] + [0, 0] * (k - 1), [-3, 0, -2, 0] + [0, 0] * (k - 2),
                                     [0, 0] * (k - 1) + [-2, 0], [-3, 0] + [-2, 0] * (k - 1)]):
                z = values(F32, 1, 1, *([2] * (k - 1)), 3)
                case(f"{name}_zero_{j}", op, [("t", z), ("ints", pad)], lambda: fn(z, pad))
        huge = [2**62, 2**62] + [0, 0] * (k - 1)
        case(f"{name}_huge", op, [("t", x), ("ints", huge)], lambda: fn(x, huge))
        for d in ALL_DTYPES:
            z = values(d, 1, 2, *spatial)
            pad = [1, 2] * k
            case(f"{name}_{d}", op, [("t", z), ("ints", pad)], lambda: fn(z, pad))


def gen_repeat():
    specs = [((3,), [2, 2]), ((1, 2, 3), [2, 2]), ((1, 2, 3), [1, -1, 1]), ((1, 2, 3), [1, 0, 1]), ((), []),
             ((), [2, 3]), ((1, 2, 3), []), ((0, 2), [2, 3]), ((2, 3), [1, 1]), ((2, 1, 2), [2, 1, 3, 1]),
             ((2,), [2**62, 4]), ((2, 2), [3, 1])]
    for k, (shape, reps) in enumerate(specs):
        x = values(F32, *shape)
        case(f"repeat_{k}", "aten::repeat.out", [("t", x), ("ints", reps)], lambda: A.repeat(x, reps))
    for d in ALL_DTYPES:
        z = values(d, 2, 2)
        case(f"repeat_{d}", "aten::repeat.out", [("t", z), ("ints", [1, 2, 2])], lambda: A.repeat(z, [1, 2, 2]))


def gen_scatter():
    x = values(F32, 3, 4)
    src = values(F32, 3, 4)
    shapes = [
        ("basic", 1, L(3, 0, 1, 2).reshape(2, 2), src), ("dim0", 0, L(2, 0, 1, 1).reshape(1, 4), src),
        ("int32", 1, I(1).reshape(1, 1), src), ("int16", 1, torch.tensor([[1]], dtype=torch.int16), src),
        ("negative", 1, L(-1).reshape(1, 1), src), ("oob", 1, L(4).reshape(1, 1), src),
        ("src_dtype", 1, L(1).reshape(1, 1), src.double()), ("index_too_big", 1, L(1, 1, 1, 1, 1).reshape(1, 5), src),
        ("index_too_big_other", 1, L(1, 1, 1, 1).reshape(4, 1), src),
        ("index_bigger_than_src", 1, L(1, 1, 1).reshape(1, 3), src[:, :2].contiguous()),
        ("rank", 1, L(1), src), ("src_rank", 1, L(1).reshape(1, 1), values(F32, 3)),
        ("src_rank_higher", 1, L(1).reshape(1, 1), values(F32, 3, 4, 1)),
        ("empty_index", 1, torch.empty(0, 2, dtype=I64), src), ("empty_index_rank", 1, torch.empty(0, dtype=I64), src),
        ("empty_index_oob_shape", 1, torch.empty(0, 9, dtype=I64), src),
        ("empty_index_int16", 1, torch.empty(0, 2, dtype=torch.int16), src),
        ("empty_index_src_dtype", 1, torch.empty(0, 2, dtype=I64), src.double()),
        ("dup", 1, L(0, 0, 0, 2, 2, 2).reshape(2, 3), src), ("bad_dim", 2, L(0).reshape(1, 1), src),
        ("src_0dim", 1, L(1).reshape(1, 1), torch.tensor(2.0)),
    ]
    for name, dim, idx, s in shapes:
        case(f"scatter_src_{name}", "aten::scatter.src_out", [("t", x), ("i", dim), ("t", idx), ("t", s)],
             lambda: A.scatter.src(x, dim, idx, s))
        case(f"scatter_add_{name}", "aten::scatter_add.out", [("t", x), ("i", dim), ("t", idx), ("t", s)],
             lambda: A.scatter_add(x, dim, idx, s))
        case(f"scatter_value_{name}", "aten::scatter.value_out", [("t", x), ("i", dim), ("t", idx), ("f", -1.5)],
             lambda: A.scatter.value(x, dim, idx, -1.5))
    t0 = torch.tensor(1.0)
    for name, idx, s in [("0dim", torch.tensor(0), torch.tensor(5.0)), ("0dim_idx1d", L(0), torch.tensor(5.0)),
                         ("0dim_idx1d_src1d", L(0), torch.tensor([5.0])), ("0dim_oob", L(1), torch.tensor([5.0]))]:
        case(f"scatter_src_{name}", "aten::scatter.src_out", [("t", t0), ("i", 0), ("t", idx), ("t", s)],
             lambda: A.scatter.src(t0, 0, idx, s))
        case(f"scatter_add_{name}", "aten::scatter_add.out", [("t", t0), ("i", 0), ("t", idx), ("t", s)],
             lambda: A.scatter_add(t0, 0, idx, s))
    # scatter.value conversions
    for d, v in [(torch.uint8, 300), (torch.uint8, -2.5), (F16, 1e40), (I32, math.nan), (I64, -1.5), (torch.bool, 2.5),
                 (F16, 65519.0), (torch.uint8, -1)]:
        z = values(d, 2)
        case(f"scatter_value_convert_{d}_{v}", "aten::scatter.value_out", [("t", z), ("i", 0), ("t", L(0)), scalar_arg(v)],
             lambda: A.scatter.value(z, 0, L(0), v))
        case(f"scatter_value_convert_empty_{d}_{v}", "aten::scatter.value_out",
             [("t", z), ("i", 0), ("t", L()), scalar_arg(v)], lambda: A.scatter.value(z, 0, L(), v))
    z1 = values(F16, 1)
    case("scatter_value_half_single", "aten::scatter.value_out", [("t", z1), ("i", 0), ("t", L(0)), ("f", 1e40)],
         lambda: A.scatter.value(z1, 0, L(0), 1e40))
    # Reductions: a 3-D case with many collisions, every reduction, both
    # include_self settings, and dtypes.
    y = values(F32, 2, 4, 3)
    idx = torch.randint(0, 4, (2, 5, 3), generator=GEN)
    s = values(F32, 2, 5, 3)
    for reduce in ["sum", "prod", "mean", "amax", "amin"]:
        for include_self in (True, False):
            case(f"scatter_reduce_{reduce}_{include_self}", "aten::scatter_reduce.two_out",
                 [("t", y), ("i", 1), ("t", idx), ("t", s), ("s", reduce), ("b", include_self)],
                 lambda: A.scatter_reduce.two(y, 1, idx, s, reduce, include_self=include_self))
            for d in ALL_DTYPES:
                yd, sd = values(d, 3, 4), values(d, 5, 4)
                idd = torch.randint(0, 3, (5, 4), generator=GEN)
                case(f"scatter_reduce_{reduce}_{include_self}_{d}", "aten::scatter_reduce.two_out",
                     [("t", yd), ("i", 0), ("t", idd), ("t", sd), ("s", reduce), ("b", include_self)],
                     lambda: A.scatter_reduce.two(yd, 0, idd, sd, reduce, include_self=include_self))
            for name, yy, ss, ii in [
                    ("nan", torch.tensor([10.0, math.nan, 10.0]), torch.tensor([math.nan, 2.0, -7.0, 1.0]), L(0, 0, 1, 1)),
                    ("negzero", torch.tensor([0.0, -0.0, 1.0]), torch.tensor([-0.0, 0.0, -0.0]), L(0, 1, 2)),
                    ("int_floor", L(10, 10, 10, -3), L(1, 2, -7, -8), L(0, 0, 1, 3)),
                    ("int8_wrap", torch.tensor([100, 0], dtype=torch.int8), torch.tensor([100, 100, -128], dtype=torch.int8),
                     L(0, 0, 1)),
                    ("uint8_mean", torch.tensor([200, 0], dtype=torch.uint8), torch.tensor([200, 200], dtype=torch.uint8),
                     L(0, 0)),
                    ("half_acc", torch.tensor([2048.0, 1.0, 3.0], dtype=F16), torch.tensor([1.0, 1.0, 1.0, 0.3], dtype=F16),
                     L(0, 0, 0, 1)),
                    ("bool", B(False, True, True), B(True, False, False, True), L(0, 0, 1, 2)),
                    ("empty_index", torch.tensor([1.0, 2.0]), torch.tensor([3.0]), L())]:
                case(f"scatter_reduce_{reduce}_{include_self}_{name}", "aten::scatter_reduce.two_out",
                     [("t", yy), ("i", 0), ("t", ii), ("t", ss), ("s", reduce), ("b", include_self)],
                     lambda: A.scatter_reduce.two(yy, 0, ii, ss, reduce, include_self=include_self))
    for reduce in ["max", "min", "foo", "", "SUM"]:
        case(f"scatter_reduce_bad_{reduce}", "aten::scatter_reduce.two_out",
             [("t", y), ("i", 1), ("t", idx), ("t", s), ("s", reduce), ("b", True)],
             lambda: A.scatter_reduce.two_out(y, 1, idx, s, reduce, out=torch.empty(0)))
    for d in ALL_DTYPES:
        z, sz = values(d, 3, 4), values(d, 2, 4)
        iz = torch.tensor([[2, 0, 1, 1], [0, 1, 2, 2]])
        case(f"scatter_src_{d}", "aten::scatter.src_out", [("t", z), ("i", 0), ("t", iz), ("t", sz)],
             lambda: A.scatter.src(z, 0, iz, sz))
        case(f"scatter_add_{d}", "aten::scatter_add.out", [("t", z), ("i", 0), ("t", iz), ("t", sz)],
             lambda: A.scatter_add(z, 0, iz, sz))
        case(f"scatter_value_{d}", "aten::scatter.value_out", [("t", z), ("i", 0), ("t", iz), ("i", 1)],
             lambda: A.scatter.value(z, 0, iz, 1))


def gen_select_scatter():
    x = values(F32, 3, 4)
    specs = [(x, values(F32, 3), 1, -1), (x, values(F64, 3), 1, 0), (x, values(I64, 3), 1, 2),
             (x, values(F32, 4), 1, -1), (x, values(F32, 3), 1, 4), (x, values(F32, 3), 1, -5),
             (x, values(F32, 1), 1, 0), (x, values(F32, 4), 0, 2), (x, values(F32, 4), -2, -3),
             (torch.tensor(1.0), torch.tensor(2.0), 0, 0), (x, values(F32, 3), 2, 0),
             (values(F32, 0, 3), values(F32, 0), 1, 1), (values(F32, 2, 3, 2, 2), values(F32, 2, 2, 2), 1, 1),
             (x, values(torch.bool, 3), 1, 1), (x, values(torch.complex64, 3), 1, 1)]
    for k, (t, s, dim, index) in enumerate(specs):
        case(f"select_scatter_{k}", "aten::select_scatter.out", [("t", t), ("t", s), ("i", dim), ("i", index)],
             lambda: A.select_scatter(t, s, dim, index))
    for d in ALL_DTYPES:
        z, sz = values(d, 2, 3), values(d, 3)
        case(f"select_scatter_{d}", "aten::select_scatter.out", [("t", z), ("t", sz), ("i", 0), ("i", 1)],
             lambda: A.select_scatter(z, sz, 0, 1))


def gen_squeeze():
    specs = [((1, 3), 0), ((2, 3), 0), ((), -1), ((), 0), ((2, 3), 2), ((2, 1, 3), -2), ((1,), 0), ((1, 1), 1),
             ((0, 1), 1), ((2, 1, 2, 2), 1)]
    for k, (shape, dim) in enumerate(specs):
        x = values(F32, *shape)
        case(f"squeeze_dim_{k}", "aten::squeeze_copy.dim_out", [("t", x), ("i", dim)],
             lambda: A.squeeze_copy.dim(x, dim))
    for d in ALL_DTYPES:
        z = values(d, 3, 1)
        case(f"squeeze_dim_{d}", "aten::squeeze_copy.dim_out", [("t", z), ("i", 1)], lambda: A.squeeze_copy.dim(z, 1))


GENERATORS = [gen_alias_copy, gen_as_strided, gen_arange, gen_constant_pad, gen_diagonal, gen_embedding,
              gen_embedding_bag, gen_empty, gen_fill, gen_flip, gen_gather, gen_index, gen_index_select, gen_pads,
              gen_repeat, gen_scatter, gen_select_scatter, gen_squeeze]


def render():
    w = Writer()
    rows = []
    for name, op, args, status, expect_values, outs, data_dependent, layouts in CASES:
        assert len(args) <= 10 and len(outs) <= 4, name
        literal_args = ", ".join(w.arg(a) for a in args)
        literal_outs = ", ".join(w.tensor(o) for o in outs)
        rows.append(f'    {{"{name}", "{op}", {status}, {str(expect_values).lower()}, '
                    f'{str(data_dependent).lower()}, {str(layouts).lower()}, {len(args)}, {{{literal_args}}}, '
                    f'{len(outs)}, {{{literal_outs}}}}},')
    return f"""// SPDX-License-Identifier: Apache-2.0
//
// Generated by {GENERATOR} from PyTorch {torch.__version__.split('+')[0]}
// (seed {SEED}); do not edit. {len(CASES)} cases of the movement family:
// arguments, the expected status and, when PyTorch computes a result, the
// expected outs.
#ifndef ETR_OPS_REFERENCE_TEST_GENERATED_MOVEMENT_CASES_H
#define ETR_OPS_REFERENCE_TEST_GENERATED_MOVEMENT_CASES_H

#include "core/error.h"
#include "ops_reference/test/case_types.h"

typedef struct movement_case {{
  const char *name;
  const char *op;
  etr_error_t status;
  bool expect_values;
  bool data_dependent;  // out shape depends on tensor values (masks)
  bool layouts;         // also run with non-contiguous/channels-last inputs
  size_t num_args;
  sweep_arg_t args[10];
  size_t num_outs;
  tt_case_tensor_t outs[4];
}} movement_case_t;

{chr(10).join(w.arrays)}

static const movement_case_t kMovementCases[] = {{
{chr(10).join(rows)}
}};

#endif  // ETR_OPS_REFERENCE_TEST_GENERATED_MOVEMENT_CASES_H
"""


def main():
    check = "--check" in sys.argv[1:]
    torch.set_num_threads(1)
    for generator in GENERATORS:
        generator()
    text = render()
    old = open(OUT_PATH).read() if os.path.exists(OUT_PATH) else None
    if check:
        if old != text:
            print(f"out of date: {OUT_PATH} (run {GENERATOR})")
            return 1
        return 0
    if old != text:
        with open(OUT_PATH, "w") as f:
            f.write(text)
    print(f"{len(CASES)} cases -> {OUT_PATH}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
