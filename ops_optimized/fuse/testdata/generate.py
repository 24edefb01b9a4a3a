# SPDX-License-Identifier: Apache-2.0
"""Writes chains.pte and its inputs and eager outputs, the program
fuse_test's elementwise-chain tests load (ops_optimized/fuse/fuse_chain.c).

Run from the repository root with the pinned toolchain (datasets/install.sh):
    .venv/bin/python ops_optimized/fuse/testdata/generate.py

The program is what to_edge makes of hardswish, hardsigmoid, relu6, a
residual add + relu, and a few arithmetic runs with constants on either
side, on [2, 3, 13, 17] (1326 floats: one 1024-float tile of the fused
kernel and a tail that is no multiple of a vector):

  h = hardswish(x)                  add 3, clamp 0, clamp 6, mul x, div 6
  y = relu(h + r)                   two inputs; h is read again below, so
                                    the hardswish chain ends at h
  z = hardsigmoid(y) * h            y is an output: the chain starts after it
  w = clamp(c / (z * 0.5 - 2), -3, 3)   a constant divided by the chain
  v = relu6(w - x)                  a second input late in the chain
Seeded; the inputs hold values around hardswish's corners (-3, 0, 3).
"""

import sys
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from executorch.exir import to_edge

SEED = 4242
SHAPE = (2, 3, 13, 17)


class Chains(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("c", torch.tensor(1.5))

    def forward(self, x: torch.Tensor, r: torch.Tensor):
        h = F.hardswish(x)
        y = torch.relu(h + r)
        z = F.hardsigmoid(y) * h
        w = torch.clamp(torch.div(self.c, z * 0.5 - 2.0), -3.0, 3.0)
        v = F.relu6(w - x)
        return h, y, z, v


def inputs() -> tuple:
    gen = torch.Generator().manual_seed(SEED)
    x = torch.randn(*SHAPE, generator=gen) * 4.0
    # Exactly on the corners, and next to them.
    flat = x.view(-1)
    corners = torch.tensor([-3.0, 0.0, -0.0, 3.0, 6.0, -6.0])
    flat[: corners.numel()] = corners
    flat[corners.numel(): 2 * corners.numel()] = torch.nextafter(corners, torch.tensor(10.0))
    r = torch.randn(*SHAPE, generator=gen)
    return x, r


def main() -> int:
    torch.manual_seed(SEED)
    here = Path(__file__).resolve().parent
    model = Chains().eval()
    x, r = inputs()
    program = to_edge(torch.export.export(model, (x, r), strict=False)).to_executorch()
    (here / "chains.pte").write_bytes(program.buffer)
    np.save(here / "chains_input_0.npy", x.numpy())
    np.save(here / "chains_input_1.npy", r.numpy())
    with torch.no_grad():
        for k, out in enumerate(model(x, r)):
            np.save(here / f"chains_eager_output_{k}.npy", out.numpy())
    return 0


if __name__ == "__main__":
    sys.exit(main())
