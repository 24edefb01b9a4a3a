#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Generate the etref reference datasets: real ExecuTorch programs plus data.

Every model is defined in this file (no downloaded weights, no torchvision),
initialised with seeded random weights, exported with the stock ExecuTorch
toolchain (torch.export.export -> executorch.exir.to_edge -> to_executorch,
portable kernels unless a model says otherwise) and written to
datasets/models/<name>/ together with:

  * model.pte (or model.bpte / model.ptd for the bundled / external-data cases),
  * the seeded inputs (input_<i>.npy, the method's flattened positional inputs),
  * the PyTorch eager outputs (eager_output_<k>.npy, eval mode, no_grad),
  * the outputs of the real ExecuTorch runtime shipped in the executorch wheel
    (executorch_output_<k>.npy), when that runtime can run the program,
  * manifest.json describing all of the above (dtypes, shapes, operators,
    export configuration, max |eager - executorch|, notes).

Models with several input sets or several calls prefix their files with
"case<c>_" (independent input sets) or "call<c>_" (consecutive calls on one
loaded method whose state persists); see datasets/models/README.md.

The generator is byte-reproducible: running it twice yields identical files
(see datasets/SHA256SUMS); `--check` regenerates into a temporary directory
and compares with the checked-in tree.

Usage (from the repository root, after datasets/install.sh):
    .venv/bin/python datasets/generate.py            # (re)write datasets/
    .venv/bin/python datasets/generate.py --check    # verify checked-in tree
"""

import os
import sys

# Hash randomisation could perturb the iteration order of sets inside the
# exporter; pin it (and single-threaded math) before anything is imported.
if os.environ.get("PYTHONHASHSEED") != "0":
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable] + sys.argv)
for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse  # noqa: E402
import contextlib  # noqa: E402
import copy  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import logging  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch import nn  # noqa: E402
from torch.export import Dim, export  # noqa: E402
from torch.utils._pytree import tree_flatten  # noqa: E402

from executorch.version import __version__ as EXECUTORCH_VERSION  # noqa: E402
from executorch.exir import (  # noqa: E402
    EdgeCompileConfig,
    ExecutorchBackendConfig,
    to_edge,
    to_edge_transform_and_lower,
)
from executorch.exir._serialize._flatbuffer_program import (  # noqa: E402
    _program_to_flatbuffer,
)
from executorch.exir._serialize._program import deserialize_pte_binary  # noqa: E402
from executorch.exir.passes.init_mutable_pass import (  # noqa: E402
    InitializedMutableBufferPass,
)
from executorch.exir.schema import DataLocation  # noqa: E402

DATASETS_DIR = Path(__file__).resolve().parent
GENERATOR = "datasets/generate.py"
GENERATOR_COMMAND = ".venv/bin/python datasets/generate.py"
FLOAT_TOLERANCE = 1e-4  # documented expectation for |eager - executorch|

log = logging.getLogger("generate")


# ---------------------------------------------------------------------------
# Determinism
# ---------------------------------------------------------------------------


def make_deterministic() -> None:
    torch.set_num_threads(1)
    torch.set_num_interop_threads(1)
    torch.use_deterministic_algorithms(True)
    np.random.seed(0)
    from executorch.extension.pybindings import portable_lib

    portable_lib._unsafe_reset_threadpool(1)


def seeded_randn(seed: int, *shape: int) -> torch.Tensor:
    gen = torch.Generator().manual_seed(seed)
    return torch.randn(*shape, generator=gen)


def randomize_batchnorm_stats(module: nn.Module, seed: int) -> None:
    """Give every BatchNorm non-trivial running stats and affine params."""
    gen = torch.Generator().manual_seed(seed)
    for m in module.modules():
        if isinstance(m, nn.BatchNorm2d):
            c = m.num_features
            with torch.no_grad():
                m.running_mean.copy_(torch.randn(c, generator=gen) * 0.1)
                m.running_var.copy_(torch.rand(c, generator=gen) * 0.5 + 0.75)
                m.weight.copy_(torch.rand(c, generator=gen) * 0.5 + 0.75)
                m.bias.copy_(torch.randn(c, generator=gen) * 0.1)


# ---------------------------------------------------------------------------
# Model definitions (all architectures live here; nothing is downloaded)
# ---------------------------------------------------------------------------


class MLP(nn.Module):
    def __init__(self, d_in: int = 32, hidden: int = 64, d_out: int = 10) -> None:
        super().__init__()
        self.fc1 = nn.Linear(d_in, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.fc3 = nn.Linear(hidden, d_out)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = F.relu(self.fc1(x))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


class CNN(nn.Module):
    def __init__(self, num_classes: int = 10) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(16)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.bn2 = nn.BatchNorm2d(32)
        self.pool_max = nn.MaxPool2d(2)
        self.pool_avg = nn.AvgPool2d(2)
        self.fc = nn.Linear(32 * 8 * 8, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool_max(F.relu(self.bn1(self.conv1(x))))  # 16x16x16
        x = self.pool_avg(F.relu(self.bn2(self.conv2(x))))  # 32x8x8
        return self.fc(torch.flatten(x, 1))


def conv_bn_relu6(c_in: int, c_out: int, k: int, stride: int, groups: int = 1):
    return nn.Sequential(
        nn.Conv2d(c_in, c_out, k, stride, (k - 1) // 2, groups=groups, bias=False),
        nn.BatchNorm2d(c_out),
        nn.ReLU6(),
    )


class InvertedResidual(nn.Module):
    def __init__(self, c_in: int, c_out: int, stride: int, expand: int) -> None:
        super().__init__()
        hidden = c_in * expand
        self.use_residual = stride == 1 and c_in == c_out
        layers: List[nn.Module] = []
        if expand != 1:
            layers.append(conv_bn_relu6(c_in, hidden, 1, 1))  # pointwise expand
        layers += [
            conv_bn_relu6(hidden, hidden, 3, stride, groups=hidden),  # depthwise
            nn.Conv2d(hidden, c_out, 1, 1, 0, bias=False),  # pointwise project
            nn.BatchNorm2d(c_out),
        ]
        self.block = nn.Sequential(*layers)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.block(x)
        return x + y if self.use_residual else y


class MobileNetV2Small(nn.Module):
    # (expansion t, output channels c, repeats n, first stride s), as in the
    # MobileNetV2 paper but with reduced width and depth.
    SETTINGS = [(1, 8, 1, 1), (6, 12, 2, 2), (6, 16, 2, 2), (6, 24, 2, 2), (6, 32, 2, 1)]

    def __init__(self, num_classes: int = 10, last_channels: int = 128) -> None:
        super().__init__()
        layers: List[nn.Module] = [conv_bn_relu6(3, 16, 3, 2)]
        c_in = 16
        for t, c, n, s in self.SETTINGS:
            for i in range(n):
                layers.append(InvertedResidual(c_in, c, s if i == 0 else 1, t))
                c_in = c
        layers.append(conv_bn_relu6(c_in, last_channels, 1, 1))
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(last_channels, num_classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.pool(self.features(x))
        return self.classifier(torch.flatten(x, 1))


class BasicBlock(nn.Module):
    """ResNet's basic block: conv3x3-BN-ReLU-conv3x3-BN plus the shortcut
    (a strided 1x1 conv + BN where the shape changes), then ReLU."""

    def __init__(self, c_in: int, c_out: int, stride: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(c_in, c_out, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(c_out)
        self.conv2 = nn.Conv2d(c_out, c_out, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(c_out)
        self.down = None
        if stride != 1 or c_in != c_out:
            self.down = nn.Sequential(nn.Conv2d(c_in, c_out, 1, stride, bias=False), nn.BatchNorm2d(c_out))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = torch.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return torch.relu(y + (x if self.down is None else self.down(x)))


class ResNetSmall(nn.Module):
    """ResNet-18's shape at reduced width and depth: the 7x7 stride-2 stem,
    BN, ReLU and 3x3 stride-2 max pool, one basic block per stage (32, 64,
    128 channels), global average pool, linear."""

    def __init__(self, num_classes: int = 10) -> None:
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, 32, 7, 2, 3, bias=False), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(3, 2, 1)
        )
        self.layers = nn.Sequential(BasicBlock(32, 32, 1), BasicBlock(32, 64, 2), BasicBlock(64, 128, 2))
        self.fc = nn.Linear(128, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.layers(self.stem(x))
        return self.fc(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1))


class SqueezeExcite(nn.Module):
    def __init__(self, c: int) -> None:
        super().__init__()
        self.fc1 = nn.Conv2d(c, c // 4, 1)
        self.fc2 = nn.Conv2d(c // 4, c, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        s = F.adaptive_avg_pool2d(x, 1)
        return x * F.hardsigmoid(self.fc2(torch.relu(self.fc1(s))))


class MobileNetV3Block(nn.Module):
    """Expand 1x1 - depthwise kxk - squeeze-excite - project 1x1, with BN,
    ReLU or hardswish, and a residual add where the shape allows."""

    def __init__(self, c_in: int, c_exp: int, c_out: int, k: int, stride: int, se: bool, hswish: bool) -> None:
        super().__init__()
        act = nn.Hardswish if hswish else nn.ReLU
        layers: List[nn.Module] = []
        if c_exp != c_in:
            layers += [nn.Conv2d(c_in, c_exp, 1, bias=False), nn.BatchNorm2d(c_exp), act()]
        layers += [nn.Conv2d(c_exp, c_exp, k, stride, k // 2, groups=c_exp, bias=False), nn.BatchNorm2d(c_exp), act()]
        if se:
            layers.append(SqueezeExcite(c_exp))
        layers += [nn.Conv2d(c_exp, c_out, 1, bias=False), nn.BatchNorm2d(c_out)]
        self.block = nn.Sequential(*layers)
        self.residual = stride == 1 and c_in == c_out

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.block(x)
        return x + y if self.residual else y


class MobileNetV3Small(nn.Module):
    """MobileNetV3-Small's first stages: hardswish stem, blocks with 3x3 and
    5x5 depthwise convolutions, squeeze-excite (hardsigmoid) and hardswish,
    then a 1x1 conv, global average pool and the hardswish classifier."""

    # (expanded, out channels, kernel, stride, squeeze-excite, hardswish)
    SETTINGS = [(16, 16, 3, 2, True, False), (72, 24, 3, 2, False, False), (88, 24, 3, 1, False, False),
                (96, 40, 5, 2, True, True), (120, 40, 5, 1, True, True)]

    def __init__(self, num_classes: int = 10) -> None:
        super().__init__()
        layers: List[nn.Module] = [nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.Hardswish()]
        c_in = 16
        for c_exp, c_out, k, stride, se, hswish in self.SETTINGS:
            layers.append(MobileNetV3Block(c_in, c_exp, c_out, k, stride, se, hswish))
            c_in = c_out
        layers += [nn.Conv2d(c_in, 96, 1, bias=False), nn.BatchNorm2d(96), nn.Hardswish()]
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Sequential(nn.Linear(96, 128), nn.Hardswish(), nn.Dropout(0.2), nn.Linear(128, num_classes))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = torch.flatten(F.adaptive_avg_pool2d(self.features(x), 1), 1)
        return self.classifier(x)


class TransformerBlock(nn.Module):
    """Pre-norm encoder block: x + MHA(LN(x)); x + MLP(LN(x)), written by hand."""

    def __init__(self, d_model: int = 64, heads: int = 4, d_ff: int = 128) -> None:
        super().__init__()
        self.heads = heads
        self.d_head = d_model // heads
        self.ln1 = nn.LayerNorm(d_model)
        self.q = nn.Linear(d_model, d_model)
        self.k = nn.Linear(d_model, d_model)
        self.v = nn.Linear(d_model, d_model)
        self.o = nn.Linear(d_model, d_model)
        self.ln2 = nn.LayerNorm(d_model)
        self.ff1 = nn.Linear(d_model, d_ff)
        self.ff2 = nn.Linear(d_ff, d_model)

    def _split(self, t: torch.Tensor) -> torch.Tensor:
        b, s, _ = t.shape
        return t.view(b, s, self.heads, self.d_head).transpose(1, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, s, d = x.shape
        h = self.ln1(x)
        q, k, v = self._split(self.q(h)), self._split(self.k(h)), self._split(self.v(h))
        scores = torch.matmul(q, k.transpose(-2, -1)) * (1.0 / self.d_head**0.5)
        attn = torch.matmul(torch.softmax(scores, dim=-1), v)
        x = x + self.o(attn.transpose(1, 2).reshape(b, s, d))
        return x + self.ff2(F.gelu(self.ff1(self.ln2(x))))


class LSTMHead(nn.Module):
    def __init__(self, d_in: int = 8, hidden: int = 16, d_out: int = 4) -> None:
        super().__init__()
        self.lstm = nn.LSTM(d_in, hidden, num_layers=1, batch_first=True)
        self.head = nn.Linear(hidden, d_out)

    def forward(self, x: torch.Tensor):
        out, (h, c) = self.lstm(x)
        return self.head(out), h, c


class RingBufferState(nn.Module):
    """A step counter plus a KV-cache-like ring buffer, both mutated in forward.

    Both buffers start from non-zero values that are serialized into the .pte
    (mutable-data segment), so a runtime must load them to reproduce the
    outputs of the first call.
    """

    SLOTS = 4
    WIDTH = 8

    def __init__(self) -> None:
        super().__init__()
        self.register_buffer("step", torch.tensor([5], dtype=torch.int64))
        init = torch.arange(self.SLOTS * self.WIDTH, dtype=torch.float32)
        self.register_buffer("cache", init.reshape(self.SLOTS, self.WIDTH) / 10.0)
        self.proj = nn.Linear(self.WIDTH, self.WIDTH)

    def forward(self, x: torch.Tensor):
        slot = torch.remainder(self.step, self.SLOTS)
        self.cache.index_copy_(0, slot, self.proj(x))
        self.step.add_(1)
        summary = self.cache.sum(dim=0, keepdim=True) + self.step.to(torch.float32)
        return summary, self.step + 0


class CondModel(nn.Module):
    """torch.cond on a data-dependent predicate (sum of the input > 0)."""

    def __init__(self) -> None:
        super().__init__()
        self.fc = nn.Linear(8, 8)

    def _positive(self, x: torch.Tensor) -> torch.Tensor:
        return F.relu(self.fc(x)) + 1.0

    def _negative(self, x: torch.Tensor) -> torch.Tensor:
        return torch.tanh(self.fc(x)) * 2.0 - 1.0

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cond(x.sum() > 0, self._positive, self._negative, (x,))


class DynamicSeq(nn.Module):
    """Per-token MLP plus a mean over a dynamic sequence dimension."""

    def __init__(self, d: int = 16) -> None:
        super().__init__()
        self.fc1 = nn.Linear(d, 32)
        self.fc2 = nn.Linear(32, d)

    def forward(self, x: torch.Tensor):
        y = self.fc2(F.relu(self.fc1(x)))
        return y, y.mean(dim=1)


class DemoAddMM(nn.Module):
    """z = mm(a, x) + b, then a portable op: the shape ExecuTorch's C++ demo
    backend (BackendWithCompilerDemo) was written for (2x2 float matrices)."""

    def forward(self, a: torch.Tensor, x: torch.Tensor, b: torch.Tensor):
        z = torch.mm(a, x) + b
        return torch.sigmoid(z)


# ---------------------------------------------------------------------------
# Common export / run / record helpers
# ---------------------------------------------------------------------------


@dataclass
class Case:
    """One set of inputs. `prefix` is "" for single-case models, otherwise
    "case<c>_" (independent input sets) or "call<c>_" (consecutive calls)."""

    prefix: str
    inputs: List[torch.Tensor]
    note: str = ""


def build_model(make_model: Callable[[], nn.Module], seed: int) -> nn.Module:
    """Seeded construction; eval mode, frozen weights (inference only)."""
    torch.manual_seed(seed)
    return make_model().eval().requires_grad_(False)


def single_case(*inputs: torch.Tensor) -> List[Case]:
    return [Case("", list(inputs))]


def flat_tensors(value: Any) -> List[torch.Tensor]:
    leaves, _ = tree_flatten(value)
    return [t.detach().clone() for t in leaves if isinstance(t, torch.Tensor)]


def run_eager(model: nn.Module, cases: Sequence[Case]) -> List[List[torch.Tensor]]:
    """Runs the cases in order on `model` (state persists between them)."""
    with torch.no_grad():
        return [flat_tensors(model(*case.inputs)) for case in cases]


def run_executorch(
    program_path: Path, cases: Sequence[Case], data_path: Optional[Path] = None
) -> List[List[torch.Tensor]]:
    """Runs the cases in order on one loaded method of the real runtime."""
    if data_path is None:
        from executorch.runtime import Runtime

        method = Runtime.get().load_program(program_path).load_method("forward")
        run = method.execute
    else:
        # executorch.runtime.Runtime.load_program() takes no data file in
        # the pinned executorch; the pybindings loader underneath it does.
        from executorch.extension.pybindings import portable_lib

        module = portable_lib._load_for_executorch(str(program_path), data_path=str(data_path))
        run = module.forward
    return [flat_tensors(run(list(case.inputs))) for case in cases]


@contextlib.contextmanager
def captured_stderr(sink: List[str]):
    """Captures what native code writes to file descriptor 2."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile(mode="w+b") as tmp:
        os.dup2(tmp.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            tmp.seek(0)
            sink.extend(line for line in tmp.read().decode("utf-8", "replace").splitlines() if line.strip())


def try_run_executorch(
    program_path: Path, cases: Sequence[Case], data_path: Optional[Path] = None
) -> Tuple[Optional[List[List[torch.Tensor]]], Optional[str]]:
    """run_executorch(), but a failure is returned as a note with the
    runtime's own log lines instead of being raised."""
    log_lines: List[str] = []
    try:
        with captured_stderr(log_lines):
            return run_executorch(program_path, cases, data_path), None
    except RuntimeError as exc:
        runtime_log = [line for line in log_lines if line.startswith("[") and "threadpool" not in line]
        return None, (
            f"The executorch {EXECUTORCH_VERSION} runtime refused this program: {type(exc).__name__}: {exc}; "
            f"runtime log: {' | '.join(runtime_log) or '(none)'}"
        )


def max_abs_diff(a: Sequence[torch.Tensor], b: Sequence[torch.Tensor]) -> float:
    if len(a) != len(b):
        raise RuntimeError(f"output count differs: {len(a)} vs {len(b)}")
    worst = 0.0
    for x, y in zip(a, b):
        if tuple(x.shape) != tuple(y.shape) or x.dtype != y.dtype:
            raise RuntimeError(f"output mismatch: {x.dtype}{list(x.shape)} vs {y.dtype}{list(y.shape)}")
        if x.numel():
            worst = max(worst, float((x.double() - y.double()).abs().max()))
    return worst


def operator_name(op) -> str:
    return f"{op.name}.{op.overload}" if op.overload else op.name


def describe_program(data: bytes) -> Dict[str, Any]:
    """Operators, delegates and binary layout of a serialized .pte."""
    from executorch.exir._serialize._flatbuffer_program import _flatbuffer_to_program
    from executorch.exir._serialize._program import _get_extended_header

    header = _get_extended_header(data)
    has_header = header is not None and header.is_valid()
    raw = _flatbuffer_to_program(data[: header.program_size] if has_header else data)
    restored = deserialize_pte_binary(data).program

    operators = sorted({operator_name(op) for plan in restored.execution_plan for op in plan.operators})
    delegates = []
    for plan in raw.execution_plan:
        for d in plan.delegates:
            if d.processed.location == DataLocation.INLINE:
                blob = bytes(raw.backend_delegate_data[d.processed.index].data)
            else:
                seg = raw.segments[d.processed.index]
                start = header.segment_base_offset + seg.offset
                blob = data[start : start + seg.size]
            delegates.append(
                {
                    "plan": plan.name,
                    "id": d.id,
                    "processed_location": d.processed.location.name,
                    "processed_index": d.processed.index,
                    "processed_size": len(blob),
                    "processed_sha256": hashlib.sha256(blob).hexdigest(),
                    "compile_specs": [{"key": cs.key, "value_hex": bytes(cs.value).hex()} for cs in d.compile_specs],
                }
            )
    layout = {
        "file_size": len(data),
        "extended_header": (
            {
                "program_size": header.program_size,
                "segment_base_offset": header.segment_base_offset,
                "segment_data_size": header.segment_data_size,
            }
            if has_header
            else None
        ),
        "segments": [{"offset": s.offset, "size": s.size} for s in raw.segments],
        "constant_buffer_entries_inline": len(raw.constant_buffer),
        "constant_segment": {
            "segment_index": raw.constant_segment.segment_index,
            "offsets": len(raw.constant_segment.offsets),
        },
        "mutable_data_segments": [
            {"segment_index": m.segment_index, "offsets": len(m.offsets)} for m in (raw.mutable_data_segments or [])
        ],
        "backend_delegate_data_inline": len(raw.backend_delegate_data),
        "named_data_keys": [n.key for n in (raw.named_data or [])],
        "execution_plans": [p.name for p in raw.execution_plan],
    }
    return {"operators": operators, "delegates": delegates, "layout": layout}


class ModelDir:
    """Writes one datasets/models/<name>/ folder and its manifest."""

    def __init__(self, root: Path, name: str, description: str, seed: int, exercises: List[str]) -> None:
        self.dir = root / "models" / name
        self.dir.mkdir(parents=True, exist_ok=False)
        self.manifest: Dict[str, Any] = {
            "name": name,
            "description": description,
            "exercises": exercises,
            "generator": GENERATOR,
            "generator_command": GENERATOR_COMMAND,
            "versions": {
                "torch": torch.__version__,
                "executorch": EXECUTORCH_VERSION,
                "numpy": np.__version__,
            },
            "seed": seed,
            "method": "forward",
        }
        self.notes: List[str] = []

    def save_tensor(self, filename: str, tensor: torch.Tensor) -> Dict[str, Any]:
        array = tensor.detach().cpu().contiguous().numpy()
        with open(self.dir / filename, "wb") as f:
            np.save(f, array, allow_pickle=False)
        return {"file": filename, "dtype": str(array.dtype), "shape": list(array.shape)}

    def save_bytes(self, filename: str, data: bytes) -> Dict[str, Any]:
        (self.dir / filename).write_bytes(data)
        return {"file": filename, "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}

    def save_program(self, filename: str, data: bytes, kind: str = "pte") -> None:
        entry = self.save_bytes(filename, data)
        entry["format"] = kind
        self.manifest.setdefault("files", []).append(entry)
        if kind == "pte":
            self.manifest.update(describe_program(data))

    def record_cases(
        self,
        cases: Sequence[Case],
        eager: Sequence[Sequence[torch.Tensor]],
        et: Optional[Sequence[Sequence[torch.Tensor]]],
        *,
        stateful: bool = False,
        tolerance: float = FLOAT_TOLERANCE,
    ) -> None:
        records = []
        worst = 0.0
        for i, case in enumerate(cases):
            rec: Dict[str, Any] = {"prefix": case.prefix}
            if case.note:
                rec["note"] = case.note
            p = case.prefix
            rec["inputs"] = [self.save_tensor(f"{p}input_{k}.npy", t) for k, t in enumerate(case.inputs)]
            rec["eager_outputs"] = [self.save_tensor(f"{p}eager_output_{k}.npy", t) for k, t in enumerate(eager[i])]
            if et is not None:
                rec["executorch_outputs"] = [
                    self.save_tensor(f"{p}executorch_output_{k}.npy", t) for k, t in enumerate(et[i])
                ]
                rec["max_abs_diff"] = max_abs_diff(eager[i], et[i])
                worst = max(worst, rec["max_abs_diff"])
            records.append(rec)
        self.manifest["stateful_calls"] = stateful
        self.manifest["cases"] = records
        self.manifest["max_abs_diff_eager_vs_executorch"] = worst if et is not None else None
        if et is not None and worst > tolerance:
            raise RuntimeError(f"{self.manifest['name']}: eager vs executorch diff {worst} > {tolerance}")

    def finish(self) -> Dict[str, Any]:
        self.manifest["notes"] = self.notes
        text = json.dumps(self.manifest, indent=2, sort_keys=False) + "\n"
        (self.dir / "manifest.json").write_text(text)
        return self.manifest


def describe_config(kind: str, kwargs: Dict[str, Any]) -> Dict[str, Any]:
    """A JSON-able description of a config object built from `kwargs`."""

    def show(v: Any) -> Any:
        if isinstance(v, (bool, int, float, str)) or v is None:
            return v
        if isinstance(v, (list, tuple)):
            return [show(x) for x in v]
        if isinstance(v, InitializedMutableBufferPass):
            return f"InitializedMutableBufferPass({v.patterns!r})"
        return type(v).__name__

    return {"class": kind, "non_default_fields": {k: show(v) for k, v in kwargs.items()}}


def export_to_executorch(
    model: nn.Module,
    example_inputs: Sequence[torch.Tensor],
    *,
    dynamic_shapes: Any = None,
    partitioner: Optional[list] = None,
    backend_kwargs: Optional[Dict[str, Any]] = None,
    compile_kwargs: Optional[Dict[str, Any]] = None,
):
    """torch.export -> to_edge (or to_edge_transform_and_lower when a
    partitioner is given) -> to_executorch. Returns (manager, export_info)."""
    backend_kwargs = backend_kwargs or {}
    compile_kwargs = compile_kwargs or {}
    ep = export(model, tuple(example_inputs), dynamic_shapes=dynamic_shapes, strict=False)
    compile_config = EdgeCompileConfig(**compile_kwargs)
    if partitioner:
        edge = to_edge_transform_and_lower(ep, partitioner=partitioner, compile_config=compile_config)
        pipeline = "torch.export.export -> executorch.exir.to_edge_transform_and_lower -> to_executorch"
    else:
        edge = to_edge(ep, compile_config=compile_config)
        pipeline = "torch.export.export -> executorch.exir.to_edge -> to_executorch"
    manager = edge.to_executorch(ExecutorchBackendConfig(**backend_kwargs))
    info = {
        "pipeline": pipeline,
        "kernels": "portable (no partitioner)" if not partitioner else "partitioned + portable for the rest",
        "partitioner": [type(p).__name__ for p in partitioner] if partitioner else None,
        "edge_compile_config": describe_config("EdgeCompileConfig", compile_kwargs),
        "backend_config": describe_config("ExecutorchBackendConfig", backend_kwargs),
        "dynamic_shapes": None if dynamic_shapes is None else str(dynamic_shapes),
    }
    return manager, info


def build_standard(
    root: Path,
    name: str,
    description: str,
    seed: int,
    exercises: List[str],
    make_model: Callable[[], nn.Module],
    cases: Sequence[Case],
    *,
    stateful: bool = False,
    notes: Sequence[str] = (),
    **export_kwargs: Any,
) -> Dict[str, Any]:
    """The common path: model.pte + inputs + eager and ExecuTorch outputs."""
    model = build_model(make_model, seed)
    eager_model = copy.deepcopy(model)  # eager runs may mutate buffers
    manager, info = export_to_executorch(model, cases[0].inputs, **export_kwargs)
    out = ModelDir(root, name, description, seed, exercises)
    out.manifest["export"] = info
    out.save_program("model.pte", manager.buffer)
    eager = run_eager(eager_model, cases)
    et = run_executorch(out.dir / "model.pte", cases)
    out.record_cases(cases, eager, et, stateful=stateful)
    out.notes.extend(notes)
    return out.finish()


# ---------------------------------------------------------------------------
# One function per dataset entry
# ---------------------------------------------------------------------------

MLP_SEED = 1001
CNN_SEED = 1002


def mlp_inputs(seed: int = MLP_SEED) -> torch.Tensor:
    return seeded_randn(seed + 1, 4, 32)


def make_cnn() -> nn.Module:
    model = CNN()
    randomize_batchnorm_stats(model, CNN_SEED + 7)
    return model


def gen_mlp(root: Path) -> Dict[str, Any]:
    return build_standard(
        root,
        "mlp",
        "Linear(32,64)-ReLU-Linear(64,64)-ReLU-Linear(64,10) on a batch of 4.",
        MLP_SEED,
        ["linear (addmm/permute after decomposition)", "relu", "batched 2-D input"],
        MLP,
        single_case(mlp_inputs()),
    )


def gen_cnn(root: Path) -> Dict[str, Any]:
    return build_standard(
        root,
        "cnn",
        "conv3x3(3->16)-BN-ReLU-maxpool2, conv3x3(16->32)-BN-ReLU-avgpool2, flatten, linear(2048->10); input 1x3x32x32.",
        CNN_SEED,
        ["convolution", "batch norm in eval mode (_native_batch_norm_legit_no_training)", "relu", "max_pool2d_with_indices", "avg_pool2d", "flatten/view", "linear"],
        make_cnn,
        single_case(seeded_randn(CNN_SEED + 1, 1, 3, 32, 32)),
        notes=["BatchNorm running stats and affine parameters are seeded random values, not the identity."],
    )


def gen_mobilenet_v2(root: Path) -> Dict[str, Any]:
    seed = 1003

    def make() -> nn.Module:
        model = MobileNetV2Small()
        randomize_batchnorm_stats(model, seed + 7)
        return model

    return build_standard(
        root,
        "mobilenet_v2",
        "Reduced-width MobileNetV2: stem conv s2, 9 inverted residual blocks (expansion 1/6, depthwise 3x3 groups=channels, linear pointwise projection, residual adds), 1x1 conv to 128, adaptive avg pool, dropout+linear classifier; input 1x3x64x64.",
        seed,
        ["grouped/depthwise convolution", "pointwise convolution", "ReLU6 -> hardtanh", "residual add", "batch norm (eval)", "adaptive avg pool -> mean", "dropout removed in eval"],
        make,
        single_case(seeded_randn(seed + 1, 1, 3, 64, 64)),
    )


RESNET_SEED = 1020
MOBILENET_V3_SEED = 1021


def make_resnet() -> nn.Module:
    model = ResNetSmall()
    randomize_batchnorm_stats(model, RESNET_SEED + 7)
    return model


def make_mobilenet_v3() -> nn.Module:
    model = MobileNetV3Small()
    randomize_batchnorm_stats(model, MOBILENET_V3_SEED + 7)
    return model


def gen_resnet(root: Path) -> Dict[str, Any]:
    seed = RESNET_SEED
    return build_standard(
        root,
        "resnet",
        "Reduced ResNet-18: 7x7 stride-2 stem conv (3->32), BN, ReLU, 3x3 stride-2 max pool, three basic blocks (32, 64, 128 channels; 3x3 convs, strided 1x1 shortcuts, residual add + ReLU), global average pool, linear; input 1x3x96x96.",
        seed,
        ["7x7 stride-2 convolution on 3 channels", "3x3 stride-2 padded max pool (indices unread)", "3x3 convolutions (stride 1 and 2)", "1x1 stride-2 shortcut convolution", "residual add + relu", "batch norm (eval)", "adaptive avg pool -> mean"],
        make_resnet,
        single_case(seeded_randn(seed + 1, 1, 3, 96, 96)),
    )


def gen_mobilenet_v3(root: Path) -> Dict[str, Any]:
    seed = MOBILENET_V3_SEED
    return build_standard(
        root,
        "mobilenet_v3",
        "Reduced MobileNetV3-Small: hardswish stem conv s2, five blocks (1x1 expand, 3x3 and 5x5 depthwise at stride 1 and 2, squeeze-excite with hardsigmoid, 1x1 project, residual adds), 1x1 conv to 96, global average pool, hardswish linear classifier; input 1x3x64x64.",
        seed,
        ["hardswish and hardsigmoid as to_edge decomposes them (add, clamp, clamp, mul, div)", "5x5 depthwise convolution", "squeeze-excite: mean, 1x1 convs on 1x1 maps, broadcast mul", "batch norm (eval)", "residual add"],
        make_mobilenet_v3,
        single_case(seeded_randn(seed + 1, 1, 3, 64, 64)),
    )


def gen_transformer(root: Path) -> Dict[str, Any]:
    seed = 1004
    return build_standard(
        root,
        "transformer",
        "One pre-norm transformer encoder block written by hand: LayerNorm, q/k/v linear, 4-head scaled dot-product attention via matmul+softmax, output projection, residual, LayerNorm, GELU MLP (64->128->64), residual; input 1x16x64.",
        seed,
        ["layer_norm", "linear", "view/transpose/reshape (view_copy, permute_copy, clone)", "batched matmul (bmm)", "softmax", "gelu", "residual add", "scalar mul"],
        TransformerBlock,
        single_case(seeded_randn(seed + 1, 1, 16, 64)),
    )


def gen_lstm(root: Path) -> Dict[str, Any]:
    seed = 1005
    return build_standard(
        root,
        "lstm",
        "torch.nn.LSTM(8 -> 16, 1 layer, batch_first) over 10 steps with a Linear(16->4) head on every step; returns (head output, h_n, c_n); input 1x10x8.",
        seed,
        ["nn.LSTM decomposed by export into per-step linear/sigmoid/tanh/mul/add", "multiple outputs"],
        LSTMHead,
        single_case(seeded_randn(seed + 1, 1, 10, 8)),
    )


def gen_mutable_buffer(root: Path) -> Dict[str, Any]:
    seed = 1006
    cases = [Case(f"call{c}_", [seeded_randn(seed + 1 + c, 1, RingBufferState.WIDTH)]) for c in range(3)]
    return build_standard(
        root,
        "mutable_buffer",
        "Stateful module: int64 step counter (initial value 5) and a 4x8 float ring buffer (initial value arange/10) mutated in forward with index_copy_ at slot step%4 and add_; returns (cache.sum(0) + step, step). Three consecutive calls on one loaded method.",
        seed,
        ["mutable buffers (in-place write-back, copy_)", "initialised mutable data segment (et_init_buffer)", "index_copy_ -> index_put", "remainder", "int64 tensors", "state persisting across calls"],
        RingBufferState,
        cases,
        stateful=True,
        backend_kwargs={"passes": [InitializedMutableBufferPass(["step", "cache"])]},
        notes=[
            "Files call<c>_* belong to the c-th consecutive call of forward on the SAME loaded method (c = 0, 1, 2); the buffers carry over between calls.",
            "The initial buffer values (step=[5], cache=arange(32).reshape(4,8)/10) are serialized in the .pte's mutable data segment (Program.mutable_data_segments), set by InitializedMutableBufferPass(['step', 'cache']) passed in ExecutorchBackendConfig.passes; a runtime that ignores that segment gets the wrong first output.",
        ],
    )


def gen_cond(root: Path) -> Dict[str, Any]:
    seed = 1007
    base = seeded_randn(seed + 1, 1, 8).abs()
    cases = [
        Case("case0_", [base + 0.1], note="sum(x) > 0: true branch relu(fc(x)) + 1"),
        Case("case1_", [-(base + 0.1)], note="sum(x) <= 0: false branch tanh(fc(x)) * 2 - 1"),
    ]
    return build_standard(
        root,
        "cond",
        "torch.cond(x.sum() > 0, relu(fc(x)) + 1, tanh(fc(x)) * 2 - 1) with a shared Linear(8,8); input 1x8.",
        seed,
        ["torch.cond control flow (submodule branches, jump instructions)", "data-dependent predicate", "sum", "gt", "tanh"],
        CondModel,
        cases,
        notes=["case0_* takes the true branch, case1_* the false branch; the cases are independent (load order does not matter)."],
    )


def gen_dynamic_shape(root: Path) -> Dict[str, Any]:
    seed = 1008
    seq = Dim("seq", min=2, max=32)
    cases = [
        Case("case0_", [seeded_randn(seed + 1, 1, 32, 16)], note="seq = 32 (the upper bound)"),
        Case("case1_", [seeded_randn(seed + 2, 1, 7, 16)], note="seq = 7"),
        Case("case2_", [seeded_randn(seed + 3, 1, 2, 16)], note="seq = 2 (the lower bound)"),
    ]
    return build_standard(
        root,
        "dynamic_shape",
        "Per-token MLP (16->32->16) and a mean over the sequence, exported with a dynamic sequence dimension Dim('seq', min=2, max=32); input 1 x seq x 16; returns (per-token output, mean).",
        seed,
        ["dynamic (upper-bounded) shapes", "memory planned for the upper bound", "tensor resizing of outputs", "mean"],
        DynamicSeq,
        cases,
        dynamic_shapes=({1: seq},),
        notes=["case<c>_* are independent input sets of different sequence lengths (32 = max, 7, 2 = min), run in that order on one loaded method."],
    )


def gen_bundled_mlp(root: Path) -> Dict[str, Any]:
    from executorch.devtools import BundledProgram
    from executorch.devtools.bundled_program.config import MethodTestCase, MethodTestSuite
    from executorch.devtools.bundled_program.serialize import serialize_from_bundled_program_to_flatbuffer
    from executorch.extension.pybindings import portable_lib

    model = build_model(MLP, MLP_SEED)
    manager, info = export_to_executorch(model, [mlp_inputs()])
    cases = [Case(f"case{c}_", [seeded_randn(MLP_SEED + 10 + c, 4, 32)]) for c in range(3)]
    eager = run_eager(model, cases)
    suite = MethodTestSuite(
        method_name="forward",
        test_cases=[MethodTestCase(inputs=case.inputs, expected_outputs=outs) for case, outs in zip(cases, eager)],
    )
    data = serialize_from_bundled_program_to_flatbuffer(BundledProgram(manager, [suite]))

    out = ModelDir(
        root,
        "bundled_mlp",
        "The mlp model (same seed, same weights) wrapped in a BundledProgram (.bpte) with 3 bundled test cases (inputs + expected outputs = eager outputs).",
        MLP_SEED,
        ["BundledProgram flatbuffer (magic BP08)", "embedded .pte program", "bundled test inputs / expected outputs"],
    )
    out.manifest["export"] = info
    out.save_program("model.bpte", data, kind="bpte")
    program = bytes(manager.buffer)
    out.manifest.update(describe_program(program))
    out.manifest["embedded_program"] = {"size": len(program), "sha256": hashlib.sha256(program).hexdigest()}

    # Run the bundled test cases through the runtime's bundled-program path.
    # BundledModule.verify_result_with_bundled_expected_output(method, i) loads
    # bundled input set i, executes the method, compares with the bundled
    # expected outputs (raising on a mismatch) and returns the outputs.
    bundle = portable_lib._load_bundled_program_from_buffer(data)
    et = [
        flat_tensors(bundle.verify_result_with_bundled_expected_output("forward", i, rtol=1e-5, atol=1e-5))
        for i in range(len(cases))
    ]
    out.record_cases(cases, eager, et)
    out.notes += [
        "case<c>_input_0.npy / case<c>_eager_output_0.npy are exactly the inputs / expected outputs of bundled test case c (method 'forward'), also stored inside model.bpte.",
        "executorch_output files come from the runtime's bundled path: portable_lib._load_bundled_program_from_buffer(model.bpte).verify_result_with_bundled_expected_output('forward', c, rtol=1e-5, atol=1e-5), which loads bundled input set c, executes, checks against the bundled expected outputs (it passed for every case) and returns the outputs.",
        "The embedded program is the same export as mlp/model.pte; compare embedded_program.sha256 with mlp's files[0].sha256.",
        "Serialized with executorch.devtools.bundled_program.serialize.serialize_from_bundled_program_to_flatbuffer.",
    ]
    return out.finish()


def gen_cnn_xnnpack(root: Path) -> Dict[str, Any]:
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner

    return build_standard(
        root,
        "cnn_xnnpack",
        "The cnn model (same seed, weights and input) lowered to XNNPACK with to_edge_transform_and_lower(partitioner=[XnnpackPartitioner()]).",
        CNN_SEED,
        ["XnnpackBackend delegate (processed blob: 'XH00' header + XNNPACK flatbuffer with identifier 'XN01')", "delegate blob in a segment", "named data (weights) referenced by the delegate"],
        make_cnn,
        single_case(seeded_randn(CNN_SEED + 1, 1, 3, 32, 32)),
        partitioner=[XnnpackPartitioner()],
        notes=["Outputs computed by the XnnpackBackend registered in the executorch wheel's runtime, single thread."],
    )


CNN_CALIBRATION_BATCHES = 4


def quantize_cnn_pt2e(model: nn.Module) -> torch.fx.GraphModule:
    """PT2E post-training static quantization of the CNN with ExecuTorch's
    XNNPACKQuantizer (symmetric int8, per-channel weights): export, prepare
    (folds BatchNorm into the convolutions, inserts observers), calibrate on
    seeded inputs, convert (weights become int8 constants with
    dequantize_per_channel; activations get quantize/dequantize_per_tensor
    pairs)."""
    from executorch.backends.xnnpack.quantizer.xnnpack_quantizer import (
        XNNPACKQuantizer,
        get_symmetric_quantization_config,
    )
    from torchao.quantization.pt2e.quantize_pt2e import convert_pt2e, prepare_pt2e

    captured = export(model, (seeded_randn(CNN_SEED + 1, 1, 3, 32, 32),), strict=False).module()
    quantizer = XNNPACKQuantizer().set_global(get_symmetric_quantization_config(is_per_channel=True))
    prepared = prepare_pt2e(captured, quantizer)
    with torch.no_grad():
        for c in range(CNN_CALIBRATION_BATCHES):
            prepared(seeded_randn(CNN_SEED + 200 + c, 1, 3, 32, 32))
    return convert_pt2e(prepared)


def output_qparams(module: torch.fx.GraphModule) -> List[Dict[str, Any]]:
    """scale/zero point/range of each output that a dequantize_per_tensor
    produces (None for other outputs)."""
    output = next(n for n in module.graph.nodes if n.op == "output")
    result = []
    for node in tree_flatten(output.args[0])[0]:
        target = getattr(node, "target", None)
        if target is not None and "dequantize_per_tensor" in str(target):
            scale, zero_point, qmin, qmax, dtype = node.args[1:6]
            result.append({"scale": float(scale), "zero_point": int(zero_point), "quant_min": int(qmin),
                           "quant_max": int(qmax), "dtype": str(dtype)})
        else:
            result.append(None)
    return result


QUANTIZATION_INFO = {
    "flow": "PT2E post-training static quantization: torch.export.export(...).module() -> "
    "torchao.quantization.pt2e.quantize_pt2e.prepare_pt2e(XNNPACKQuantizer) -> calibration -> convert_pt2e",
    "quantizer": "executorch.backends.xnnpack.quantizer.xnnpack_quantizer.XNNPACKQuantizer",
    "config": "get_symmetric_quantization_config(is_per_channel=True): int8 activations [-128, 127] per tensor, "
    "int8 weights [-127, 127] per output channel (symmetric), BatchNorm folded into the convolutions",
    "calibration": f"{CNN_CALIBRATION_BATCHES} seeded 1x3x32x32 inputs (seeded_randn(CNN_SEED + 200 + c))",
}


def load_quantized_kernels() -> None:
    """Registers the quantized_decomposed out variants (for export) and their
    kernels in the wheel's runtime (to run the quantized programs). Loading
    that library changes the last bits of some other models' ExecuTorch
    outputs (the transformer's by up to 2.4e-7), so the quantized models are
    generated after every other model."""
    import executorch.kernels.quantized  # noqa: F401
    from executorch.extension.pybindings import portable_lib

    portable_lib._unsafe_reset_threadpool(1)


def gen_cnn_quantized_common(root: Path, name: str, delegated: bool) -> Dict[str, Any]:
    load_quantized_kernels()
    model = build_model(make_cnn, CNN_SEED)
    cases = single_case(seeded_randn(CNN_SEED + 1, 1, 3, 32, 32))
    float_eager = run_eager(model, cases)
    qmodel = quantize_cnn_pt2e(model)
    qparams = output_qparams(qmodel)
    step = qparams[0]["scale"]
    if delegated:
        from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner

        manager, info = export_to_executorch(qmodel, cases[0].inputs, partitioner=[XnnpackPartitioner()])
        description = ("The cnn model (same seed, weights and input) quantized with PT2E and the XNNPACKQuantizer, "
                       "then lowered to XNNPACK with to_edge_transform_and_lower(partitioner=[XnnpackPartitioner()]): "
                       "int8 convolutions, pooling and the linear layer run in the XnnpackBackend.")
        exercises = ["PT2E-quantized program lowered to XNNPACK (qs8 operators inside the delegate)",
                     "quantize/dequantize at the delegate boundary"]
    else:
        manager, info = export_to_executorch(qmodel, cases[0].inputs)
        description = ("The cnn model (same seed, weights and input) quantized with PT2E and the XNNPACKQuantizer "
                       "(symmetric int8, per-channel weights, BatchNorm folded), exported without delegation: portable "
                       "float kernels between quantized_decomposed quantize/dequantize ops.")
        exercises = ["quantized_decomposed::quantize_per_tensor / dequantize_per_tensor (activations)",
                     "quantized_decomposed::dequantize_per_channel (int8 weights, axis 0)",
                     "PT2E reference representation: float ops between q/dq pairs"]
    out = ModelDir(root, name, description, CNN_SEED, exercises)
    info["quantization"] = QUANTIZATION_INFO
    out.manifest["export"] = info
    out.save_program("model.pte", manager.buffer)
    eager = run_eager(qmodel, cases)
    et = run_executorch(out.dir / "model.pte", cases)
    # XNNPACK requantizes inside its int8 kernels; eager simulates with float
    # q/dq pairs, so the two may differ by quantization steps of the output.
    out.record_cases(cases, eager, et, tolerance=(4 * step if delegated else FLOAT_TOLERANCE))
    out.manifest["output_quantization"] = qparams
    diff_steps = out.manifest["max_abs_diff_eager_vs_executorch"] / step
    out.manifest["max_abs_diff_eager_vs_executorch_in_steps"] = round(diff_steps, 6)
    out.manifest["max_abs_diff_quantized_vs_float_eager"] = max_abs_diff(eager[0], float_eager[0])
    out.notes += [
        "eager_output files are the quantized model (convert_pt2e's graph with its quantize/dequantize ops) run by "
        "PyTorch eager; the float model's output differs from it by max_abs_diff_quantized_vs_float_eager.",
        f"The output is dequantized: output_quantization gives its scale (one quantization step = {step:.9g}); "
        "compare outputs in steps (max_abs_diff_eager_vs_executorch_in_steps).",
        "The wheel's runtime runs the quantized_decomposed kernels only after `import executorch.kernels.quantized` "
        "(which also registers their out variants for export).",
    ]
    return out.finish()


def gen_cnn_quantized(root: Path) -> Dict[str, Any]:
    return gen_cnn_quantized_common(root, "cnn_quantized", delegated=False)


def gen_cnn_quantized_xnnpack(root: Path) -> Dict[str, Any]:
    return gen_cnn_quantized_common(root, "cnn_quantized_xnnpack", delegated=True)


def gen_mlp_external(root: Path) -> Dict[str, Any]:
    model = build_model(MLP, MLP_SEED)
    cases = single_case(mlp_inputs())
    kwargs = {"external_constants": True}
    manager, info = export_to_executorch(model, cases[0].inputs, backend_kwargs=kwargs)
    out = ModelDir(
        root,
        "mlp_external",
        "The mlp model (same seed, weights and input) exported with ExecutorchBackendConfig(external_constants=True): weights live in model.ptd (FlatTensor data file), model.pte only names them.",
        MLP_SEED,
        ["external constants: Tensor.extra_tensor_info.location = EXTERNAL, fully_qualified_name = key into the .ptd", "FlatTensor (.ptd, magic FT01) data file"],
    )
    out.manifest["export"] = info
    out.save_program("model.pte", manager.buffer)
    with tempfile.TemporaryDirectory() as tmp:
        manager.write_tensor_data_to_file(tmp)
        written = sorted(os.listdir(tmp))
        if written != ["_default_external_constant.ptd"]:
            raise RuntimeError(f"unexpected data files {written}")
        ptd = (Path(tmp) / written[0]).read_bytes()
    entry = out.save_bytes("model.ptd", ptd)
    entry["format"] = "ptd"
    out.manifest["files"].append(entry)
    out.manifest["ptd_magic"] = ptd[4:8].decode("ascii", "replace")
    program = deserialize_pte_binary(bytes(manager.buffer)).program
    out.manifest["external_tensor_keys"] = [
        v.val.extra_tensor_info.fully_qualified_name
        for v in program.execution_plan[0].values
        if getattr(v.val, "extra_tensor_info", None) is not None
        and v.val.extra_tensor_info.location.name == "EXTERNAL"
    ]
    eager = run_eager(model, cases)
    et = run_executorch(out.dir / "model.pte", cases, data_path=out.dir / "model.ptd")
    out.record_cases(cases, eager, et)
    out.notes += [
        "write_tensor_data_to_file() names the file '_default_external_constant.ptd' (the default constant tag); it is renamed to model.ptd here. The .pte refers to tensors by key, not by file name.",
        "executorch.runtime.Runtime.load_program() has no data-file argument in the pinned executorch; the outputs were produced with executorch.extension.pybindings.portable_lib._load_for_executorch(model.pte, data_path=model.ptd).forward(inputs).",
    ]
    return out.finish()


def gen_mlp_inline_constants(root: Path) -> Dict[str, Any]:
    model = build_model(MLP, MLP_SEED)
    cases = single_case(mlp_inputs())
    manager, info = export_to_executorch(model, cases[0].inputs)
    # deserialize_pte_binary() moves the constant segment back into
    # Program.constant_buffer (the pre-segment layout). serialize_pte_binary()
    # would extract it again, so serialize the flatbuffer alone with the same
    # serializer's _program_to_flatbuffer(): no extended header, no segments.
    pte = deserialize_pte_binary(bytes(manager.buffer))
    if pte.mutable_data or pte.named_data:
        raise RuntimeError("inline-constant layout needs a program without other segments")
    pte.program.segments = []
    data = _program_to_flatbuffer(pte.program).data
    out = ModelDir(
        root,
        "mlp_inline_constants",
        "The mlp model (same seed, weights and input) in the legacy layout: constant tensors inline in Program.constant_buffer inside the flatbuffer, empty constant_segment, no extended header, no segments.",
        MLP_SEED,
        ["legacy Program.constant_buffer (inline constant data, buffer 0 is the empty placeholder)", "a .pte without the extended header"],
    )
    info["post_processing"] = (
        "deserialize_pte_binary(pte) -> program.constant_buffer restored inline; "
        "executorch.exir._serialize._flatbuffer_program._program_to_flatbuffer(program)"
    )
    out.manifest["export"] = info
    out.save_program("model.pte", data)
    eager = run_eager(model, cases)
    et, failure = try_run_executorch(out.dir / "model.pte", cases)
    out.record_cases(cases, eager, et)
    out.notes.append(
        "No ExecutorchBackendConfig flag writes this layout in the pinned executorch (serialize_pte_binary always extracts "
        "constant_buffer into the constant segment); the file is produced by the exir serializer's own "
        "flatbuffer layer as described in export.post_processing. Apart from the constants' location (and "
        "the missing extended header/segment table) the program is the same as mlp/model.pte."
    )
    if failure:
        out.notes += [
            failure,
            "So only eager outputs are recorded: the runtime in the executorch wheel is built with "
            "ET_ENABLE_DEPRECATED_CONSTANT_BUFFER=0 and rejects the legacy layout at load time; the eager "
            "outputs equal the executorch outputs of mlp (same weights and input) up to float rounding.",
        ]
    else:
        out.notes.append("The executorch runtime in the wheel loads and runs this legacy layout (executorch_output files).")
    return out.finish()


DEMO_BLOB_FORMAT = (
    "BackendWithCompilerDemo.preprocess() (executorch/exir/backend/test/backend_with_compiler_demo.py) emits "
    "UTF-8 text without a terminating NUL: '<N>version:0#' followed by N instructions, one per call_function "
    "node of the delegated subgraph in graph order, each 'op:demo::<target.__name__>, numel:<numel of the "
    "node output>, dtype:<torch dtype, e.g. torch.float32><debug_handle><debug handle>#'. Supported targets: "
    "aten.sin.default, aten.mm.default, aten.add.Tensor, aten.linear.default, "
    "aten.scaled_dot_product_attention.default, aten.upsample_nearest2d.vec. "
    "ExecuTorch's C++ reference runtime for it (BackendWithCompiler, registered as "
    "'BackendWithCompilerDemo', a test-only backend) reads compile_specs[0].value as an int 'max_value' "
    "(must be <= 4; here the spec is key 'max_value', value 1 byte 0x04, which the C++ code reads as a "
    "4-byte int, so only that first byte is meaningful), checks version == 0, parses the "
    "instructions and executes with args = delegate inputs followed by outputs: for this program "
    "args = [a, x, b, z]; 'demo::aten.mm.default' computes z = a @ x for 2x2 float matrices (numel must "
    "be 4), 'demo::aten.add.Tensor' computes z = z + b (numel elements), 'demo::aten.sin.default' "
    "computes y = x - x^3/6 (args = [x, y]); only dtype torch.float32 is accepted."
)


def gen_delegate_demo(root: Path, inline: bool) -> Dict[str, Any]:
    from executorch.exir.backend.test.op_partitioner_demo import AddMulPartitionerDemo

    seed = 1009
    name = "delegate_demo_inline" if inline else "delegate_demo_segment"
    model = build_model(DemoAddMM, seed)
    cases = single_case(*(seeded_randn(seed + 1 + i, 2, 2) for i in range(3)))
    kwargs = {"extract_delegate_segments": False} if inline else {}
    manager, info = export_to_executorch(model, cases[0].inputs, partitioner=[AddMulPartitionerDemo()], backend_kwargs=kwargs)
    where = "inline in Program.backend_delegate_data" if inline else "in a segment after the flatbuffer"
    out = ModelDir(
        root,
        name,
        f"sigmoid(mm(a, x) + b) for 2x2 float inputs a, x, b; mm+add lowered to ExecuTorch's demo backend BackendWithCompilerDemo by AddMulPartitionerDemo, sigmoid left to the portable kernels; delegate blob stored {where}.",
        seed,
        ["delegate call (DelegateCall instruction)", f"delegate blob {where}", "compile specs", "mixing delegated and portable ops"],
    )
    out.manifest["export"] = info
    out.save_program("model.pte", manager.buffer)
    lowered = [
        mod for _, mod in manager.exported_program().graph_module.named_children() if type(mod).__name__ == "LoweredBackendModule"
    ]
    subgraphs = []
    for mod in lowered:
        graph = mod.original_module.graph_module.graph
        subgraphs.append(
            {
                "blob": bytes(mod.processed_bytes).decode("utf-8"),
                "inputs": [n.name for n in graph.nodes if n.op == "placeholder"],
                "ops": [n.target.__name__ for n in graph.nodes if n.op == "call_function"],
                "outputs": [str(a) for a in next(n for n in graph.nodes if n.op == "output").args[0]],
            }
        )
    out.manifest["demo_backend"] = {"blob_format": DEMO_BLOB_FORMAT, "delegates": subgraphs}
    eager = run_eager(model, cases)
    et, failure = try_run_executorch(out.dir / "model.pte", cases)
    if failure:
        out.notes.append(failure)
    out.record_cases(cases, eager, et)
    out.notes += [
        "Only eager outputs are recorded: the executorch wheel's runtime registers XnnpackBackend, QnnBackend, VgfBackend and OpenvinoBackend but not BackendWithCompilerDemo (a test-only C++ backend). The delegated part (mm + add on 2x2 floats) is exact enough that eager outputs are the reference for a runtime implementing the demo backend.",
        "Lowered with to_edge_transform_and_lower(ep, partitioner=[AddMulPartitionerDemo()]) (executorch/exir/backend/test/op_partitioner_demo.py).",
    ]
    return out.finish()


def gen_delegate_demo_inline(root: Path) -> Dict[str, Any]:
    return gen_delegate_demo(root, inline=True)


def gen_delegate_demo_segment(root: Path) -> Dict[str, Any]:
    return gen_delegate_demo(root, inline=False)


GENERATORS: List[Callable[[Path], Dict[str, Any]]] = [
    gen_mlp,
    gen_cnn,
    gen_mobilenet_v2,
    gen_resnet,
    gen_mobilenet_v3,
    gen_transformer,
    gen_lstm,
    gen_mutable_buffer,
    gen_cond,
    gen_dynamic_shape,
    gen_bundled_mlp,
    gen_cnn_xnnpack,
    gen_mlp_external,
    gen_mlp_inline_constants,
    gen_delegate_demo_inline,
    gen_delegate_demo_segment,
    # Last: they load the quantized kernel library (see load_quantized_kernels).
    gen_cnn_quantized,
    gen_cnn_quantized_xnnpack,
]


# ---------------------------------------------------------------------------
# Tree-level outputs: README, ops_used.txt, SHA256SUMS; --check
# ---------------------------------------------------------------------------


def human_size(n: int) -> str:
    return f"{n} B" if n < 1024 else f"{n / 1024:.1f} KiB"


def write_readme(root: Path, manifests: Sequence[Dict[str, Any]]) -> None:
    lines = [
        "# etref reference models",
        "",
        f"Generated by `{GENERATOR}` (`{GENERATOR_COMMAND}`, after `datasets/install.sh`);",
        "do not edit by hand. Every folder holds a `manifest.json` with the details.",
        "",
        "| model | files | program | total | operators | exercises | max abs diff eager vs ExecuTorch |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for m in manifests:
        folder = root / "models" / m["name"]
        files = sorted(p for p in folder.iterdir())
        total = sum(p.stat().st_size for p in files)
        prog = m["files"][0]
        diff = m["max_abs_diff_eager_vs_executorch"]
        lines.append(
            "| `{}` | {} | `{}` {} | {} | {} | {} | {} |".format(
                m["name"],
                len(files),
                prog["file"],
                human_size(prog["size"]),
                human_size(total),
                ", ".join(f"`{o}`" for o in m["operators"]),
                "; ".join(m["exercises"]),
                "not run (eager only)" if diff is None else f"{diff:.3g}",
            )
        )
    lines += [
        "",
        "## File naming",
        "",
        "* `model.pte` — the program (`model.bpte` for the bundled program; `model.ptd` is the external data file of `mlp_external`).",
        "* `input_<i>.npy` — the i-th flattened positional input of `forward`.",
        "* `eager_output_<k>.npy` — the k-th flattened output of the PyTorch eager model (eval mode, no_grad).",
        "* `executorch_output_<k>.npy` — the k-th output of the executorch wheel's runtime for the same inputs.",
        "* `case<c>_<file>` — independent input set c (`cond`: case0 true branch, case1 false branch;",
        "  `dynamic_shape`: case0 seq=32 (max), case1 seq=7, case2 seq=2 (min); `bundled_mlp`: bundled test case c).",
        "* `call<c>_<file>` — the c-th consecutive call (c = 0, 1, 2) on ONE loaded method whose mutable",
        "  buffers persist between calls (`mutable_buffer`). Run the calls in order on a fresh load.",
        "* `cnn_quantized*` — PT2E-quantized (XNNPACKQuantizer) programs whose output is dequantized; their",
        "  eager outputs are the quantized model's (convert_pt2e graph in eager). Judge them in quantization",
        "  steps: `manifest.json` gives the output's scale and zero point (`output_quantization`).",
        "",
        "`manifest.json` lists every case (`cases[].prefix`), each file's dtype and shape, the program's operator",
        "table (`operators`, name.overload), delegates with their compile specs, the binary layout (segments,",
        "inline constant buffers, mutable data segments, named data), the export pipeline and configs, the",
        "seed, the per-case and overall max |eager - executorch|, and notes.",
        "",
        "## Reproducing",
        "",
        "```",
        "datasets/install.sh",
        f"{GENERATOR_COMMAND}            # rewrites datasets/models, ops_used.txt, SHA256SUMS",
        f"{GENERATOR_COMMAND} --check    # regenerates into a temp dir and compares byte for byte",
        "```",
        "",
        "Generation is byte-reproducible with the pinned toolchain (seeded weights and inputs, PYTHONHASHSEED=0,",
        "one thread for torch and the ExecuTorch threadpool, deterministic algorithms). Programs, inputs and",
        "manifests depend only on the pinned packages; float outputs are computed by CPU kernels (oneDNN/MKL",
        "in eager torch, XNNPACK micro-kernels) that are picked by CPU features, so on a different CPU a",
        "`--check` may report last-bit differences in `*_output_*.npy` (it prints their max abs diff).",
        "",
    ]
    (root / "models" / "README.md").write_text("\n".join(lines))


def generated_files(root: Path) -> List[str]:
    """Every generated file below `root` except SHA256SUMS itself."""
    names = [p.relative_to(root).as_posix() for p in (root / "models").rglob("*") if p.is_file()]
    if (root / "ops_used.txt").exists():
        names.append("ops_used.txt")
    return sorted(names)


def write_sums(root: Path) -> None:
    lines = []
    for rel in generated_files(root):
        digest = hashlib.sha256((root / rel).read_bytes()).hexdigest()
        lines.append(f"{digest}  {rel}\n")
    (root / "SHA256SUMS").write_text("".join(lines))


def generate(root: Path) -> None:
    make_deterministic()
    models = root / "models"
    if models.exists():
        shutil.rmtree(models)
    models.mkdir(parents=True)
    manifests = []
    for gen in GENERATORS:
        t0 = time.monotonic()
        manifests.append(gen(root))
        m = manifests[-1]
        log.info("%-22s %6.1fs  max|diff|=%s", m["name"], time.monotonic() - t0, m["max_abs_diff_eager_vs_executorch"])
    ops = sorted({op for m in manifests for op in m["operators"]})
    (root / "ops_used.txt").write_text("".join(op + "\n" for op in ops))
    write_readme(root, manifests)
    write_sums(root)


def check(root: Path) -> int:
    with tempfile.TemporaryDirectory(prefix="etref-datasets-") as tmp:
        fresh = Path(tmp)
        generate(fresh)
        want = generated_files(fresh) + ["SHA256SUMS"]
        have = generated_files(root) if (root / "models").is_dir() else []
        have += ["SHA256SUMS"] if (root / "SHA256SUMS").exists() else []
        problems = [f"missing: {f}" for f in sorted(set(want) - set(have))]
        problems += [f"unexpected: {f}" for f in sorted(set(have) - set(want))]
        for rel in sorted(set(want) & set(have)):
            a, b = (fresh / rel).read_bytes(), (root / rel).read_bytes()
            if a != b:
                detail = ""
                if rel.endswith(".npy"):
                    x, y = np.load(fresh / rel), np.load(root / rel)
                    if x.shape == y.shape and x.dtype == y.dtype:
                        detail = f" (max abs diff {np.abs(x.astype(np.float64) - y.astype(np.float64)).max():.3g})"
                problems.append(f"differs: {rel}{detail}")
    for p in problems:
        print(p)
    print(f"check: {len(want)} files, {len(problems)} problem(s)")
    return 1 if problems else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="regenerate into a temp dir and compare with the checked-in tree")
    parser.add_argument("--out", type=Path, default=DATASETS_DIR, help="root to write (default: datasets/)")
    args = parser.parse_args()
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    log.setLevel(logging.INFO)
    warnings.filterwarnings("ignore")
    t0 = time.monotonic()
    if args.check:
        rc = check(args.out)
    else:
        generate(args.out)
        rc = 0
    log.info("total %.1fs", time.monotonic() - t0)
    return rc


if __name__ == "__main__":
    sys.exit(main())
