#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Prints which input dtypes PyTorch's CPU kernels accept for each op that
ops_reference/ implements (Y = accepted, - = rejected), so every kernel's
dtype set can be checked against the installed PyTorch.

Usage: /tmp/probe_venv/bin/python ops_reference/tools/probe_dtypes.py
"""

import torch
import torch.nn.functional as F

A = torch.ops.aten
DTYPES = [torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
          torch.float16, torch.bfloat16, torch.float32, torch.float64,
          torch.complex64, torch.complex128, torch.uint16]


def t(d, *shape):
    return (torch.arange(1, 1 + int(torch.tensor(shape).prod())).reshape(shape) % 3).to(d)


OPS = {
    "add": lambda d: A.add.Tensor(t(d, 2, 3), t(d, 2, 3)),
    "sub": lambda d: A.sub.Tensor(t(d, 2, 3), t(d, 2, 3)),
    "mul": lambda d: A.mul.Tensor(t(d, 2, 3), t(d, 2, 3)),
    "div": lambda d: A.div.Tensor(t(d, 2, 3), t(d, 2, 3) + 1),
    "div_floor": lambda d: A.div.Tensor_mode(t(d, 2, 3), t(d, 2, 3) + 1, rounding_mode="floor"),
    "div_trunc": lambda d: A.div.Tensor_mode(t(d, 2, 3), t(d, 2, 3) + 1, rounding_mode="trunc"),
    "remainder": lambda d: A.remainder.Scalar(t(d, 2, 3), 2),
    "mm": lambda d: A.mm(t(d, 2, 3), t(d, 3, 2)),
    "bmm": lambda d: A.bmm(t(d, 1, 2, 3), t(d, 1, 3, 2)),
    "addmm": lambda d: A.addmm(t(d, 2), t(d, 2, 3), t(d, 3, 2)),
    "linear": lambda d: A.linear(t(d, 2, 3), t(d, 2, 3), t(d, 2)),
    "relu": lambda d: A.relu(t(d, 2, 3)),
    "hardtanh": lambda d: A.hardtanh(t(d, 2, 3), 0, 1),
    "clamp": lambda d: A.clamp(t(d, 2, 3), 0, 1),
    "sigmoid": lambda d: A.sigmoid(t(d, 2, 3)),
    "tanh": lambda d: A.tanh(t(d, 2, 3)),
    "exp": lambda d: A.exp(t(d, 2, 3)),
    "sqrt": lambda d: A.sqrt(t(d, 2, 3)),
    "rsqrt": lambda d: A.rsqrt(t(d, 2, 3)),
    "neg": lambda d: A.neg(t(d, 2, 3)),
    "pow_ts": lambda d: A.pow.Tensor_Scalar(t(d, 2, 3), 2),
    "gelu": lambda d: A.gelu(t(d, 2, 3)),
    "softmax": lambda d: A._softmax(t(d, 2, 3), 1, False),
    "log_softmax": lambda d: A._log_softmax(t(d, 2, 3), 1, False),
    "layer_norm": lambda d: A.native_layer_norm(t(d, 2, 3), [3], t(d, 3), t(d, 3), 1e-5),
    "batch_norm": lambda d: A._native_batch_norm_legit_no_training(t(d, 1, 2, 2, 2), t(d, 2), t(d, 2), t(d, 2), t(d, 2) + 1, 0.1, 1e-5),
    "conv": lambda d: A.convolution(t(d, 1, 2, 4, 4), t(d, 2, 2, 3, 3), None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1),
    "conv_t": lambda d: A.convolution(t(d, 1, 2, 4, 4), t(d, 2, 2, 3, 3), None, [1, 1], [0, 0], [1, 1], True, [0, 0], 1),
    "max_pool": lambda d: A.max_pool2d_with_indices(t(d, 1, 2, 4, 4), [2, 2]),
    "avg_pool": lambda d: A.avg_pool2d(t(d, 1, 2, 4, 4), [2, 2]),
    "adaptive_avg": lambda d: A._adaptive_avg_pool2d(t(d, 1, 2, 4, 4), [1, 1]),
    "mean": lambda d: A.mean.dim(t(d, 2, 3), [1]),
    "sum": lambda d: A.sum.dim_IntList(t(d, 2, 3), [1]),
    "any": lambda d: A.any(t(d, 2, 3)),
    "gt": lambda d: A.gt.Tensor(t(d, 2, 3), t(d, 2, 3)),
    "eq_s": lambda d: A.eq.Scalar(t(d, 2, 3), 1),
    "where": lambda d: A.where.self(t(torch.bool, 2, 3), t(d, 2, 3), t(d, 2, 3)),
    "cat": lambda d: A.cat([t(d, 2, 3), t(d, 2, 3)]),
    "index_put": lambda d: A.index_put(t(d, 4, 3), [torch.tensor([1])], t(d, 3)),
    "full": lambda d: A.full([2], 1, dtype=d),
    "copy": lambda d: A.copy(t(d, 2, 3), t(d, 2, 3)),
    "permute": lambda d: A.permute_copy(t(d, 2, 3), [1, 0]),
}


def main():
    names = [str(d).replace("torch.", "") for d in DTYPES]
    print("op".ljust(14) + " ".join(n[:5].rjust(5) for n in names))
    for op, fn in OPS.items():
        row = []
        for d in DTYPES:
            try:
                fn(d)
                row.append("Y")
            except Exception:
                row.append("-")
        print(op.ljust(14) + " ".join(r.rjust(5) for r in row))


if __name__ == "__main__":
    main()
