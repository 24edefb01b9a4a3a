#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Lists the operators that `to_edge(...).to_executorch()` emits for small
models, so ops_reference/ can be checked to cover every one of them.

Each probe is a tiny module exported with the stock pipeline
(torch.export.export -> executorch.exir.to_edge -> to_executorch); the script
prints, per probe, the sorted operator names of the serialized program and
finally their union. Prim ops (executorch_prim::*, aten::sym_*,
aten::_local_scalar_dense) are listed but marked, since core/ runs them.

Usage: /tmp/probe_venv/bin/python ops_reference/tools/probe_emitted_ops.py
"""

import torch
import torch.nn.functional as F
from torch import nn
from torch.export import Dim, export

from executorch.exir import to_edge


class RingBuffer(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("step", torch.tensor([5], dtype=torch.int64))
        self.register_buffer("cache", torch.zeros(4, 8))
        self.proj = nn.Linear(8, 8)

    def forward(self, x):
        slot = torch.remainder(self.step, 4)
        self.cache.index_copy_(0, slot, self.proj(x))
        self.step.add_(1)
        return self.cache.sum(dim=0, keepdim=True) + self.step.to(torch.float32), self.step + 0


class Cond(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def forward(self, x):
        return torch.cond(x.sum() > 0, lambda v: F.relu(self.fc(v)) + 1.0,
                          lambda v: torch.tanh(self.fc(v)) * 2.0 - 1.0, (x,))


class Lambda(nn.Module):
    def __init__(self, fn, *children):
        super().__init__()
        self.fn = fn
        self.children_ = nn.ModuleList(children)

    def forward(self, *xs):
        return self.fn(self, *xs)


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln = nn.LayerNorm(16)
        self.q = nn.Linear(16, 16)

    def forward(self, x):
        h = self.ln(x)
        q = self.q(h).view(1, 4, 2, 8).transpose(1, 2)
        s = torch.matmul(q, q.transpose(-2, -1)) * 0.35
        a = torch.matmul(torch.softmax(s, dim=-1), q)
        return x + F.gelu(a.transpose(1, 2).reshape(1, 4, 16))


def probes():
    x4 = torch.randn(1, 3, 16, 16)
    yield "linear", nn.Linear(8, 4), (torch.randn(2, 8),), None
    yield "linear3d", nn.Linear(8, 4), (torch.randn(2, 3, 8),), None
    yield "cnn", nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                               nn.MaxPool2d(2), nn.AvgPool2d(2), nn.Flatten(), nn.Linear(128, 10)), (x4,), None
    yield "relu6_depthwise", nn.Sequential(nn.Conv2d(3, 3, 3, 2, 1, groups=3, bias=False), nn.BatchNorm2d(3),
                                           nn.ReLU6(), nn.AdaptiveAvgPool2d(1)), (x4,), None
    yield "conv_transpose", nn.ConvTranspose2d(3, 4, 3, stride=2), (x4,), None
    yield "layernorm", nn.LayerNorm(16), (torch.randn(2, 4, 16),), None
    yield "gelu", nn.Sequential(nn.GELU(), nn.GELU(approximate="tanh")), (torch.randn(2, 8),), None
    yield "softmax", nn.Sequential(nn.Softmax(dim=-1), nn.LogSoftmax(dim=1)), (torch.randn(2, 8),), None
    yield "attention", Attention(), (torch.randn(1, 4, 16),), None
    yield "lstm", nn.LSTM(8, 16, batch_first=True), (torch.randn(1, 5, 8),), None
    yield "cond", Cond(), (torch.randn(2, 8),), None
    yield "mutable_buffer", RingBuffer(), (torch.randn(1, 8),), None
    yield "dynamic_mean", nn.Sequential(nn.Linear(16, 16)), (torch.randn(1, 4, 16),), \
        ({0: None, 1: Dim("seq", min=2, max=32)},)
    yield "misc", Lambda(lambda m, a, b: (torch.where(a > b, a, b).clamp(-1, 1), (a < 0).any(),
                                          torch.cat([a, b], 1)[:, 1:5], a.mean(dim=(0, 1), keepdim=True),
                                          torch.split(a, [3, 5], 1)[1].sigmoid(), a.rsqrt().exp() ** 2,
                                          a.unsqueeze(0).squeeze(0).permute(1, 0), a / b, torch.div(a, b, rounding_mode="floor"))), \
        (torch.randn(2, 8), torch.randn(2, 8)), None


def main():
    union = set()
    for name, model, inputs, dyn in probes():
        model = model.eval().requires_grad_(False)
        ep = export(model, inputs, dynamic_shapes=dyn, strict=False)
        prog = to_edge(ep).to_executorch()
        ops = set()
        for plan in prog.executorch_program.execution_plan:
            for op in plan.operators:
                ops.add(f"{op.name}.{op.overload}" if op.overload else op.name)
        union |= ops
        print(f"{name}: {' '.join(sorted(ops))}")
    print("UNION:")
    for op in sorted(union):
        prim = op.startswith("executorch_prim::") or op.startswith("aten::sym_") or op == "aten::_local_scalar_dense"
        print(("  (prim) " if prim else "  ") + op)


if __name__ == "__main__":
    main()
