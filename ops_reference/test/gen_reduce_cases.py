#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Generates the cases of the "reduce" family kernel tests (reductions,
scans, sorting, distances, data-dependent and random ops) with PyTorch
eager as the oracle.

Every case calls the out variant itself (torch.ops.aten.<op>.<overload>
with out tensors of the dtypes the case names, by default the dtypes the
functional op returns) on inputs drawn from a seeded torch.Generator, and
records either the outs or, when PyTorch raises, the etref error code the
exception maps to (classify() below). Values are written as exact decimal
round-trips of the doubles holding each element, so the C test reads what
PyTorch saw. Random ops (rand, randn, randperm, dropout in training) only
have their shapes and errors recorded: their values come from etref's own
generator and are tested for determinism and distribution by hand.

Sort and topk order equal values the way PyTorch's CPU kernels happen to
(libstdc++'s std::sort, std::partial_sort and std::nth_element), which
etref reproduces (support/reduce_sort.h). The generator carries a Python
port of those algorithms and asserts, before writing anything, that
PyTorch's indices equal the port's on every sort/topk case and on
thousands of random tie-heavy slices (fuzz_order), so the C port is held
to what PyTorch really does.

Output: ops_reference/test/generated/reduce_family_cases.h.
Usage (from the repository root):
    .venv/bin/python ops_reference/test/gen_reduce_cases.py          # rewrite
    .venv/bin/python ops_reference/test/gen_reduce_cases.py --check  # compare
"""

import math
import os
import sys
import warnings

import torch

A = torch.ops.aten
SEED = 20240611
OUT_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "generated",
                        "reduce_family_cases.h")
GENERATOR = "ops_reference/test/gen_reduce_cases.py"

# torch dtype -> (etref enum name, ScalarType number).
DTYPES = {
    torch.uint8: ("ETR_BYTE", 0), torch.int8: ("ETR_CHAR", 1), torch.int16: ("ETR_SHORT", 2),
    torch.int32: ("ETR_INT", 3), torch.int64: ("ETR_LONG", 4), torch.float16: ("ETR_HALF", 5),
    torch.float32: ("ETR_FLOAT", 6), torch.float64: ("ETR_DOUBLE", 7),
    torch.complex64: ("ETR_COMPLEX_FLOAT", 9), torch.complex128: ("ETR_COMPLEX_DOUBLE", 10),
    torch.bool: ("ETR_BOOL", 11), torch.bfloat16: ("ETR_BFLOAT16", 15),
    torch.uint16: ("ETR_UINT16", 27), torch.uint32: ("ETR_UINT32", 28),
    torch.uint64: ("ETR_UINT64", 29),
}
ALL = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64, torch.float16,
       torch.bfloat16, torch.float32, torch.float64, torch.complex64, torch.complex128,
       torch.uint16, torch.uint32, torch.uint64]
FLOATING = [torch.float16, torch.bfloat16, torch.float32, torch.float64]
COMPLEX = [torch.complex64, torch.complex128]
NAN = float("nan")
INF = float("inf")

# The functional overload whose result dtypes are the default out dtypes.
FUNCTIONAL = {
    "amax.out": A.amax.default, "amin.out": A.amin.default, "any.dims_out": A.any.dims,
    "any.out": A.any.dim, "any.all_out": A.any.default, "argmax.out": A.argmax.default, "argmin.out": A.argmin.default,
    "max.dim_max": A.max.dim, "min.dim_min": A.min.dim, "mean.dtype_out": A.mean.default,
    "prod.int_out": A.prod.dim_int, "prod.out": A.prod.default,
    "var.correction_out": A.var.correction, "var.out": A.var.dim, "cumsum.out": A.cumsum.default,
    "sort.values": A.sort.default, "topk.values": A.topk.default,
    "_cdist_forward.out": A._cdist_forward.default, "_pdist_forward.out": A._pdist_forward.default,
    "nonzero.out": A.nonzero.default, "native_dropout.out": A.native_dropout.default,
}

# Out dtypes when the functional op refuses the inputs (the out variant is
# then called with these to record its own refusal).
FALLBACK_OUTS = {
    "argmax.out": lambda d: [torch.int64], "argmin.out": lambda d: [torch.int64],
    "nonzero.out": lambda d: [torch.int64],
    "any.dims_out": lambda d: [torch.bool], "any.out": lambda d: [torch.bool],
    "any.all_out": lambda d: [torch.bool],
    "max.dim_max": lambda d: [d, torch.int64], "min.dim_min": lambda d: [d, torch.int64],
    "sort.values": lambda d: [d, torch.int64], "topk.values": lambda d: [d, torch.int64],
    "native_dropout.out": lambda d: [d, torch.bool],
}


def resolve(name):
    base, overload = name.split(".")
    return getattr(getattr(A, base), overload)


def classify(error):
    """The etref code for a PyTorch refusal: NotSupported for a dtype the
    op does not implement, InvalidArgument for everything else (mean's
    "could not infer output dtype" included, as aten::mean.out has it)."""
    text = str(error)
    if isinstance(error, NotImplementedError):
        return "ETR_ERR_NOT_SUPPORTED"
    for phrase in ("not implemented for", "does not support", "only supports floating",
                   "only support floating", "Unsupported dtype"):
        if phrase in text:
            return "ETR_ERR_NOT_SUPPORTED"
    return "ETR_ERR_INVALID_ARGUMENT"


def c_double(x):
    if math.isnan(x):
        return "NAN"
    if math.isinf(x):
        return "INFINITY" if x > 0 else "-INFINITY"
    text = repr(float(x))
    return text if ("." in text or "e" in text) else text + ".0"


class Writer:
    def __init__(self):
        self.arrays = []
        self.counter = 0

    def tensor(self, t):
        if t is None:
            return "{false, ETR_FLOAT, 0, {0}, 0, NULL}"
        t = t.detach().contiguous()
        assert t.dim() <= 6
        if t.is_complex():
            flat = torch.view_as_real(t).reshape(-1).double().tolist()
        elif t.dtype in (torch.uint64, torch.int64):
            flat = [float(v) for v in t.reshape(-1).tolist()]
            assert all(abs(v) < 2 ** 53 for v in flat)
        else:
            flat = t.reshape(-1).double().tolist()
        name = f"k_reduce_family_values_{self.counter}"
        self.counter += 1
        values = [c_double(v) for v in flat] or ["0.0"]
        lines = [", ".join(values[i:i + 4]) for i in range(0, len(values), 4)]
        self.arrays.append(f"static const double {name}[] = {{\n    " + ",\n    ".join(lines) + "};")
        sizes = ", ".join(str(s) for s in t.shape) or "0"
        return f"{{true, {DTYPES[t.dtype][0]}, {t.dim()}, {{{sizes}}}, {len(flat)}, {name}}}"

    def arg(self, value):
        none = self.tensor(None)
        if isinstance(value, torch.Tensor):
            return f"{{SW_TENSOR, {self.tensor(value)}, 0, 0.0, {{0, {{0}}}}, NULL, NULL, 0}}"
        if isinstance(value, torch.dtype):
            return f"{{SW_INT, {none}, {DTYPES[value][1]}, 0.0, {{0, {{0}}}}, NULL, NULL, 0}}"
        if isinstance(value, bool):
            return f"{{SW_BOOL, {none}, {int(value)}, 0.0, {{0, {{0}}}}, NULL, NULL, 0}}"
        if isinstance(value, int):
            return f"{{SW_INT, {none}, {value}, 0.0, {{0, {{0}}}}, NULL, NULL, 0}}"
        if isinstance(value, float):
            return f"{{SW_DOUBLE, {none}, 0, {c_double(value)}, {{0, {{0}}}}, NULL, NULL, 0}}"
        if isinstance(value, (list, tuple)):
            assert len(value) <= 8
            body = ", ".join(str(v) for v in value) or "0"
            return f"{{SW_INTS, {none}, 0, 0.0, {{{len(value)}, {{{body}}}}}, NULL, NULL, 0}}"
        assert value is None
        return f"{{SW_NONE, {none}, 0, 0.0, {{0, {{0}}}}, NULL, NULL, 0}}"


# ---------------------------------------------------------------------------
# Inputs


class Inputs:
    def __init__(self, seed):
        self.gen = torch.Generator().manual_seed(seed)

    def make(self, dtype, *shape):
        """Values every dtype holds (small integers for integral dtypes, so
        ties are common)."""
        n = 1
        for size in shape:
            n *= size
        if dtype == torch.bool:
            values = torch.randint(0, 2, (n,), generator=self.gen).double()
        elif dtype.is_floating_point or dtype.is_complex:
            values = torch.randn((n,), generator=self.gen, dtype=torch.float64) * 2
        elif dtype in (torch.uint8, torch.uint16, torch.uint32, torch.uint64):
            values = torch.randint(0, 20, (n,), generator=self.gen).double()
        else:
            values = torch.randint(-9, 10, (n,), generator=self.gen).double()
        t = values.reshape(shape).to(dtype) if shape else values.reshape(()).to(dtype)
        if dtype.is_complex:
            imag = torch.randn(t.shape, generator=self.gen, dtype=torch.float64)
            t = t + 1j * imag.to(t.dtype)
        return t


# ---------------------------------------------------------------------------
# Cases: (name, op, args, out dtypes or None for the functional's, flags)


class Case:
    def __init__(self, name, op, args, outs=None, values=True):
        self.name, self.op, self.args, self.outs, self.values = name, op, args, outs, values


def schema_names(op):
    schema = resolve(op)._schema
    inputs = [a.name for a in schema.arguments if not (a.alias_info and a.alias_info.is_write)]
    outs = [a.name for a in schema.arguments if a.alias_info and a.alias_info.is_write]
    return inputs, outs


def run(case):
    """(status, outs) of the out variant."""
    inputs, out_names = schema_names(case.op)
    assert len(inputs) == len(case.args), case.name
    kwargs = dict(zip(inputs, case.args))
    out_dtypes = case.outs
    functional = FUNCTIONAL.get(case.op)
    if out_dtypes is None:
        try:
            result = functional(*case.args)
            result = result if isinstance(result, (tuple, list)) else [result]
            out_dtypes = [r.dtype for r in result]
        except Exception:
            first = next(a for a in case.args if isinstance(a, torch.Tensor))
            out_dtypes = FALLBACK_OUTS.get(case.op, lambda d: [d])(first.dtype)
    outs = [torch.empty(0, dtype=d) for d in out_dtypes]
    assert len(outs) == len(out_names), case.name
    kwargs.update(zip(out_names, outs))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            resolve(case.op)(**kwargs)
        return "ETR_OK", outs
    except Exception as error:  # noqa: BLE001 - every refusal is a case
        return classify(error), outs


# ---------------------------------------------------------------------------
# libstdc++'s std::sort / std::partial_sort / std::nth_element, ported step
# for step as support/reduce_sort.c ports them, on (value, index) pairs
# compared by value with ATen's KeyValueCompAsc/Desc. check_order() asserts
# that PyTorch's sort and topk give exactly these indices, for every case
# below and for thousands of tie-heavy random slices, so the C port is
# held to what PyTorch really does.


def _lg(n):
    return n.bit_length() - 1


class _Pairs:
    def __init__(self, values, descending):
        self.a = [(v, i) for i, v in enumerate(values)]
        if descending:
            self.comp = lambda l, r: (l != l and r == r) or l > r
        else:
            self.comp = lambda l, r: (l == l and r != r) or l < r

    def c(self, i, j):
        return self.comp(self.a[i][0], self.a[j][0])

    def swap(self, i, j):
        self.a[i], self.a[j] = self.a[j], self.a[i]


def _median_to_first(p, result, a, b, c):
    if p.c(a, b):
        p.swap(result, b if p.c(b, c) else (c if p.c(a, c) else a))
    elif p.c(a, c):
        p.swap(result, a)
    else:
        p.swap(result, c if p.c(b, c) else b)


def _partition_pivot(p, first, last):
    _median_to_first(p, first, first + 1, first + (last - first) // 2, last - 1)
    pivot, first = first, first + 1
    while True:
        while p.c(first, pivot):
            first += 1
        last -= 1
        while p.c(pivot, last):
            last -= 1
        if not first < last:
            return first
        p.swap(first, last)
        first += 1


def _linear_insert(p, last):
    value = p.a[last]
    while p.comp(value[0], p.a[last - 1][0]):
        p.a[last] = p.a[last - 1]
        last -= 1
    p.a[last] = value


def _insertion_sort(p, first, last):
    for i in range(first + 1, last):
        if p.c(i, first):
            p.a[first:i + 1] = [p.a[i]] + p.a[first:i]
        else:
            _linear_insert(p, i)


def _adjust_heap(p, first, hole, length, value):
    top = second = hole
    while second < (length - 1) // 2:
        second = 2 * (second + 1)
        if p.c(first + second, first + second - 1):
            second -= 1
        p.a[first + hole] = p.a[first + second]
        hole = second
    if length % 2 == 0 and second == (length - 2) // 2:
        second = 2 * (second + 1)
        p.a[first + hole] = p.a[first + second - 1]
        hole = second - 1
    parent = (hole - 1) // 2
    while hole > top and p.comp(p.a[first + parent][0], value[0]):
        p.a[first + hole] = p.a[first + parent]
        hole, parent = parent, (parent - 1) // 2
    p.a[first + hole] = value


def _pop_heap(p, first, last, result):
    value = p.a[result]
    p.a[result] = p.a[first]
    _adjust_heap(p, first, 0, last - first, value)


def _heap_select(p, first, middle, last):
    length = middle - first
    for parent in range((length - 2) // 2, -1, -1) if length >= 2 else []:
        _adjust_heap(p, first, parent, length, p.a[first + parent])
    for i in range(middle, last):
        if p.c(i, first):
            _pop_heap(p, first, middle, i)


def _partial_sort(p, first, middle, last):
    _heap_select(p, first, middle, last)
    while middle - first > 1:
        middle -= 1
        _pop_heap(p, first, middle, middle)


def _introsort(p, first, last, depth):
    while last - first > 16:
        if depth == 0:
            _partial_sort(p, first, last, last)
            return
        depth -= 1
        cut = _partition_pivot(p, first, last)
        _introsort(p, cut, last, depth)
        last = cut


def _std_sort(p, first, last):
    if first < last:
        _introsort(p, first, last, _lg(last - first) * 2)
        if last - first > 16:
            _insertion_sort(p, first, first + 16)
            for i in range(first + 16, last):
                _linear_insert(p, i)
        else:
            _insertion_sort(p, first, last)


def _nth_element(p, first, nth, last):
    if first == last or nth == last:
        return
    depth = _lg(last - first) * 2
    while last - first > 3:
        if depth == 0:
            _heap_select(p, first, nth + 1, last)
            p.swap(first, nth)
            return
        depth -= 1
        cut = _partition_pivot(p, first, last)
        if cut <= nth:
            first = cut
        else:
            last = cut
    _insertion_sort(p, first, last)


def stl_sort_indices(values, descending):
    p = _Pairs(values, descending)
    _std_sort(p, 0, len(values))
    return [i for _, i in p.a]


def stl_topk_indices(values, k, largest, sorted_):
    p = _Pairs(values, largest)
    n = len(values)
    if k == 0:
        return []
    if k * 64 <= n:
        _partial_sort(p, 0, k, n)
    else:
        _nth_element(p, 0, k - 1, n)
        if sorted_:
            _std_sort(p, 0, k - 1)
    return [i for _, i in p.a[:k]]


def _slices(t, dim):
    """(slice values as floats or ints, slice index) along dim."""
    moved = t.movedim(dim, -1).reshape(-1, t.shape[dim])
    rows = moved.double() if t.dtype != torch.uint64 else moved.to(torch.float64)
    return [row.tolist() for row in rows]


def check_order(case, status, outs):
    """PyTorch's sort/topk indices are the ported algorithms' indices."""
    if status != "ETR_OK" or case.op not in ("sort.values", "topk.values"):
        return
    self = case.args[0]
    if self.dim() == 0 or self.numel() == 0:
        return
    if case.op == "sort.values":
        dim, descending = case.args[1] % self.dim(), case.args[2]
        radix = (self.dim() == 1 and not descending and not self.dtype.is_floating_point
                 and self.dtype != torch.bool and self.numel() >= 32768)
        assert not radix, case.name
        if self.stride(dim) == 0:
            expected = [list(range(self.shape[dim]))] * (self.numel() // self.shape[dim])
        else:
            expected = [stl_sort_indices(row, descending) for row in _slices(self, dim)]
        got = [row.tolist() for row in outs[1].movedim(dim, -1).reshape(-1, self.shape[dim])]
    else:
        k, dim, largest, sorted_ = case.args[1], case.args[2] % self.dim(), case.args[3], case.args[4]
        if k == 0:
            return
        expected = [stl_topk_indices(row, k, largest, sorted_) for row in _slices(self, dim)]
        got = [row.tolist() for row in outs[1].movedim(dim, -1).reshape(-1, k)]
    assert got == expected, f"{case.name}: PyTorch's order is not libstdc++'s"


def fuzz_order(seed, trials=3000):
    """The ports against PyTorch on random tie-heavy slices."""
    import random
    rnd = random.Random(seed)
    for _ in range(trials):
        n = rnd.choice([1, 2, 3, 5, 16, 17, 18, 20, 31, 33, 50, 64, 100, 200, 257, 1000])
        dtype = rnd.choice([torch.float32, torch.float64, torch.float16, torch.int64,
                            torch.int16, torch.uint8])
        values = [float(rnd.randrange(rnd.choice([2, 3, 5, 10, 200]))) for _ in range(n)]
        if dtype.is_floating_point and rnd.random() < 0.3:
            for _ in range(rnd.randrange(1, 4)):
                values[rnd.randrange(n)] = NAN
        x = torch.tensor(values, dtype=dtype)
        descending = rnd.random() < 0.5
        assert torch.sort(x, descending=descending).indices.tolist() == \
            stl_sort_indices(values, descending), (n, dtype, descending)
        k = rnd.randrange(1, n + 1)
        largest, sorted_ = rnd.random() < 0.7, rnd.random() < 0.8
        assert torch.topk(x, k, largest=largest, sorted=sorted_).indices.tolist() == \
            stl_topk_indices(values, k, largest, sorted_), (n, k, dtype, largest, sorted_)


def cases():
    g = Inputs(SEED)
    out = []

    def add(name, op, args, outs=None, values=True):
        out.append(Case(name, op, args, outs, values))

    def tag(d):
        return str(d)[6:]

    # amax / amin / argmax / argmin / max.dim / min.dim over every dtype.
    for d in ALL:
        x = g.make(d, 2, 3, 4)
        for op in ("amax.out", "amin.out"):
            add(f"{op[:4]}_{tag(d)}_d1", op, [x, [1], False])
            add(f"{op[:4]}_{tag(d)}_all_keep", op, [x, [], True])
            add(f"{op[:4]}_{tag(d)}_d-1_0", op, [x, [-1, 0], False])
        for op in ("argmax.out", "argmin.out"):
            add(f"{op[:6]}_{tag(d)}_d1_keep", op, [x, 1, True])
            add(f"{op[:6]}_{tag(d)}_none", op, [x, None, False])
        add(f"max_{tag(d)}_d2", "max.dim_max", [x, 2, False])
        add(f"min_{tag(d)}_d0_keep", "min.dim_min", [x, 0, True])
        add(f"any_dims_{tag(d)}", "any.dims_out", [x, [0, 2], False])
        add(f"any_{tag(d)}", "any.out", [x, -1, True])
    # NaN, ties, signed zeros and long slices (vectorized paths in ATen).
    nan_x = torch.tensor([[1.0, NAN, 3.0, NAN], [-0.0, 0.0, -2.0, -2.0], [INF, -INF, INF, 1.0]])
    for d in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
        xs = nan_x.to(d)
        for op in ("amax.out", "amin.out"):
            add(f"{op[:4]}_nan_{tag(d)}", op, [xs, [1], False])
            add(f"{op[:4]}_nan_all_{tag(d)}", op, [xs, [], False])
        for op in ("argmax.out", "argmin.out"):
            add(f"{op[:6]}_nan_{tag(d)}", op, [xs, 1, False])
            add(f"{op[:6]}_nan_flat_{tag(d)}", op, [xs, None, True])
        add(f"max_nan_{tag(d)}", "max.dim_max", [xs, 1, False])
        add(f"min_nan_{tag(d)}", "min.dim_min", [xs, 1, True])
    zeros = torch.tensor([0.0, -0.0, 0.0])
    add("amax_signed_zero", "amax.out", [zeros, [0], False])
    add("amin_signed_zero", "amin.out", [-zeros, [0], False])
    long_x = g.make(torch.int32, 3, 40)
    long_f = g.make(torch.float32, 40, 3)
    long_f[17, 1] = NAN
    long_f[30, 1] = NAN
    for op in ("argmax.out", "argmin.out"):
        add(f"{op[:6]}_long_int", op, [long_x, 1, False])
        add(f"{op[:6]}_long_float", op, [long_f, 0, False])
    add("max_long_ties", "max.dim_max", [long_x, 1, True])
    add("min_long_nan", "min.dim_min", [long_f, 0, False])
    add("amax_long", "amax.out", [long_f, [0], False])
    # 0-dim, empty and failing cases.
    s = torch.tensor(2.5)
    add("amax_0dim", "amax.out", [s, [0], True])
    add("amax_0dim_all", "amax.out", [s, [], False])
    add("argmax_0dim", "argmax.out", [s, 0, False])
    add("argmin_0dim_none", "argmin.out", [s, None, True])
    add("max_0dim", "max.dim_max", [s, -1, True])
    e = torch.zeros(0, 3)
    add("amax_empty_kept_dim", "amax.out", [e, [1], False])
    add("amax_empty_dim", "amax.out", [e, [0], False])
    add("amax_empty_all", "amax.out", [e, [], False])
    add("argmax_empty_none", "argmax.out", [e, None, False])
    add("argmax_empty_dim", "argmax.out", [e, 0, False])
    add("argmin_empty_kept", "argmin.out", [e, 1, True])
    add("max_empty_dim", "max.dim_max", [e, 0, False])
    add("min_empty_kept", "min.dim_min", [e, 1, False])
    add("amax_dup_dim", "amax.out", [g.make(torch.float32, 2, 3), [1, -1], False])
    add("amax_bad_dim", "amax.out", [g.make(torch.float32, 2, 3), [2], False])
    add("argmax_bad_dim", "argmax.out", [g.make(torch.float32, 2, 3), -3, False])
    add("amax_out_dtype", "amax.out", [g.make(torch.float32, 2, 3), [1], False], [torch.float64])
    add("argmax_out_int", "argmax.out", [g.make(torch.float32, 2, 3), 1, False], [torch.int32])
    add("max_values_dtype", "max.dim_max", [g.make(torch.float32, 2, 3), 1, False],
        [torch.float64, torch.int64])
    add("min_indices_dtype", "min.dim_min", [g.make(torch.float32, 2, 3), 1, False],
        [torch.float32, torch.int32])

    # any: empty dims list (no reduction), None, uint8 and refused outs.
    a = torch.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, NAN]])
    add("any_dims_empty_list", "any.dims_out", [a, [], False])
    add("any_dims_empty_list_keep", "any.dims_out", [a, [], True])
    add("any_dims_none", "any.dims_out", [a, None, False])
    add("any_dims_none_keep", "any.dims_out", [a, None, True])
    add("any_uint8_out", "any.out", [a, 1, False], [torch.uint8])
    add("any_float_out", "any.out", [a, 1, False], [torch.float32])
    add("any_dims_long_out", "any.dims_out", [a, [1], False], [torch.int64])
    add("any_empty", "any.out", [torch.zeros(0, 3), 0, False])
    add("any_dims_empty_none", "any.dims_out", [torch.zeros(0, 3), None, True])
    add("any_0dim", "any.out", [torch.tensor(0.0), 0, False])
    add("any_dims_dup", "any.dims_out", [a, [0, -2], False])
    add("any_complex", "any.out", [torch.tensor([[0j, 1j], [0j, 0j]]), 1, False])
    # A uint8 out reduces in uint8 (elements converted first) unless self
    # has exactly one element.
    halves = torch.tensor([[0.5, 0.7], [0.0, 2.0], [256.0, -1.0]])
    add("any_uint8_out_converts", "any.out", [halves, 1, False], [torch.uint8])
    add("any_dims_uint8_out_no_dims", "any.dims_out", [halves, [], False], [torch.uint8])
    add("any_all_uint8_out_converts", "any.all_out", [torch.tensor([0.5, 0.0])], [torch.uint8])
    add("any_all_uint8_out_one_element", "any.all_out", [torch.tensor([[0.5]])], [torch.uint8])
    add("any_all_uint8_out_complex", "any.all_out", [torch.tensor([0.5j, 0.0])], [torch.uint8])
    add("any_all_uint8_self", "any.all_out", [torch.tensor([0, 7], dtype=torch.uint8)])
    for d in ALL:
        add(f"any_all_{tag(d)}", "any.all_out", [g.make(d, 2, 2)])

    # mean.dtype_out.
    for d in ALL:
        x = g.make(d, 3, 4)
        add(f"mean_dtype_out_{tag(d)}", "mean.dtype_out", [x, None])
    for d in (torch.int32, torch.float16, torch.bool):
        add(f"mean_dtype_out_{tag(d)}_as_double", "mean.dtype_out", [g.make(d, 5), torch.float64],
            [torch.float64])
    add("mean_dtype_out_float_into_double", "mean.dtype_out", [g.make(torch.float32, 4), None],
        [torch.float64])
    add("mean_dtype_out_float_into_complex", "mean.dtype_out", [g.make(torch.float32, 4), None],
        [torch.complex64])
    add("mean_dtype_out_float_into_long", "mean.dtype_out", [g.make(torch.float32, 4), None],
        [torch.int64])
    add("mean_dtype_out_dtype_long", "mean.dtype_out", [g.make(torch.int32, 4), torch.int64],
        [torch.int64])
    add("mean_dtype_out_dtype_mismatch", "mean.dtype_out", [g.make(torch.float32, 4), torch.float64],
        [torch.float32])
    add("mean_dtype_out_empty", "mean.dtype_out", [torch.zeros(0, 2), None])
    add("mean_dtype_out_0dim", "mean.dtype_out", [torch.tensor(-1.5), None])

    # prod: default out dtypes over every dtype; explicit dtypes; empties.
    for d in ALL:
        x = g.make(d, 2, 3) if not (d.is_floating_point or d.is_complex) else \
            (g.make(d, 2, 3) * 0.5 + 1).to(d)
        add(f"prod_int_{tag(d)}", "prod.int_out", [x, 1, False, None])
        add(f"prod_int_keep_{tag(d)}", "prod.int_out", [x, 0, True, None])
        add(f"prod_{tag(d)}", "prod.out", [x, None])
        add(f"prod_int_same_{tag(d)}", "prod.int_out", [x, 1, False, None], [d])
    i8 = torch.tensor([[100, 100, 3], [-128, 2, 1]], dtype=torch.int8)
    add("prod_int_wrap_int8", "prod.int_out", [i8, 1, False, torch.int8], [torch.int8])
    add("prod_int_long_from_int8", "prod.int_out", [i8, 1, False, None], [torch.int64])
    add("prod_int8_dtype_int8", "prod.out", [i8, torch.int8], [torch.int8])
    add("prod_int8_default_wrong_out", "prod.out", [i8, None], [torch.int8])
    add("prod_float_wrong_out", "prod.out", [g.make(torch.float32, 3), None], [torch.float64])
    add("prod_float_to_long", "prod.int_out", [torch.tensor([1.5, 2.5, -3.5]), 0, False, None],
        [torch.int64])
    add("prod_float_dtype_long", "prod.out", [torch.tensor([1.5, 2.5, -3.5]), torch.int64],
        [torch.int64])
    add("prod_float_to_bool", "prod.int_out", [torch.tensor([[1.5, 0.0], [2.0, 3.0]]), 1, False,
                                               None], [torch.bool])
    add("prod_dtype_mismatch", "prod.int_out", [g.make(torch.float32, 3), 0, False, torch.float64],
        [torch.float32])
    add("prod_uint16_out", "prod.int_out", [g.make(torch.uint16, 3), 0, False, None],
        [torch.uint16])
    add("prod_complex_to_float", "prod.int_out", [g.make(torch.complex64, 3), 0, False, None],
        [torch.float32])
    add("prod_empty", "prod.int_out", [torch.zeros(0, 3), 0, False, None])
    add("prod_empty_all", "prod.out", [torch.zeros(2, 0, dtype=torch.int32), None])
    add("prod_0dim", "prod.int_out", [torch.tensor(3.0), 0, True, None])
    add("prod_half_overflow", "prod.int_out", [torch.tensor([300.0, 300.0], dtype=torch.float16),
                                               0, False, None])
    add("prod_nan_inf", "prod.int_out", [torch.tensor([[NAN, 1.0], [INF, 0.0], [INF, -2.0]]), 1,
                                         False, None])

    # var.
    for d in FLOATING + COMPLEX:
        x = g.make(d, 3, 5)
        add(f"var_corr_{tag(d)}", "var.correction_out", [x, [1], None, False])
        add(f"var_corr0_all_{tag(d)}", "var.correction_out", [x, None, 0, True])
        add(f"var_unbiased_{tag(d)}", "var.out", [x, [0], True, False])
        add(f"var_biased_keep_{tag(d)}", "var.out", [x, [-1, 0], False, True])
    for d in ALL:
        if d not in FLOATING + COMPLEX:
            add(f"var_refused_{tag(d)}", "var.correction_out", [g.make(d, 3), None, None, False],
                [torch.float32])
    x = g.make(torch.float32, 2, 4)
    for c in (2, 3, 4, 5, 2.5, -1, 1e300, NAN, True):
        add(f"var_correction_{c}", "var.correction_out", [x, [1], c, False])
    add("var_one_element", "var.correction_out", [torch.ones(1, 3), [0], None, False])
    add("var_0dim", "var.correction_out", [torch.tensor(3.0), None, None, False])
    add("var_0dim_corr0", "var.correction_out", [torch.tensor(3.0), None, 0, False])
    add("var_empty", "var.correction_out", [torch.zeros(0, 3), [0], None, False])
    add("var_empty_corr0", "var.correction_out", [torch.zeros(0, 3), [0], 0, False])
    add("var_empty_corr_neg", "var.correction_out", [torch.zeros(0, 3), [0], -1, False])
    add("var_empty_kept", "var.correction_out", [torch.zeros(0, 3), [1], None, True])
    add("var_nan_inf", "var.correction_out", [torch.tensor([[1.0, NAN], [1.0, INF], [2.0, 4.0]]),
                                              [1], None, False])
    add("var_dim_empty_list", "var.correction_out", [x, [], None, False])
    add("var_into_double", "var.correction_out", [x, [1], None, False], [torch.float64])
    add("var_into_half", "var.out", [x, [1], True, False], [torch.float16])
    add("var_into_long", "var.correction_out", [x, [1], None, False], [torch.int64])
    add("var_complex_into_complex", "var.correction_out", [g.make(torch.complex64, 2, 3), [1], None,
                                                           False], [torch.complex64])
    add("var_complex_into_double", "var.out", [g.make(torch.complex128, 2, 3), [1], True, False],
        [torch.float64])
    add("var_float_into_complex_all", "var.correction_out", [x, None, None, False],
        [torch.complex64])
    add("var_float_into_complex_dim", "var.correction_out", [x, [1], None, False],
        [torch.complex64])
    add("var_half_into_float_all", "var.correction_out", [x.half(), None, None, False],
        [torch.float32])
    add("var_half_into_float_dim", "var.correction_out", [x.half(), [1], None, False],
        [torch.float32])
    add("var_bf16_into_half_all", "var.out", [x.bfloat16(), None, True, False], [torch.float16])
    add("var_half_into_float_empty", "var.correction_out", [torch.zeros(0, 2).half(), None, None,
                                                            False], [torch.float32])
    add("var_bad_dim", "var.out", [x, [2], True, False])

    # cumsum.
    for d in ALL:
        x = g.make(d, 3, 4)
        add(f"cumsum_{tag(d)}", "cumsum.out", [x, 1, None])
        add(f"cumsum_d0_same_{tag(d)}", "cumsum.out", [x, -2, None], [d])
    c8 = torch.tensor([100, 100, -50], dtype=torch.int8)
    add("cumsum_int8_wrap", "cumsum.out", [c8, 0, torch.int8], [torch.int8])
    add("cumsum_int8_to_float", "cumsum.out", [c8, 0, None], [torch.float32])
    add("cumsum_float_to_long", "cumsum.out", [torch.tensor([1.5, 2.5, -0.5]), 0, None],
        [torch.int64])
    add("cumsum_dtype_long", "cumsum.out", [torch.tensor([1.5, 2.5, -0.5]), 0, torch.int64],
        [torch.int64])
    add("cumsum_dtype_mismatch", "cumsum.out", [torch.tensor([1.5]), 0, torch.int64],
        [torch.float64])
    add("cumsum_bool_out", "cumsum.out", [torch.tensor([True, True]), 0, None], [torch.bool])
    add("cumsum_complex_to_float", "cumsum.out", [torch.tensor([1.5 + 1j, 2.5 - 2j]), 0, None],
        [torch.float32])
    add("cumsum_nan_inf", "cumsum.out", [torch.tensor([1.0, INF, -INF, 2.0]), 0, None])
    add("cumsum_0dim", "cumsum.out", [torch.tensor(2.0), -1, None])
    add("cumsum_0dim_bad", "cumsum.out", [torch.tensor(2.0), 1, None])
    add("cumsum_empty", "cumsum.out", [torch.zeros(0, 3), 1, None])
    add("cumsum_4d", "cumsum.out", [g.make(torch.float32, 2, 3, 2, 2), 1, None])
    add("cumsum_long_row", "cumsum.out", [g.make(torch.float32, 2, 50), 1, None])

    # sort and topk: PyTorch's tie order is reproduced, so ties are welcome.
    for d in ALL:
        if d == torch.bool:
            x = torch.tensor([[True, False], [False, False], [True, True]])
        else:
            x = g.make(d, 3, 5)
        add(f"sort_{tag(d)}", "sort.values", [x, -1, False])
        add(f"sort_desc_d0_{tag(d)}", "sort.values", [x, 0, True])
        if d != torch.bool:
            long_row = g.make(d, 2, 37)
            add(f"sort_ties_long_{tag(d)}", "sort.values", [long_row, 1, False])
            add(f"sort_ties_long_desc_{tag(d)}", "sort.values", [long_row, -1, True])
        add(f"topk_{tag(d)}", "topk.values", [x, 2, -1, True, True])
        add(f"topk_smallest_d0_{tag(d)}", "topk.values", [x, 2, 0, False, True])
    v = torch.tensor([3.0, NAN, 1.0, -INF, NAN, 1.0, INF, -0.0, 0.0])
    for d in (torch.float32, torch.float64, torch.float16, torch.bfloat16):
        add(f"sort_nan_{tag(d)}", "sort.values", [v.to(d), 0, False])
        add(f"sort_nan_desc_{tag(d)}", "sort.values", [v.to(d), 0, True])
        add(f"topk_nan_{tag(d)}", "topk.values", [v.to(d), 3, 0, True, True])
    ties = torch.tensor([2, 1, 2, 1, 2, 1, 0, 0, 2])
    add("sort_ties", "sort.values", [ties, 0, False])
    add("sort_ties_desc", "sort.values", [ties, 0, True])
    few = torch.randint(0, 4, (3, 300), generator=g.gen).to(torch.float32)
    few[0, 7::31] = NAN
    few[1, ::5] = -0.0
    add("sort_few_values_long", "sort.values", [few, 1, False])
    add("sort_few_values_long_desc", "sort.values", [few, 1, True])
    add("sort_few_values_dim0", "sort.values", [few[:, :40].t().contiguous(), 0, True])
    add("sort_4d", "sort.values", [g.make(torch.int32, 2, 3, 2, 2), 1, True])
    add("sort_0dim", "sort.values", [torch.tensor(3.0), 0, False])
    add("sort_empty", "sort.values", [torch.zeros(0, 3), 0, False])
    add("sort_bad_dim", "sort.values", [g.make(torch.float32, 2, 3), 2, False])
    add("sort_values_dtype", "sort.values", [g.make(torch.float32, 3), 0, False],
        [torch.float64, torch.int64])
    add("sort_indices_dtype", "sort.values", [g.make(torch.float32, 3), 0, False],
        [torch.float32, torch.int32])
    add("sort_uint64_large", "sort.values", [torch.tensor([7, 3, 12, 0], dtype=torch.uint64), 0,
                                             True])
    t = g.make(torch.int16, 4, 40)
    # k * 64 <= n takes std::partial_sort; larger k std::nth_element.
    add("topk_partial_sort_path", "topk.values", [few, 4, 1, True, True])
    add("topk_partial_sort_path_smallest", "topk.values", [few, 3, 1, False, True])
    add("topk_nth_element_path", "topk.values", [few, 40, 1, True, True])
    add("topk_nth_element_unsorted", "topk.values", [few, 40, 1, False, False])
    add("topk_long_row", "topk.values", [t, 5, 1, True, True])
    add("topk_long_row_smallest", "topk.values", [t, 7, 1, False, True])
    add("topk_unsorted", "topk.values", [torch.tensor([1.0, 5.0, 3.0, 4.0, 2.0]), 3, 0, True, False])
    add("topk_unsorted_ties", "topk.values", [t, 9, 1, True, False])
    add("topk_k0", "topk.values", [t, 0, 1, True, True])
    add("topk_k_all", "topk.values", [t, 4, 0, False, True])
    add("topk_k_too_big", "topk.values", [t, 41, 1, True, True])
    add("topk_k_negative", "topk.values", [t, -1, 1, True, True])
    add("topk_0dim_k1", "topk.values", [torch.tensor(3.0), 1, 0, True, True])
    add("topk_0dim_k0", "topk.values", [torch.tensor(3.0), 0, -1, True, True])
    add("topk_0dim_k2", "topk.values", [torch.tensor(3.0), 2, 0, True, True])
    add("topk_empty_rows", "topk.values", [torch.zeros(0, 3), 2, 1, True, True])
    add("topk_4d", "topk.values", [g.make(torch.float32, 2, 3, 2, 2), 2, 1, False, True])
    add("topk_values_dtype", "topk.values", [g.make(torch.float32, 3), 1, 0, True, True],
        [torch.float64, torch.int64])

    # cdist and pdist.
    for d in ALL:
        add(f"cdist_{tag(d)}", "_cdist_forward.out", [g.make(d, 3, 2), g.make(d, 4, 2), 2.0, None])
        add(f"pdist_{tag(d)}", "_pdist_forward.out", [g.make(d, 4, 3), 2.0])
    for d in (torch.float32, torch.float64):
        x1, x2 = g.make(d, 2, 4, 3), g.make(d, 5, 3)
        for p in (0.0, 0.5, 1.0, 2.0, 3.0, INF):
            add(f"cdist_p{p}_{tag(d)}", "_cdist_forward.out", [x1, x2, p, None])
            add(f"pdist_p{p}_{tag(d)}", "_pdist_forward.out", [g.make(d, 5, 3), p])
        for mode in (0, 1, 2):
            add(f"cdist_mode{mode}_{tag(d)}", "_cdist_forward.out", [x1, x2, 2.0, mode])
    add("cdist_batch_broadcast", "_cdist_forward.out", [g.make(torch.float32, 2, 1, 3, 2),
                                                        g.make(torch.float32, 4, 2, 2), 1.0, None])
    add("cdist_zero_columns", "_cdist_forward.out", [torch.zeros(3, 0), torch.zeros(2, 0), 2.0, None])
    add("cdist_zero_columns_inf", "_cdist_forward.out", [torch.zeros(3, 0), torch.zeros(2, 0), INF,
                                                         None])
    add("cdist_empty_rows", "_cdist_forward.out", [torch.zeros(0, 2), torch.ones(3, 2), 2.0, None])
    special = torch.tensor([[0.0, NAN], [2.0, 3.0], [1.0, INF]])
    plain = torch.tensor([[0.0, 1.0], [2.0, 3.0], [1.0, -1.0]])
    for p in (0.0, 1.0, 2.0, INF, 1.5):
        add(f"cdist_nan_inf_p{p}", "_cdist_forward.out", [special, plain, p, 2])
        add(f"pdist_nan_inf_p{p}", "_pdist_forward.out", [special, p])
        add(f"pdist_nan_first_p{p}", "_pdist_forward.out",
            [torch.tensor([[NAN, 0.0], [1.0, 5.0]]), p])
    add("cdist_negative_p", "_cdist_forward.out", [plain, plain, -1.0, None])
    add("cdist_nan_p", "_cdist_forward.out", [plain, plain, NAN, None])
    add("cdist_bad_mode", "_cdist_forward.out", [plain, plain, 2.0, 3])
    add("cdist_columns_mismatch", "_cdist_forward.out", [plain, torch.ones(2, 3), 2.0, None])
    add("cdist_rank1", "_cdist_forward.out", [torch.ones(3), torch.ones(3), 2.0, None])
    add("cdist_batch_mismatch", "_cdist_forward.out", [torch.ones(2, 3, 2), torch.ones(3, 2, 2),
                                                       2.0, None])
    add("cdist_mixed_dtype", "_cdist_forward.out", [plain, plain.double(), 2.0, None])
    add("cdist_out_dtype", "_cdist_forward.out", [plain, plain, 2.0, None], [torch.float64])
    add("pdist_negative_p", "_pdist_forward.out", [plain, -1.0])
    add("pdist_minus_inf", "_pdist_forward.out", [plain, -INF])
    add("pdist_nan_p", "_pdist_forward.out", [plain, NAN])
    add("pdist_one_row", "_pdist_forward.out", [torch.ones(1, 3), 2.0])
    add("pdist_no_rows", "_pdist_forward.out", [torch.ones(0, 3), 2.0])
    add("pdist_zero_columns", "_pdist_forward.out", [torch.ones(3, 0), 2.0])
    add("pdist_rank1", "_pdist_forward.out", [torch.ones(3), 2.0])
    add("pdist_out_dtype", "_pdist_forward.out", [plain, 2.0], [torch.float64])

    # nonzero.
    for d in ALL:
        add(f"nonzero_{tag(d)}", "nonzero.out", [g.make(d, 3, 4)])
    add("nonzero_special", "nonzero.out", [torch.tensor([[0.0, NAN, -0.0], [INF, 0.0, 1e-30]])])
    add("nonzero_complex", "nonzero.out", [torch.tensor([0j, 1j, 0, 2])])
    add("nonzero_0dim", "nonzero.out", [torch.tensor(2.0)])
    add("nonzero_0dim_zero", "nonzero.out", [torch.tensor(0.0)])
    add("nonzero_empty", "nonzero.out", [torch.zeros(0, 3)])
    add("nonzero_4d", "nonzero.out", [(g.make(torch.int32, 2, 3, 2, 2) > 2).to(torch.float32)])
    add("nonzero_out_int", "nonzero.out", [torch.ones(2)], [torch.int32])

    # native_dropout where the result is deterministic: eval, p = 0, p = 1.
    for d in ALL:
        x = g.make(d, 2, 3)
        add(f"dropout_eval_{tag(d)}", "native_dropout.out", [x, 0.5, False])
        add(f"dropout_train_p0_{tag(d)}", "native_dropout.out", [x, 0.0, True],
            [d, torch.bool])
    dx = torch.tensor([[1.0, NAN, INF], [-2.0, 0.0, 3.0]])
    add("dropout_p1", "native_dropout.out", [dx, 1.0, True])
    add("dropout_p1_none", "native_dropout.out", [dx, 1.0, None])
    add("dropout_p0", "native_dropout.out", [dx, 0.0, True])
    add("dropout_eval_bad_p", "native_dropout.out", [dx, 1.5, False])
    add("dropout_train_bad_p", "native_dropout.out", [dx, 1.5, True])
    add("dropout_train_negative_p", "native_dropout.out", [dx, -0.5, True])
    add("dropout_train_empty_bad_p", "native_dropout.out", [torch.zeros(0, 2), 1.5, True])
    add("dropout_train_empty_long", "native_dropout.out", [torch.zeros(0, 2, dtype=torch.int64),
                                                           0.5, True])
    add("dropout_out_dtype", "native_dropout.out", [dx, 0.5, False], [torch.float64, torch.bool])
    add("dropout_mask_dtype", "native_dropout.out", [dx, 0.5, False],
        [torch.float32, torch.float32])
    # Training at 0 < p < 1: shapes and refusals only (values are random).
    for d in ALL:
        add(f"dropout_train_{tag(d)}", "native_dropout.out", [g.make(d, 2, 3), 0.5, True],
            [d, torch.bool], values=False)

    # rand, randn, randperm: shapes and refusals only.
    for d in ALL:
        add(f"rand_{tag(d)}", "rand.out", [[2, 3]], [d], values=False)
        add(f"randn_{tag(d)}", "randn.out", [[3, 1, 2]], [d], values=False)
        add(f"randperm_{tag(d)}", "randperm.out", [5], [d], values=False)
    add("rand_0dim", "rand.out", [[]], [torch.float32], values=False)
    add("rand_negative", "rand.out", [[2, -1]], [torch.float32], values=False)
    add("randn_empty", "randn.out", [[0, 4]], [torch.float64], values=False)
    add("randperm_0", "randperm.out", [0], [torch.int64], values=False)
    add("randperm_negative", "randperm.out", [-1], [torch.int64], values=False)
    add("randperm_int8_128", "randperm.out", [128], [torch.int8], values=False)
    add("randperm_int8_129", "randperm.out", [129], [torch.int8], values=False)
    add("randperm_uint8_256", "randperm.out", [256], [torch.uint8], values=False)
    add("randperm_uint8_257", "randperm.out", [257], [torch.uint8], values=False)
    add("randperm_half_2049", "randperm.out", [2049], [torch.float16], values=False)
    add("randperm_half_2050", "randperm.out", [2050], [torch.float16], values=False)
    add("randperm_bf16_300", "randperm.out", [300], [torch.bfloat16], values=False)
    return out


def main():
    check = "--check" in sys.argv[1:]
    torch.set_num_threads(1)
    torch.manual_seed(SEED)
    fuzz_order(SEED)
    w = Writer()
    rows = []
    names = set()
    for case in cases():
        assert case.name not in names, case.name
        names.add(case.name)
        status, outs = run(case)
        check_order(case, status, outs)
        expect_values = case.values and status == "ETR_OK"
        if status != "ETR_OK":
            outs = [torch.zeros(1, dtype=o.dtype) for o in outs]
        elif not expect_values:
            outs = [torch.zeros(o.shape, dtype=o.dtype) for o in outs]  # random values
        args = [w.arg(a) for a in case.args]
        rows.append(f'    {{"{case.name}", "aten::{case.op}", {status}, '
                    f'{"true" if expect_values else "false"}, {len(args)},\n'
                    f'     {{{", ".join(args)}}},\n'
                    f'     {len(outs)}, {{{", ".join(w.tensor(o) for o in outs)}}}}},')
    text = f"""// SPDX-License-Identifier: Apache-2.0
//
// Generated by {GENERATOR} (seed {SEED}) from PyTorch {torch.__version__.split('+')[0]}
// eager; do not edit. Cases of the reduce family kernel tests: each calls
// one out variant; status is what PyTorch's refusal maps to, and outs hold
// PyTorch's results (shape and dtype only when expect_values is false).
#ifndef ETR_OPS_REFERENCE_TEST_GENERATED_REDUCE_FAMILY_CASES_H
#define ETR_OPS_REFERENCE_TEST_GENERATED_REDUCE_FAMILY_CASES_H

#include <math.h>

#include "core/error.h"
#include "ops_reference/test/case_types.h"

typedef struct reduce_family_case {{
  const char *name;
  const char *op;
  etr_error_t status;
  bool expect_values;
  size_t num_args;
  sweep_arg_t args[5];
  size_t num_outs;
  tt_case_tensor_t outs[2];
}} reduce_family_case_t;

{chr(10).join(w.arrays)}

static const reduce_family_case_t kReduceFamilyCases[] = {{
{chr(10).join(rows)}
}};

#endif  // ETR_OPS_REFERENCE_TEST_GENERATED_REDUCE_FAMILY_CASES_H
"""
    old = open(OUT_PATH).read() if os.path.exists(OUT_PATH) else None
    if check:
        if old != text:
            print(f"out of date: {OUT_PATH}")
            return 1
        return 0
    if old != text:
        with open(OUT_PATH, "w") as f:
            f.write(text)
    print(f"{len(rows)} cases")
    return 0


if __name__ == "__main__":
    sys.exit(main())
