#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Golden vectors for the quantized_decomposed kernels (quantized exports).

PT2E-quantized programs carry quantized_decomposed::* ops (quantize and
dequantize per tensor, per channel and per token, choose_qparams). Their
out variants exist only in ExecuTorch (kernels/quantized/quantized.yaml);
PyTorch defines the functional ops as Python decompositions
(torch/ao/quantization/fx/_decomposed.py). The two agree for ordinary
float32 values and differ by design elsewhere (ExecuTorch's choose_qparams
is fbgemm's, not PyTorch's determine_qparams; its per-token quantize rounds
before adding the zero point; its per-channel arithmetic is float where
PyTorch promotes to the Double scales' dtype). etref reproduces what a
program run by ExecuTorch computes, so every case is computed twice:

  * by ExecuTorch 1.5.1's own runtime (the wheel's portable runtime with
    executorch.kernels.quantized loaded): one small program per kernel
    holding all of its cases (torch.export -> to_edge -> to_executorch);
  * by PyTorch eager (the functional op on the case's inputs, views
    included).

A case's expected values come from its oracle: "executorch" for every
case ExecuTorch's runtime can run, "eager" for cases it cannot or where
its result is undefined behaviour (BFloat16 inputs or outs, which it
aborts on; values whose scaled magnitude passes 2^63 or is infinite,
which its float-to-int64 cast turns into INT64_MIN on x86; an Int32
zero_points tensor, which it reads as int64; the 1-D Double-out path
that multiplies in double). Both results are kept in stats.json with
where they differ, as findings about the two definitions. Error cases
(arguments both refuse) become cases the kernel must reject; ExecuTorch
aborts on them, so they are never run there.

Writes datasets/golden_quantized/<kernel>.bin (the golden format of
datasets/golden/FORMAT.md, written by golden_format.py), index.txt and
stats.json. Seeded (SEED); `--check` regenerates into a temporary
directory and compares byte for byte.

Usage (repository root, after datasets/install.sh):
    .venv/bin/python datasets/ops/generate_quantized_golden.py [--check]
"""

import argparse
import json
import math
import os
import sys
import tempfile
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import torch  # noqa: E402

import golden_format as gf  # noqa: E402

GENERATOR = "datasets/ops/generate_quantized_golden.py"
OUT_DIR = HERE.parent / "golden_quantized"
SEED = 20261121

qd = None  # torch.ops.quantized_decomposed, once the AOT library is loaded

# (dtype, quant_min, quant_max) of the quantized dtypes the kernels take.
QRANGES = [
    (torch.uint8, 0, 255),
    (torch.int8, -128, 127),
    (torch.int8, -127, 127),
    (torch.int16, -32768, 32767),
    (torch.uint16, 0, 65535),
    (torch.int32, -(2**31), 2**31 - 1),
]


def f32(value: float) -> float:
    """`value` rounded to float32 (PT2E scales are float32 numbers)."""
    return float(torch.tensor(value, dtype=torch.float32))


# ---------------------------------------------------------------------------
# Cases


@dataclass
class Arg:
    """One schema argument: kind in tensor/double/int/dtype/none/out."""

    kind: str
    value: Any = None
    strided: bool = False  # tensor: store as the strided view it is


@dataclass
class QCase:
    name: str
    args: List[Arg]                    # out-variant schema order, outs last
    oracle: str = "executorch"         # or "eager"
    error: bool = False
    note: str = ""
    eager: Optional[List[torch.Tensor]] = None
    executorch: Optional[List[torch.Tensor]] = None


@dataclass
class Kernel:
    name: str                          # quantized_decomposed::x.out
    schema: str
    functional: Callable               # the functional op
    # (functional positional args, kwargs) from the schema args (outs dropped)
    bind: Callable[[List[Any]], Tuple[list, dict]]
    cases: List[QCase] = field(default_factory=list)


def t(value: torch.Tensor, strided: bool = False) -> Arg:
    return Arg("tensor", value, strided)


def d(value: float) -> Arg:
    return Arg("double", float(value))


def i(value: int) -> Arg:
    return Arg("int", int(value))


def dt(value: torch.dtype) -> Arg:
    return Arg("dtype", value)


def none() -> Arg:
    return Arg("none")


def out(dtype: torch.dtype) -> Arg:
    return Arg("out", dtype)


def values(args: Sequence[Arg]) -> List[Any]:
    """Python values of the non-out schema arguments."""
    return [a.value if a.kind != "none" else None for a in args if a.kind != "out"]


# ---------------------------------------------------------------------------
# Case catalogues, one function per kernel


def randn(gen: torch.Generator, *shape: int, scale: float = 1.0) -> torch.Tensor:
    return torch.randn(*shape, generator=gen) * scale


def rand_q(gen: torch.Generator, dtype: torch.dtype, lo: int, hi: int, *shape: int) -> torch.Tensor:
    values = torch.randint(lo, hi + 1, shape, generator=gen, dtype=torch.int64)
    return values.to(dtype)


def transposed(x: torch.Tensor) -> torch.Tensor:
    """The same logical values as a non-contiguous (transposed) view."""
    return x.t().contiguous().t()


def quantize_per_tensor_cases(gen: torch.Generator) -> List[QCase]:
    cases = []

    def add(name, x, scale, zp, qmin, qmax, dtype, oracle="executorch", strided=False, note=""):
        cases.append(QCase(name, [t(x, strided), d(scale), i(zp), i(qmin), i(qmax), dt(dtype), out(dtype)],
                           oracle, note=note))

    for dtype, qmin, qmax in QRANGES:
        span = qmax - qmin
        scale = f32(4.0 / span * (1.0 + torch.rand(1, generator=gen).item()))
        zp = qmin + int(torch.randint(0, span // 8 + 1, (1,), generator=gen)) + span // 3
        add(f"random:{dtype}", randn(gen, 3, 5, 7, scale=1.5), scale, zp, qmin, qmax, dtype)
    # Ties at .5 steps: a power-of-two scale makes x * inv_scale exact.
    halves = (torch.arange(-20, 20, dtype=torch.float32) + 0.5) * 0.25
    add("boundary:ties_even_zp0", halves, 0.25, 0, -128, 127, torch.int8)
    add("boundary:ties_odd_zp", halves, 0.25, 3, -128, 127, torch.int8,
        note="rounded before the zero point is added")
    add("boundary:ties_uint8", (torch.arange(0, 40, dtype=torch.float32) + 0.5) * 0.5, 0.5, 128, 0, 255, torch.uint8)
    add("boundary:ties_scale_0.1", (torch.arange(-30, 30, dtype=torch.float32) + 0.5) * f32(0.1), f32(0.1), 0,
        -128, 127, torch.int8, note="x*inv lands near but not always on .5")
    sat = torch.tensor([-1e6, -300.0, -128.6, -128.5, -128.4, 127.4, 127.5, 127.6, 128.0, 300.0, 1e6, 1e15])
    add("boundary:saturation", sat, 1.0, 0, -128, 127, torch.int8)
    add("boundary:saturation_uint8_zp", sat, 1.0, 200, 0, 255, torch.uint8)
    huge = torch.tensor([3e38, -3e38, float("inf"), float("-inf"), 1e19, -1e19, 2.0])
    add("boundary:beyond_int64", huge, 1.0, 0, -128, 127, torch.int8, oracle="eager",
        note="scaled values past 2^63 and infinities saturate (ExecuTorch's x86 cast yields INT64_MIN)")
    x = randn(gen, 16)
    add("boundary:scale_tiny_normal", x, 1e-6, 5, -128, 127, torch.int8)
    add("boundary:scale_huge", x, f32(3e38), -7, -128, 127, torch.int8,
        note="inverse scale is a float subnormal: everything maps to the zero point")
    add("boundary:scale_subnormal", x[x != 0], f32(1e-40), 0, -128, 127, torch.int8, oracle="eager",
        note="inverse scale is infinite: every non-zero value saturates")
    add("boundary:scale_1e-30", x, f32(1e-30), 0, 0, 255, torch.uint8, oracle="eager",
        note="scaled values past 2^63 saturate")
    add("boundary:zp_min", x, f32(0.05), -128, -128, 127, torch.int8)
    add("boundary:zp_max", x, f32(0.05), 127, -128, 127, torch.int8)
    add("boundary:zp_outside_range", x, f32(0.05), 300, -128, 127, torch.int8)
    add("boundary:zp_int32_max", randn(gen, 8, scale=1e3), 1.0, 2**31 - 1, -(2**31), 2**31 - 1, torch.int32)
    add("boundary:quant_min_above_max", x, f32(0.05), 0, 10, -10, torch.int8,
        note="clamp's order: every value becomes quant_max")
    add("dtype:half_input", randn(gen, 4, 6).half(), f32(0.02), 1, -128, 127, torch.int8)
    add("dtype:bfloat16_input", randn(gen, 4, 6).bfloat16(), f32(0.02), 1, -128, 127, torch.int8, oracle="eager",
        note="ExecuTorch has no BFloat16 path (aborts); PyTorch converts to Float")
    add("layout:transposed", transposed(randn(gen, 6, 5)), f32(0.03), -3, -128, 127, torch.int8, strided=True)
    add("layout:channels_last", randn(gen, 2, 3, 4, 5).to(memory_format=torch.channels_last), f32(0.03), 0,
        0, 255, torch.uint8, strided=True)
    add("shape:zero_dim", torch.tensor(0.73), f32(0.01), 2, -128, 127, torch.int8)
    add("shape:empty", torch.empty(0, 3), f32(0.01), 2, -128, 127, torch.int8, oracle="eager")
    # Errors (both refuse; the kernel must too).
    x = randn(gen, 5)
    for name, args in [
        ("error:int_input", [t(torch.arange(5, dtype=torch.int32)), d(0.1), i(0), i(-128), i(127), dt(torch.int8),
                             out(torch.int8)]),
        ("error:out_dtype_mismatch", [t(x), d(0.1), i(0), i(-128), i(127), dt(torch.int8), out(torch.uint8)]),
        ("error:quant_min_below_dtype", [t(x), d(0.1), i(0), i(-129), i(127), dt(torch.int8), out(torch.int8)]),
        ("error:quant_max_above_dtype", [t(x), d(0.1), i(0), i(0), i(256), dt(torch.uint8), out(torch.uint8)]),
        ("error:long_dtype", [t(x), d(0.1), i(0), i(0), i(10), dt(torch.int64), out(torch.int64)]),
    ]:
        cases.append(QCase(name, args, "none", error=True))
    return cases


def quantize_per_tensor_tensor_cases(gen: torch.Generator) -> List[QCase]:
    cases = []

    def add(name, x, scale, zp, qmin, qmax, dtype, oracle="executorch"):
        cases.append(QCase(name, [t(x), t(scale), t(zp), i(qmin), i(qmax), dt(dtype), out(dtype)], oracle))

    s = torch.tensor([f32(0.037)], dtype=torch.float64)
    add("random:int8", randn(gen, 4, 7), s, torch.tensor([-5]), -128, 127, torch.int8)
    add("random:uint8_zero_dim_params", randn(gen, 10), torch.tensor(f32(0.02), dtype=torch.float64),
        torch.tensor(128), 0, 255, torch.uint8)
    add("boundary:ties", (torch.arange(-8, 8, dtype=torch.float32) + 0.5) * 0.125,
        torch.tensor([0.125], dtype=torch.float64), torch.tensor([1]), -128, 127, torch.int8)
    x = randn(gen, 5)
    for name, args in [
        ("error:float_scale", [t(x), t(torch.tensor([0.1])), t(torch.tensor([0])), i(-128), i(127), dt(torch.int8),
                               out(torch.int8)]),
        ("error:int_zero_point", [t(x), t(s), t(torch.tensor([0], dtype=torch.int32)), i(-128), i(127),
                                  dt(torch.int8), out(torch.int8)]),
        ("error:two_scales", [t(x), t(torch.tensor([0.1, 0.2], dtype=torch.float64)), t(torch.tensor([0])),
                              i(-128), i(127), dt(torch.int8), out(torch.int8)]),
    ]:
        cases.append(QCase(name, args, "none", error=True))
    return cases


def dequantize_per_tensor_cases(gen: torch.Generator) -> List[QCase]:
    cases = []

    def add(name, q, scale, zp, qmin, qmax, dtype, out_dtype, out_tensor, oracle="executorch", strided=False,
            note=""):
        od = none() if out_dtype is None else dt(out_dtype)
        cases.append(QCase(name, [t(q, strided), d(scale), i(zp), i(qmin), i(qmax), dt(dtype), od, out(out_tensor)],
                           oracle, note=note))

    for dtype, qmin, qmax in QRANGES:
        span = qmax - qmin
        zp = qmin + span // 3
        # Keep q - zp inside int32: ExecuTorch subtracts in int32.
        q = rand_q(gen, dtype, qmin, min(qmax, qmax + zp), 4, 9)
        add(f"random:{dtype}", q, f32(3.0 / span), zp, qmin, qmax, dtype, None, torch.float32)
    q8 = rand_q(gen, torch.int8, -128, 127, 3, 11)
    add("dtype:out_dtype_float", q8, f32(0.0173), -9, -128, 127, torch.int8, torch.float32, torch.float32)
    add("dtype:half_out", q8, f32(0.0173), -9, -128, 127, torch.int8, torch.float16, torch.float16)
    add("dtype:double_out", q8, f32(0.0173), -9, -128, 127, torch.int8, torch.float64, torch.float64,
        note="ExecuTorch widens the float product; PyTorch computes in double")
    add("dtype:bfloat16_out", q8, f32(0.0173), -9, -128, 127, torch.int8, torch.bfloat16, torch.bfloat16,
        oracle="eager", note="ExecuTorch has no BFloat16 out (aborts); the float product rounded to BFloat16")
    big = torch.tensor([2**31 - 1, -(2**31) + 5, 16777217, -16777219, 0, 123456789], dtype=torch.int32)
    add("boundary:int32_large_differences", big, f32(1e-3), 5, -(2**31), 2**31 - 1, torch.int32, None,
        torch.float32, note="the exact integer difference, rounded to float once")
    add("boundary:int32_difference_overflow", torch.tensor([-(2**31), 2**31 - 1], dtype=torch.int32), f32(1e-3), 5,
        -(2**31), 2**31 - 1, torch.int32, None, torch.float32, oracle="eager",
        note="q - zp leaves int32: ExecuTorch's int32 subtraction wraps; the exact difference rounded to float")
    add("boundary:values_outside_quant_range", q8, f32(0.5), 0, -10, 10, torch.int8, None, torch.float32,
        note="quant_min/quant_max are metadata")
    add("boundary:scale_huge", q8, f32(3e38), 0, -128, 127, torch.int8, None, torch.float32)
    add("layout:transposed", transposed(rand_q(gen, torch.uint8, 0, 255, 7, 5)), f32(0.02), 128, 0, 255,
        torch.uint8, None, torch.float32, strided=True)
    add("shape:zero_dim", torch.tensor(-17, dtype=torch.int8), f32(0.1), 3, -128, 127, torch.int8, None,
        torch.float32)
    add("shape:empty", torch.empty(2, 0, dtype=torch.int8), f32(0.1), 3, -128, 127, torch.int8, None,
        torch.float32, oracle="eager")
    for name, args in [
        ("error:float_input", [t(randn(gen, 4)), d(0.1), i(0), i(-128), i(127), dt(torch.float32), none(),
                               out(torch.float32)]),
        ("error:dtype_mismatch", [t(q8), d(0.1), i(0), i(0), i(255), dt(torch.uint8), none(), out(torch.float32)]),
        ("error:out_dtype_mismatch", [t(q8), d(0.1), i(0), i(-128), i(127), dt(torch.int8), dt(torch.float16),
                                      out(torch.float32)]),
        ("error:quant_min_above_max", [t(q8), d(0.1), i(0), i(5), i(-5), dt(torch.int8), none(),
                                       out(torch.float32)]),
        ("error:int_out", [t(q8), d(0.1), i(0), i(-128), i(127), dt(torch.int8), none(), out(torch.int32)]),
    ]:
        cases.append(QCase(name, args, "none", error=True))
    return cases


def dequantize_per_tensor_tensor_cases(gen: torch.Generator) -> List[QCase]:
    cases = []
    q = rand_q(gen, torch.int8, -128, 127, 5, 6)
    s = torch.tensor([f32(0.041)], dtype=torch.float64)
    cases.append(QCase("random:int8", [t(q), t(s), t(torch.tensor([7])), i(-128), i(127), dt(torch.int8), none(),
                                        out(torch.float32)]))
    cases.append(QCase("random:uint8_half_out", [t(rand_q(gen, torch.uint8, 0, 255, 12)), t(s),
                                                  t(torch.tensor([100])), i(0), i(255), dt(torch.uint8),
                                                  dt(torch.float16), out(torch.float16)]))
    cases.append(QCase("error:float_scale", [t(q), t(torch.tensor([0.1])), t(torch.tensor([0])), i(-128), i(127),
                                             dt(torch.int8), none(), out(torch.float32)], "none", error=True))
    cases.append(QCase("error:two_zero_points", [t(q), t(s), t(torch.tensor([0, 1])), i(-128), i(127),
                                                 dt(torch.int8), none(), out(torch.float32)], "none", error=True))
    return cases


def per_channel_params(gen: torch.Generator, channels: int, qmin: int, qmax: int, symmetric: bool):
    scales = torch.tensor([f32(v) for v in (torch.rand(channels, generator=gen) * 0.05 + 0.002).tolist()],
                          dtype=torch.float64)
    if symmetric:
        zps = torch.zeros(channels, dtype=torch.int64)
    else:
        zps = torch.randint(qmin, qmax + 1, (channels,), generator=gen, dtype=torch.int64)
    return scales, zps


def quantize_per_channel_cases(gen: torch.Generator) -> List[QCase]:
    cases = []

    def add(name, x, scales, zps, axis, qmin, qmax, dtype, strided=False, oracle="executorch"):
        cases.append(QCase(name, [t(x, strided), t(scales), t(zps), i(axis), i(qmin), i(qmax), dt(dtype), out(dtype)],
                           oracle))

    s, z = per_channel_params(gen, 4, -127, 127, True)
    add("random:weights_axis0", randn(gen, 4, 3, 3, 3, scale=0.3), s, z, 0, -127, 127, torch.int8)
    s, z = per_channel_params(gen, 5, 0, 255, False)
    add("random:axis1_uint8", randn(gen, 2, 5, 3), s, z, 1, 0, 255, torch.uint8)
    s, z = per_channel_params(gen, 3, -128, 127, False)
    add("random:axis_minus1", randn(gen, 4, 3), s, z, -1, -128, 127, torch.int8)
    s, z = per_channel_params(gen, 6, -32768, 32767, False)
    add("random:axis3_int16", randn(gen, 2, 2, 3, 6, scale=100.0), s, z, 3, -32768, 32767, torch.int16)
    s, z = per_channel_params(gen, 3, -128, 127, False)
    add("layout:channels_last_axis1", randn(gen, 2, 3, 4, 4).to(memory_format=torch.channels_last), s, z, 1,
        -128, 127, torch.int8, strided=True)
    s, z = per_channel_params(gen, 6, 0, 255, False)
    add("layout:transposed_axis0", transposed(randn(gen, 6, 5)), s, z, 0, 0, 255, torch.uint8, strided=True)
    halves = (torch.arange(-12, 12, dtype=torch.float32).reshape(2, 12) + 0.5)
    add("boundary:ties", halves * torch.tensor([[0.25], [0.5]]), torch.tensor([0.25, 0.5], dtype=torch.float64),
        torch.tensor([0, 1]), 0, -128, 127, torch.int8)
    x = randn(gen, 3, 4)
    s3, z3 = per_channel_params(gen, 4, -128, 127, False)
    for name, args in [
        ("error:float_scales", [t(x), t(s3.float()), t(z3), i(1), i(-128), i(127), dt(torch.int8), out(torch.int8)]),
        ("error:scales_count", [t(x), t(s3[:3]), t(z3), i(1), i(-128), i(127), dt(torch.int8), out(torch.int8)]),
        ("error:axis_out_of_range", [t(x), t(s3), t(z3), i(2), i(-128), i(127), dt(torch.int8), out(torch.int8)]),
        ("error:int_zero_points", [t(x), t(s3), t(z3.int()), i(1), i(-128), i(127), dt(torch.int8), out(torch.int8)]),
    ]:
        cases.append(QCase(name, args, "none", error=True))
    return cases


def dequantize_per_channel_cases(gen: torch.Generator) -> List[QCase]:
    cases = []

    def add(name, q, scales, zps, axis, qmin, qmax, dtype, out_dtype, out_tensor, strided=False, oracle="executorch",
            note=""):
        od = none() if out_dtype is None else dt(out_dtype)
        zp = none() if zps is None else t(zps)
        cases.append(QCase(name, [t(q, strided), t(scales), zp, i(axis), i(qmin), i(qmax), dt(dtype), od,
                                  out(out_tensor)], oracle, note=note))

    s, z = per_channel_params(gen, 4, -127, 127, True)
    q = rand_q(gen, torch.int8, -127, 127, 4, 2, 3, 3)
    add("random:weights_float_scales_no_zp", q, s.float(), None, 0, -127, 127, torch.int8, None, torch.float32,
        note="the PT2E weight pattern")
    add("random:weights_double_scales_long_zp", q, s, z, 0, -127, 127, torch.int8, None, torch.float32)
    s, z = per_channel_params(gen, 5, 0, 255, False)
    q = rand_q(gen, torch.uint8, 0, 255, 3, 5, 2)
    add("random:axis1_uint8", q, s.float(), z, 1, 0, 255, torch.uint8, None, torch.float32)
    add("dtype:half_out", q, s.float(), z, 1, 0, 255, torch.uint8, torch.float16, torch.float16)
    add("dtype:double_out", q, s.float(), z, 1, 0, 255, torch.uint8, torch.float64, torch.float64)
    add("dtype:int_zero_points", q, s.float(), z.int(), 1, 0, 255, torch.uint8, None, torch.float32,
        oracle="eager", note="ExecuTorch reads an Int zero_points tensor as int64")
    s, z = per_channel_params(gen, 6, -32768, 32767, False)
    add("random:axis_minus1_int16", rand_q(gen, torch.int16, -32768, 32767, 3, 6), s, z, -1, -32768, 32767,
        torch.int16, None, torch.float32)
    s, z = per_channel_params(gen, 7, -128, 127, False)
    add("shape:one_dim", rand_q(gen, torch.int8, -128, 127, 7), s.float(), z, 0, -128, 127, torch.int8, None,
        torch.float32)
    add("shape:one_dim_double_out", rand_q(gen, torch.int8, -128, 127, 7), s.float(), z, 0, -128, 127, torch.int8,
        torch.float64, torch.float64, oracle="eager",
        note="ExecuTorch's 1-D path multiplies a Double out in double; etref keeps the float product")
    s, z = per_channel_params(gen, 3, -128, 127, False)
    add("layout:channels_last_axis1", rand_q(gen, torch.int8, -128, 127, 2, 3, 4, 4).to(
        memory_format=torch.channels_last), s.float(), z, 1, -128, 127, torch.int8, None, torch.float32,
        strided=True)
    q = rand_q(gen, torch.int8, -128, 127, 3, 4)
    for name, args in [
        ("error:scales_count", [t(q), t(s[:2]), none(), i(1), i(-128), i(127), dt(torch.int8), none(),
                                out(torch.float32)]),
        ("error:half_scales", [t(q), t(torch.ones(4).half()), none(), i(1), i(-128), i(127), dt(torch.int8),
                               none(), out(torch.float32)]),
        ("error:axis_out_of_range", [t(q), t(torch.ones(4)), none(), i(-3), i(-128), i(127), dt(torch.int8),
                                     none(), out(torch.float32)]),
        ("error:dtype_mismatch", [t(q), t(torch.ones(4)), none(), i(1), i(0), i(255), dt(torch.uint8), none(),
                                  out(torch.float32)]),
    ]:
        cases.append(QCase(name, args, "none", error=True))
    return cases


def choose_qparams_cases(gen: torch.Generator) -> List[QCase]:
    cases = []

    def add(name, x, qmin, qmax, dtype=torch.int8, eps=1.1920928955078125e-07, note=""):
        cases.append(QCase(name, [t(x), i(qmin), i(qmax), d(eps), dt(dtype), out(torch.float64), out(torch.int64)],
                           note=note))

    add("random:mixed", randn(gen, 4, 8), -128, 127)
    add("random:uint8", randn(gen, 32), 0, 255, torch.uint8)
    add("random:positive", randn(gen, 16).abs() + 0.5, -128, 127, note="the range is widened to hold 0")
    add("random:negative", -randn(gen, 16).abs() - 0.5, 0, 255, torch.uint8)
    add("boundary:all_zero", torch.zeros(6), -128, 127, note="scale 0 becomes 0.1")
    add("boundary:small_range_min_zero", torch.tensor([0.0, 1e-4, 3e-3]), -128, 127,
        note="scale below 6.1e-5 is raised; max stretched")
    add("boundary:small_range_max_zero", torch.tensor([-2e-3, -1e-5, 0.0]), 0, 255, torch.uint8)
    add("boundary:small_range_both_sides", torch.tensor([-2e-3, 1e-3, 5e-4]), -128, 127,
        note="min and max both amplified")
    add("boundary:later_nan_skipped", torch.tensor([0.5, float("nan"), -0.25]), -128, 127,
        note="std::min_element never picks a NaN after the first element")
    add("boundary:wide_range", torch.tensor([-3e38, 3e38]), -128, 127)
    add("layout:transposed", transposed(randn(gen, 5, 4)), -128, 127)
    cases[-1].args[0].strided = True
    for name, args in [
        ("error:half_input", [t(randn(gen, 4).half()), i(-128), i(127), d(1e-7), dt(torch.int8), out(torch.float64),
                              out(torch.int64)]),
        ("error:quant_min_not_below_max", [t(randn(gen, 4)), i(5), i(5), d(1e-7), dt(torch.int8),
                                           out(torch.float64), out(torch.int64)]),
        ("error:empty_input", [t(torch.empty(0)), i(-128), i(127), d(1e-7), dt(torch.int8), out(torch.float64),
                               out(torch.int64)]),
        ("error:nan_first", [t(torch.tensor([float("nan"), 1.0])), i(-128), i(127), d(1e-7), dt(torch.int8),
                             out(torch.float64), out(torch.int64)]),
        ("error:infinite_input", [t(torch.tensor([1.0, float("inf")])), i(-128), i(127), d(1e-7), dt(torch.int8),
                                  out(torch.float64), out(torch.int64)]),
    ]:
        cases.append(QCase(name, args, "none", error=True))
    return cases


def choose_qparams_per_token_cases(gen: torch.Generator) -> List[QCase]:
    cases = []

    def add(name, x, strided=False):
        cases.append(QCase(name, [t(x, strided), dt(torch.int8), out(torch.float64), out(torch.int64)]))

    add("random:tokens_3d", randn(gen, 2, 3, 8))
    rows = randn(gen, 5, 16)
    rows[1] = 0.0
    rows[2] = rows[2].abs() * 1e-4
    rows[3] = -rows[3].abs() * 1e-5
    add("boundary:zero_and_tiny_rows", rows)
    add("shape:one_dim", randn(gen, 9))
    add("layout:transposed", transposed(randn(gen, 6, 4)), strided=True)
    for name, args in [
        ("error:zero_dim", [t(torch.tensor(1.0)), dt(torch.int8), out(torch.float64), out(torch.int64)]),
        ("error:float_scale_out", [t(randn(gen, 2, 4)), dt(torch.int8), out(torch.float32), out(torch.int64)]),
    ]:
        cases.append(QCase(name, args, "none", error=True))
    return cases


def per_token_params(x: torch.Tensor):
    scale, zp = torch.ops.quantized_decomposed.choose_qparams_per_token_asymmetric(x, torch.int8)
    return scale, zp


def quantize_per_token_cases(gen: torch.Generator) -> List[QCase]:
    cases = []

    def add(name, x, scales, zps, qmin=-128, qmax=127, dtype=torch.int8, strided=False, note=""):
        cases.append(QCase(name, [t(x, strided), t(scales), t(zps), i(qmin), i(qmax), dt(dtype), out(dtype)],
                           note=note))

    x = randn(gen, 2, 3, 8)
    s, z = per_token_params(x)
    add("random:asymmetric_params", x, s, z, note="parameters from choose_qparams_per_token_asymmetric (eager)")
    halves = torch.arange(-8, 8, dtype=torch.float32).reshape(2, 8) + 0.5
    add("boundary:ties_odd_zero_points", halves * 0.25, torch.tensor([[0.25], [0.25]], dtype=torch.float64),
        torch.tensor([[1], [-3]]),
        note="ExecuTorch rounds before adding the zero point; PyTorch's decomposition after")
    x = randn(gen, 4, 6)
    s, z = per_token_params(x)
    add("layout:transposed", transposed(x), s, z, strided=True)
    for name, args in [
        ("error:scales_count", [t(x), t(s[:3]), t(z), i(-128), i(127), dt(torch.int8), out(torch.int8)]),
        ("error:zero_dim", [t(torch.tensor(1.0)), t(s[:1]), t(z[:1]), i(-128), i(127), dt(torch.int8),
                            out(torch.int8)]),
    ]:
        cases.append(QCase(name, args, "none", error=True))
    return cases


def dequantize_per_token_cases(gen: torch.Generator) -> List[QCase]:
    cases = []

    def add(name, q, scales, zps, out_dtype, strided=False):
        cases.append(QCase(name, [t(q, strided), t(scales), t(zps), i(-128), i(127), dt(torch.int8), dt(out_dtype),
                                  out(out_dtype)]))

    x = randn(gen, 2, 3, 8)
    s, z = per_token_params(x)
    q = torch.ops.quantized_decomposed.quantize_per_token(x, s, z, -128, 127, torch.int8)
    add("random:asymmetric_params", q, s, z, torch.float32)
    add("dtype:half_out", q, s, z, torch.float16)
    add("dtype:float_scales", q, s.float(), z, torch.float32)
    q2 = rand_q(gen, torch.int8, -128, 127, 6, 4)
    s2, z2 = per_token_params(randn(gen, 6, 4))
    add("layout:transposed", transposed(q2), s2, z2, torch.float32, strided=True)
    cases.append(QCase("error:out_dtype_mismatch", [t(q), t(s), t(z), i(-128), i(127), dt(torch.int8),
                                                    dt(torch.float16), out(torch.float32)], "none", error=True))
    return cases


# ---------------------------------------------------------------------------
# The kernels: out-variant name and schema, functional op, binding


def kernels() -> List[Kernel]:
    q = torch.ops.quantized_decomposed

    def plain(args):
        return list(args), {}

    def with_out_dtype(args):
        return list(args[:-1]), {"out_dtype": args[-1]}

    return [
        Kernel("quantized_decomposed::quantize_per_tensor.out",
               "quantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min, int quant_max, "
               "ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)",
               q.quantize_per_tensor.default, plain),
        Kernel("quantized_decomposed::quantize_per_tensor.Tensor_out",
               "quantize_per_tensor.Tensor_out(Tensor input, Tensor scale, Tensor zero_point, int quant_min, "
               "int quant_max, ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)",
               q.quantize_per_tensor.tensor, plain),
        Kernel("quantized_decomposed::dequantize_per_tensor.out",
               "dequantize_per_tensor.out(Tensor input, float scale, int zero_point, int quant_min, int quant_max, "
               "ScalarType dtype, *, ScalarType? out_dtype=None, Tensor(a!) out) -> Tensor(a!)",
               q.dequantize_per_tensor.default, with_out_dtype),
        Kernel("quantized_decomposed::dequantize_per_tensor.Tensor_out",
               "dequantize_per_tensor.Tensor_out(Tensor input, Tensor scale, Tensor zero_point, int quant_min, "
               "int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None, Tensor(a!) out) -> Tensor(a!)",
               q.dequantize_per_tensor.tensor, with_out_dtype),
        Kernel("quantized_decomposed::quantize_per_channel.out",
               "quantize_per_channel.out(Tensor input, Tensor scales, Tensor zero_points, int axis, int quant_min, "
               "int quant_max, ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)",
               q.quantize_per_channel.default, plain),
        Kernel("quantized_decomposed::dequantize_per_channel.out",
               "dequantize_per_channel.out(Tensor input, Tensor scales, Tensor? zero_points, int axis, "
               "int quant_min, int quant_max, ScalarType dtype, *, ScalarType? out_dtype=None, Tensor(a!) out) "
               "-> Tensor(a!)",
               q.dequantize_per_channel.default, with_out_dtype),
        Kernel("quantized_decomposed::choose_qparams.Tensor_out",
               "choose_qparams.Tensor_out(Tensor input, int quant_min, int quant_max, float eps, ScalarType dtype, "
               "*, Tensor(a!) scale_out, Tensor(b!) zero_point_out) -> (Tensor(a!), Tensor(b!))",
               q.choose_qparams.tensor, plain),
        Kernel("quantized_decomposed::choose_qparams_per_token_asymmetric.out",
               "choose_qparams_per_token_asymmetric.out(Tensor input, ScalarType dtype, *, Tensor(a!) scale_out, "
               "Tensor(b!) zero_point_out) -> (Tensor(a!), Tensor(b!))",
               q.choose_qparams_per_token_asymmetric.default, plain),
        Kernel("quantized_decomposed::quantize_per_token.out",
               "quantize_per_token.out(Tensor input, Tensor scales, Tensor zero_points, int quant_min, "
               "int quant_max, ScalarType dtype, *, Tensor(a!) out) -> Tensor(a!)",
               q.quantize_per_token.default, plain),
        Kernel("quantized_decomposed::dequantize_per_token.out",
               "dequantize_per_token.out(Tensor input, Tensor scales, Tensor zero_points, int quant_min, "
               "int quant_max, ScalarType dtype, ScalarType output_dtype, *, Tensor(a!) out) -> Tensor(a!)",
               q.dequantize_per_token.default, plain),
    ]


CATALOGUES = {
    "quantized_decomposed::quantize_per_tensor.out": quantize_per_tensor_cases,
    "quantized_decomposed::quantize_per_tensor.Tensor_out": quantize_per_tensor_tensor_cases,
    "quantized_decomposed::dequantize_per_tensor.out": dequantize_per_tensor_cases,
    "quantized_decomposed::dequantize_per_tensor.Tensor_out": dequantize_per_tensor_tensor_cases,
    "quantized_decomposed::quantize_per_channel.out": quantize_per_channel_cases,
    "quantized_decomposed::dequantize_per_channel.out": dequantize_per_channel_cases,
    "quantized_decomposed::choose_qparams.Tensor_out": choose_qparams_cases,
    "quantized_decomposed::choose_qparams_per_token_asymmetric.out": choose_qparams_per_token_cases,
    "quantized_decomposed::quantize_per_token.out": quantize_per_token_cases,
    "quantized_decomposed::dequantize_per_token.out": dequantize_per_token_cases,
}


# ---------------------------------------------------------------------------
# Running the cases


def as_tuple(result: Any) -> List[torch.Tensor]:
    return list(result) if isinstance(result, (tuple, list)) else [result]


def run_eager(kernel: Kernel, case: QCase) -> Optional[List[torch.Tensor]]:
    args, kwargs = kernel.bind(values(case.args))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return [r.clone() for r in as_tuple(kernel.functional(*args, **kwargs))]
    except Exception:  # PyTorch refuses (Double input, ...)
        return None


class Batch(torch.nn.Module):
    """Every ExecuTorch-run case of one kernel in one forward: the tensor
    arguments are the program's inputs, the rest is baked into the graph."""

    def __init__(self, kernel: Kernel, cases: Sequence[QCase]) -> None:
        super().__init__()
        self.kernel = kernel
        self.cases = list(cases)

    def forward(self, *tensors: torch.Tensor):
        outs = []
        k = 0
        for case in self.cases:
            vals = []
            for a in case.args:
                if a.kind == "out":
                    continue
                if a.kind == "tensor":
                    vals.append(tensors[k])
                    k += 1
                else:
                    vals.append(None if a.kind == "none" else a.value)
            args, kwargs = self.kernel.bind(vals)
            outs.extend(as_tuple(self.kernel.functional(*args, **kwargs)))
        return tuple(outs)


def run_executorch(kernel: Kernel, cases: Sequence[QCase]) -> None:
    from executorch.exir import EdgeCompileConfig, to_edge
    from executorch.runtime import Runtime
    from torch.export import export

    if not cases:
        return
    inputs = [a.value.contiguous() for c in cases for a in c.args if a.kind == "tensor"]
    module = Batch(kernel, cases)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ep = export(module, tuple(inputs), strict=True)
        program = to_edge(ep, compile_config=EdgeCompileConfig(_check_ir_validity=False)).to_executorch()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "batch.pte"
        path.write_bytes(program.buffer)
        method = Runtime.get().load_program(path).load_method("forward")
        outs = [o.clone() for o in method.execute(inputs)]
    k = 0
    for case in cases:
        n = len(case.eager) if case.eager is not None else len(as_tuple(run_shapes(kernel, case)))
        case.executorch = outs[k:k + n]
        k += n


def run_shapes(kernel: Kernel, case: QCase):
    """The result of the functional op's Meta kernel (its output count)."""
    args, kwargs = kernel.bind([v.to("meta") if isinstance(v, torch.Tensor) else v for v in values(case.args)])
    return kernel.functional(*args, **kwargs)


def same(a: Sequence[torch.Tensor], b: Sequence[torch.Tensor]) -> Tuple[bool, str]:
    if len(a) != len(b):
        return False, f"{len(a)} vs {len(b)} outputs"
    worst = []
    for x, y in zip(a, b):
        if x.shape != y.shape or x.dtype != y.dtype:
            return False, f"{x.dtype}{list(x.shape)} vs {y.dtype}{list(y.shape)}"
        xd, yd = x.double(), y.double()
        differ = ~((xd == yd) | (xd.isnan() & yd.isnan()))
        if bool(differ.any()):
            worst.append(f"{int(differ.sum())}/{x.numel()} elements differ, max {float((xd - yd)[differ].abs().max()):.3g}")
    return (not worst), "; ".join(worst)


# ---------------------------------------------------------------------------
# Encoding


def encode(kernel: Kernel, index: int, case: QCase) -> gf.Case:
    args = []
    for a in case.args:
        if a.kind == "tensor":
            tensor = a.value
            if a.strided:
                args.append(gf.Value(gf.TAG_TENSOR, gf.TensorValue(tensor.contiguous(), tuple(tensor.stride()),
                                                                   tensor.storage_offset())))
            else:
                args.append(gf.Value(gf.TAG_TENSOR, gf.TensorValue(tensor.contiguous())))
        elif a.kind == "double":
            args.append(gf.Value(gf.TAG_DOUBLE, a.value))
        elif a.kind == "int":
            args.append(gf.Value(gf.TAG_INT, a.value))
        elif a.kind == "dtype":
            args.append(gf.Value(gf.TAG_SCALAR_TYPE, gf.SCALAR_TYPE[a.value]))
        elif a.kind == "none":
            args.append(gf.Value(gf.TAG_NONE))
    expected_values = []
    if case.error:
        first = next(a.value for a in case.args if a.kind == "tensor")
        shapes = [tuple(first.shape)] * sum(1 for a in case.args if a.kind == "out")
    else:
        chosen = case.executorch if case.oracle == "executorch" else case.eager
        shapes = [tuple(r.shape) for r in chosen]
        expected_values = [gf.Value(gf.TAG_TENSOR, gf.TensorValue(r.contiguous())) for r in chosen]
    outs = [a for a in case.args if a.kind == "out"]
    for a, shape in zip(outs, shapes):
        args.append(gf.Value(gf.TAG_OUT_TENSOR, gf.OutSpec(a.value, shape)))
    first = next(a.value for a in case.args if a.kind == "tensor")
    note = case.note
    if not case.error:
        note = (f"oracle {case.oracle}" + (f"; {note}" if note else ""))
    return gf.Case(
        expect=gf.EXPECT_ERROR if case.error else gf.EXPECT_VALUES,
        tolerance=gf.TOL_EXACT,
        source_kind=gf.SOURCE_ERROR if case.error else gf.SOURCE_BOUNDARY,
        dtype=gf.SCALAR_TYPE.get(first.dtype, gf.NO_DTYPE),
        sample_index=index,
        source=f"quantized:{case.name}",
        note=note,
        args=args,
        expected=expected_values,
    )


def generate(out_dir: Path) -> Dict[str, Any]:
    global qd
    import torch.ao.quantization.fx._decomposed  # noqa: F401  (the functional ops)
    import executorch.kernels.quantized  # noqa: F401  (out variants + runtime kernels)

    qd = torch.ops.quantized_decomposed
    torch.manual_seed(SEED)
    out_dir.mkdir(parents=True, exist_ok=True)
    stats: Dict[str, Any] = {"generator": GENERATOR, "seed": SEED, "torch": torch.__version__, "kernels": {}}
    from importlib import metadata

    stats["executorch"] = metadata.version("executorch")
    index_lines = [f"# Generated by {GENERATOR}; do not edit.",
                   "# One golden file per kernel: <kernel> <file> <value cases> <error cases>"]
    for n, kernel in enumerate(kernels()):
        gen = torch.Generator().manual_seed(SEED + 7919 * n)
        kernel.cases = CATALOGUES[kernel.name](gen)
        for case in kernel.cases:
            if not case.error:
                case.eager = run_eager(kernel, case)
        run_executorch(kernel, [c for c in kernel.cases if c.oracle == "executorch"])
        # ExecuTorch also runs the eager-oracle cases it can execute without
        # aborting, so their disagreement is on record.
        et_extra = [c for c in kernel.cases if c.oracle == "eager" and not c.error and runnable_in_executorch(c)]
        run_executorch(kernel, et_extra)
        records = []
        for index, case in enumerate(kernel.cases):
            record: Dict[str, Any] = {"case": index, "name": case.name, "oracle": case.oracle,
                                      "error": case.error}
            if case.note:
                record["note"] = case.note
            if not case.error:
                chosen = case.executorch if case.oracle == "executorch" else case.eager
                if chosen is None:
                    raise RuntimeError(f"{kernel.name} {case.name}: the {case.oracle} oracle gave no result")
                if case.eager is not None and case.executorch is not None:
                    agree, detail = same(case.executorch, case.eager)
                    record["executorch_vs_eager"] = "identical" if agree else detail
                else:
                    record["executorch_vs_eager"] = ("eager refuses the case" if case.eager is None
                                                     else "not run in ExecuTorch: " + not_runnable_reason(case))
            records.append(record)
        data = gf.encode_file(GENERATOR, f"torch {torch.__version__}; executorch {stats['executorch']}; seed {SEED}",
                              kernel.name, kernel.schema,
                              [encode(kernel, k, c) for k, c in enumerate(kernel.cases)])
        name = gf.file_name(kernel.name)
        (out_dir / name).write_bytes(data)
        value_cases = sum(1 for c in kernel.cases if not c.error)
        error_cases = len(kernel.cases) - value_cases
        index_lines.append(f"{kernel.name} {name} {value_cases} {error_cases}")
        stats["kernels"][kernel.name] = {
            "value_cases": value_cases,
            "error_cases": error_cases,
            "oracle_executorch": sum(1 for c in kernel.cases if c.oracle == "executorch"),
            "oracle_eager": sum(1 for c in kernel.cases if c.oracle == "eager"),
            "executorch_differs_from_eager": sum(1 for r in records if differs(r)),
            "cases": records,
        }
    (out_dir / "index.txt").write_text("\n".join(index_lines) + "\n")
    (out_dir / "stats.json").write_text(json.dumps(stats, indent=1, sort_keys=False) + "\n")
    return stats


def differs(record: Dict[str, Any]) -> bool:
    verdict = record.get("executorch_vs_eager")
    return verdict is not None and verdict != "identical" and not verdict.startswith(("eager refuses", "not run"))


def not_runnable_reason(case: QCase) -> str:
    """Why ExecuTorch's runtime is not asked (empty when it is)."""
    for a in case.args:
        if (a.kind == "tensor" and a.value.dtype == torch.bfloat16) or (a.kind == "out" and a.value == torch.bfloat16):
            return "it aborts on BFloat16"
        if a.kind == "tensor" and a.value.numel() == 0:
            return "an empty program input"
    return ""


def runnable_in_executorch(case: QCase) -> bool:
    """ExecuTorch runs it without aborting (its result may be undefined)."""
    return not not_runnable_reason(case)


def check() -> int:
    with tempfile.TemporaryDirectory(prefix="etref-qgolden-") as tmp:
        fresh = Path(tmp)
        generate(fresh)
        want = sorted(p.name for p in fresh.iterdir())
        have = sorted(p.name for p in OUT_DIR.iterdir()) if OUT_DIR.is_dir() else []
        problems = [f"missing: {n}" for n in sorted(set(want) - set(have))]
        problems += [f"unexpected: {n}" for n in sorted(set(have) - set(want))]
        problems += [f"differs: {n}" for n in sorted(set(want) & set(have))
                     if (fresh / n).read_bytes() != (OUT_DIR / n).read_bytes()]
    for p in problems:
        print(p)
    print(f"check: {len(want)} files, {len(problems)} problem(s)")
    return 1 if problems else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="regenerate into a temp dir and compare")
    args = parser.parse_args()
    torch.set_num_threads(1)
    if args.check:
        return check()
    stats = generate(OUT_DIR)
    for name, k in stats["kernels"].items():
        print(f"{name}: {k['value_cases']} value + {k['error_cases']} error cases "
              f"(oracle: {k['oracle_executorch']} executorch, {k['oracle_eager']} eager)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
