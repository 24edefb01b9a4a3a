# SPDX-License-Identifier: Apache-2.0
"""The programs the benchmark runs, exported with ExecuTorch and cached.

For every case (cases.py) two programs are exported from the same seeded
one-operator module: `plain.pte` (torch.export -> to_edge -> to_executorch:
ExecuTorch's kernels; etref runs this one too) and `xnnpack.pte`
(to_edge_transform_and_lower with XnnpackPartitioner, as
datasets/generate.py makes cnn_xnnpack). Their inputs are written as
input_<i>.npy so both runtimes read the same bytes. Everything lives in a
work directory (not the repository), keyed by the case's content and the
pinned versions, so a second run exports nothing.

For the models, the checked-in datasets/models/<name>/model.pte is used as
is, and an XNNPACK-lowered twin is exported from the same model definition,
seed and weights (datasets/generate.py's own classes and helpers).
"""

import json
import sys
from pathlib import Path
from typing import Any, Dict, List, Tuple

import numpy as np
import torch

from cases import Case, build_module, case_seed

# Bump when the way programs are exported changes.
EXPORT_FORMAT = 2
# The tree this file is in (under Bazel, its runfiles: symlinks not followed).
REPO = Path(__file__).absolute().parents[2]
MODELS_DIR = REPO / "datasets" / "models"
WHOLE_MODELS = ["mlp", "cnn", "mobilenet_v2", "resnet", "mobilenet_v3", "transformer",
                "lstm"]


def versions() -> Dict[str, Any]:
    from executorch.version import __version__ as executorch_version

    return {"torch": torch.__version__, "executorch": executorch_version,
            "export_format": EXPORT_FORMAT}


def describe_program(buffer: bytes) -> Dict[str, Any]:
    """Operators, kernel calls and delegate calls of a serialized program."""
    from executorch.exir import schema
    from executorch.exir._serialize._program import deserialize_pte_binary

    plan = deserialize_pte_binary(buffer).program.execution_plan[0]
    kernels: List[str] = []
    delegate_calls = 0
    for chain in plan.chains:
        for instruction in chain.instructions:
            call = instruction.instr_args
            if isinstance(call, schema.KernelCall):
                op = plan.operators[call.op_index]
                kernels.append(f"{op.name}.{op.overload}" if op.overload else op.name)
            elif isinstance(call, schema.DelegateCall):
                delegate_calls += 1
    return {"kernel_calls": kernels, "delegate_calls": delegate_calls,
            "backends": sorted({d.id for d in plan.delegates})}


def _lower(module: torch.nn.Module, inputs: List[torch.Tensor], xnnpack: bool,
           preserve: List[Any] = ()) -> bytes:
    """The module exported and lowered; `preserve`: operators to_edge must
    keep whole (EdgeCompileConfig.preserve_ops) rather than decompose."""
    from executorch.exir import EdgeCompileConfig, to_edge, to_edge_transform_and_lower
    from torch.export import export

    config = EdgeCompileConfig(preserve_ops=list(preserve)) if preserve else None
    program = export(module, tuple(inputs), strict=False)
    if xnnpack:
        from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner

        edge = to_edge_transform_and_lower(program, partitioner=[XnnpackPartitioner()],
                                           compile_config=config)
    else:
        edge = to_edge(program, compile_config=config)
    return edge.to_executorch().buffer


def _runs_only(calls: List[str], op: str) -> bool:
    """Whether a program's kernel calls are `op` alone, or `op` and the
    copies the exporter adds when a view-like op's result is the output."""
    clone = "dim_order_ops::_clone_dim_order.out"
    return calls[:1] == [op] and all(c == clone for c in calls[1:])


def _save_inputs(directory: Path, inputs: List[torch.Tensor]) -> List[str]:
    names = []
    for i, tensor in enumerate(inputs):
        name = f"input_{i}.npy"
        np.save(directory / name, tensor.contiguous().numpy())
        names.append(name)
    return names


def export_case(case: Case, work: Path) -> Dict[str, Any]:
    """Exports (or finds in the cache) the case's two programs; returns its
    meta: directory, input files, what each program runs, and `skip` with a
    reason when the case cannot be benchmarked as asked."""
    directory = work / "cases" / f"{case.id}-{case.key()[:12]}"
    meta_path = directory / "meta.json"
    if meta_path.exists():
        meta = json.loads(meta_path.read_text())
        if meta.get("versions") == versions():
            meta["dir"] = str(directory)
            return meta
    directory.mkdir(parents=True, exist_ok=True)
    meta: Dict[str, Any] = {"versions": versions(), "id": case.id, "op": case.op}
    preserve: List[Any] = []
    try:
        module, inputs = build_module(case, case_seed(case))
        plain = _lower(module, inputs, xnnpack=False)
        calls = describe_program(plain)["kernel_calls"]
        if not _runs_only(calls, case.op):
            # to_edge decomposed it (reflection_pad2d into index arithmetic,
            # avg_pool1d into avg_pool2d, ...): a program keeps it whole
            # when its author asks, as here.
            try:
                kept = _lower(module, inputs, False, [module.fn])
                if _runs_only(describe_program(kept)["kernel_calls"], case.op):
                    plain, preserve = kept, [module.fn]
                    meta["preserved"] = True
            except Exception:  # noqa: BLE001 (then the decomposed program stands)
                pass
    except Exception as error:  # noqa: BLE001 (any exporter failure is a skip)
        meta["skip"] = f"export failed: {type(error).__name__}: {str(error)[:300]}"
        meta_path.write_text(json.dumps(meta, indent=1))
        meta["dir"] = str(directory)
        return meta
    (directory / "plain.pte").write_bytes(plain)
    meta["plain"] = describe_program(plain)
    meta["inputs"] = _save_inputs(directory, inputs)
    calls = meta["plain"]["kernel_calls"]
    if _runs_only(calls, case.op) and calls[1:]:
        # A view-like op whose result is the program's output: the exporter
        # copies it out of the input's storage. Both runtimes run the copy.
        meta["extra_calls"] = calls[1:]
    elif calls != [case.op]:
        meta["skip"] = f"the exported program runs {calls}, not [{case.op}]"
    try:
        xnnpack = _lower(module, inputs, True, preserve)
        (directory / "xnnpack.pte").write_bytes(xnnpack)
        meta["xnnpack"] = describe_program(xnnpack)
    except Exception as error:  # noqa: BLE001
        meta["xnnpack"] = {"error": f"{type(error).__name__}: {str(error)[:300]}"}
    meta_path.write_text(json.dumps(meta, indent=1))
    meta["dir"] = str(directory)
    return meta


def export_empty(work: Path) -> Dict[str, Any]:
    """A program with no instructions (forward returns its input): the
    per-execute overhead of each runtime."""

    class Identity(torch.nn.Module):
        def forward(self, x):
            return x

    directory = work / "empty"
    meta_path = directory / "meta.json"
    if meta_path.exists() and json.loads(meta_path.read_text()).get("versions") == versions():
        return {"dir": str(directory), "inputs": ["input_0.npy"]}
    directory.mkdir(parents=True, exist_ok=True)
    inputs = [torch.zeros(4)]
    (directory / "plain.pte").write_bytes(_lower(Identity(), inputs, xnnpack=False))
    _save_inputs(directory, inputs)
    meta_path.write_text(json.dumps({"versions": versions()}))
    return {"dir": str(directory), "inputs": ["input_0.npy"]}


def _model_factory(name: str):
    """(make_model, seed) exactly as datasets/generate.py builds `name`."""
    sys.path.insert(0, str(REPO / "datasets"))
    import generate

    if name == "mlp":
        return generate.MLP, generate.MLP_SEED
    if name == "cnn":
        return generate.make_cnn, generate.CNN_SEED
    if name == "mobilenet_v2":
        seed = 1003  # gen_mobilenet_v2

        def make():
            model = generate.MobileNetV2Small()
            generate.randomize_batchnorm_stats(model, seed + 7)
            return model

        return make, seed
    if name == "resnet":
        return generate.make_resnet, generate.RESNET_SEED
    if name == "mobilenet_v3":
        return generate.make_mobilenet_v3, generate.MOBILENET_V3_SEED
    if name == "transformer":
        return generate.TransformerBlock, 1004  # gen_transformer
    if name == "lstm":
        return generate.LSTMHead, 1005  # gen_lstm
    raise ValueError(f"no factory for model {name}")


def model_inputs(name: str) -> List[str]:
    directory = MODELS_DIR / name
    count = len(list(directory.glob("input_*.npy")))
    return [str(directory / f"input_{i}.npy") for i in range(count)]


def model_expected(name: str) -> List[str]:
    directory = MODELS_DIR / name
    count = len(list(directory.glob("eager_output_*.npy")))
    return [str(directory / f"eager_output_{i}.npy") for i in range(count)]


def export_model_xnnpack(name: str, work: Path) -> Tuple[str, Dict[str, Any]]:
    """The model lowered with XnnpackPartitioner (cached); its path and what
    the program runs outside the delegate."""
    directory = work / "models" / name
    path = directory / "xnnpack.pte"
    meta_path = directory / "meta.json"
    if path.exists() and meta_path.exists():
        meta = json.loads(meta_path.read_text())
        if meta.get("versions") == versions():
            return str(path), meta
    directory.mkdir(parents=True, exist_ok=True)
    make, seed = _model_factory(name)
    import generate
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner

    model = generate.build_model(make, seed)
    inputs = [torch.from_numpy(np.load(p)) for p in model_inputs(name)]
    manager, _ = generate.export_to_executorch(model, inputs, partitioner=[XnnpackPartitioner()])
    path.write_bytes(manager.buffer)
    meta = {"versions": versions(), **describe_program(manager.buffer)}
    meta_path.write_text(json.dumps(meta, indent=1))
    return str(path), meta
