#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Generate the oracle's programs: the datasets' CNN lowered to etref's
example vendor delegate, with the maps that align its values with the
reference program.

The example vendor backend ("EtrefExampleVendor", delegates/example_vendor/)
is a real ExecuTorch backend: this file holds its AOT half, a
BackendDetails whose preprocess() emits the delegated subgraph as an
ExecuTorch program of its own (EdgeProgramManager(...).to_executorch()),
and a partitioner that tags the nodes to lower. The programs are exported
with ExecuTorch's own to_edge_transform_and_lower / to_executorch, so each
holds a real DelegateCall with a real processed blob and compile specs.

Per program folder (datasets/oracle/<name>/):
  * model.pte       the delegated program,
  * model.bpte      (cnn_vendor only) the same program as a BundledProgram
                    with two test sets (inputs, eager expected outputs),
  * map.json        the oracle map (format "etref-oracle-map", version 1; see
                    README.md, "etref compare"): which reference value each
                    candidate value stands for. Reference program:
                    datasets/models/cnn/model.pte, or cnn_quantized/model.pte
                    for cnn_vendor_quantized (this file checks that a fresh
                    non-delegated export is byte-identical to it);
  * input_0.npy, eager_output_0.npy, case1_* : inputs and eager outputs,
  * manifest.json   what was exported and how, the delegates' debug maps.

Byte-reproducible: seeded weights and inputs, PYTHONHASHSEED=0, one thread;
`--check` regenerates into a temporary directory and compares.

Usage (from the repository root, after datasets/install.sh):
    .venv/bin/python datasets/oracle/generate.py
    .venv/bin/python datasets/oracle/generate.py --check
"""

import os
import sys

if os.environ.get("PYTHONHASHSEED") != "0":
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable] + sys.argv)

from pathlib import Path  # noqa: E402

ORACLE_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(ORACLE_DIR.parent))

import argparse  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402
import warnings  # noqa: E402
from typing import Any, Dict, List, Optional, Sequence, Tuple  # noqa: E402

import numpy as np  # noqa: E402
import torch  # noqa: E402

import generate as datasets  # noqa: E402  (datasets/generate.py)
from executorch.exir import (  # noqa: E402
    EdgeCompileConfig,
    ExecutorchBackendConfig,
    to_edge,
    to_edge_transform_and_lower,
)
from executorch.exir._serialize._program import deserialize_pte_binary  # noqa: E402
from executorch.exir.backend.backend_details import BackendDetails, PreprocessResult  # noqa: E402
from executorch.exir.backend.canonical_partitioners.pattern_op_partitioner import (  # noqa: E402
    generate_pattern_op_partitions,
)
from executorch.exir.backend.compile_spec_schema import CompileSpec  # noqa: E402
from executorch.exir.backend.partitioner import DelegationSpec, Partitioner, PartitionResult  # noqa: E402
from executorch.exir.program._program import EdgeProgramManager  # noqa: E402
from executorch.exir.schema import DelegateCall, KernelCall  # noqa: E402
from torch.fx.passes.operator_support import OperatorSupportBase  # noqa: E402

GENERATOR = "datasets/oracle/generate.py"
GENERATOR_COMMAND = ".venv/bin/python datasets/oracle/generate.py"
REFERENCE_PROGRAM = "datasets/models/cnn/model.pte"
FAULT_SPEC_KEY = "etref.fault"


# ---------------------------------------------------------------------------
# The example vendor's AOT half
# ---------------------------------------------------------------------------


class EtrefExampleVendor(BackendDetails):
    """preprocess(): the subgraph as a program of its own. The runtime half
    (delegates/example_vendor/backend.c) loads it and runs it with etref
    kernels; debug ids are the inner program's instruction indices, and
    debug_handle_map says which graph nodes (debug handles) each stands
    for."""

    @staticmethod
    def preprocess(edge_program, compile_specs: List[CompileSpec]) -> PreprocessResult:
        manager = EdgeProgramManager(
            edge_programs=edge_program,
            compile_config=EdgeCompileConfig(_check_ir_validity=False),
        ).to_executorch(ExecutorchBackendConfig())
        handles = {}
        for instruction, value in manager.debug_handle_map["forward"].items():
            values = value if isinstance(value, (list, tuple)) else [value]
            handles[int(instruction)] = tuple(int(h) for h in values)
        return PreprocessResult(processed_bytes=manager.buffer, debug_handle_map=handles)


class _Supported(OperatorSupportBase):
    def __init__(self, targets: Optional[Sequence[str]]) -> None:
        self.targets = None if targets is None else set(targets)

    def is_node_supported(self, submodules, node) -> bool:
        if node.op != "call_function":
            return False
        if self.targets is None:
            return True
        name = getattr(node.target, "__name__", str(node.target))
        if name == "getitem":
            # A multi-output op's getitem goes with its producer.
            producer = node.args[0]
            return getattr(producer.target, "__name__", "") in self.targets
        return name in self.targets


class EtrefExampleVendorPartitioner(Partitioner):
    """Tags every call_function node (targets None) or the nodes whose
    target (e.g. 'aten.convolution.default') is listed; connected tagged
    nodes become one delegate."""

    def __init__(self, targets: Optional[Sequence[str]] = None, fault: Optional[str] = None) -> None:
        super().__init__()
        self.targets = targets
        specs = [CompileSpec(FAULT_SPEC_KEY, fault.encode())] if fault else []
        self.delegation = DelegationSpec(EtrefExampleVendor.__name__, specs)

    def partition(self, exported_program) -> PartitionResult:
        tags = {}
        partitions = generate_pattern_op_partitions(exported_program.graph_module, op_support=_Supported(self.targets))
        for partition in partitions:
            for node in partition.nodes:
                tag = f"tag{partition.id}"
                node.meta["delegation_tag"] = tag
                tags[tag] = self.delegation
        return PartitionResult(tagged_exported_program=exported_program, partition_tags=tags)


# ---------------------------------------------------------------------------
# Maps
# ---------------------------------------------------------------------------


def handle_map(manager) -> Dict[int, List[int]]:
    """debug_handle_map of 'forward' (instruction id -> debug handles; the
    emitter writes one handle as an int, several as a list)."""
    result = {}
    for instruction, value in manager.debug_handle_map["forward"].items():
        values = value if isinstance(value, (list, tuple)) else [value]
        result[int(instruction)] = [int(h) for h in values]
    return result


def program_instructions(data: bytes) -> List[Dict[str, Any]]:
    """Per instruction of chain 0 of 'forward': kind, operator, delegate."""
    program = deserialize_pte_binary(data).program
    plan = next(p for p in program.execution_plan if p.name == "forward")
    rows = []
    for index, instruction in enumerate(plan.chains[0].instructions):
        args = instruction.instr_args
        if isinstance(args, KernelCall):
            rows.append({"index": index, "kind": "KernelCall", "operator": datasets.operator_name(plan.operators[args.op_index])})
        elif isinstance(args, DelegateCall):
            rows.append({"index": index, "kind": "DelegateCall", "delegate": args.delegate_index, "args": list(args.args)})
        else:
            rows.append({"index": index, "kind": type(args).__name__})
    return rows


def inner_programs(manager) -> List[bytes]:
    """The processed blobs of the lowered modules, in delegate order."""
    blobs = []
    for _, module in manager.exported_program().graph_module.named_children():
        if type(module).__name__ == "LoweredBackendModule":
            blobs.append(bytes(module.processed_bytes))
    return blobs


def build_map(
    candidate: bytes,
    manager,
    reference: bytes,
    reference_handles: Dict[int, List[int]],
    candidate_handles: Dict[int, List[int]],
    candidate_path: str,
) -> Tuple[Dict[str, Any], List[Dict[str, Any]]]:
    """Aligns every value the candidate can report with a reference
    instruction: each inner instruction of each vendor delegate (delegate
    debug id = inner instruction index) by (debug handle, operator); each
    KernelCall outside delegates likewise; each DelegateCall output
    argument with the reference instruction producing the same value (the
    inner program's output instruction)."""
    ref_rows = program_instructions(reference)
    by_handle: Dict[Tuple[int, str], int] = {}
    for row in ref_rows:
        if row["kind"] == "KernelCall":
            for handle in reference_handles.get(row["index"], []):
                by_handle.setdefault((handle, row["operator"]), row["index"])
                by_handle[(handle, row["operator"])] = row["index"]  # last instruction of the node

    entries: List[Dict[str, Any]] = []
    delegates_info = []
    cand_rows = program_instructions(candidate)
    blobs = inner_programs(manager)
    delegate_maps = manager.delegate_map["forward"]

    def reference_for(handles: Sequence[int], operator: str) -> Optional[int]:
        for handle in handles:
            if (handle, operator) in by_handle:
                return by_handle[(handle, operator)]
        return None

    for row in cand_rows:
        if row["kind"] == "KernelCall":
            ref = reference_for(candidate_handles.get(row["index"], []), row["operator"])
            if ref is None:
                raise RuntimeError(f"no reference instruction for candidate instruction {row['index']} {row['operator']}")
            entries.append({"candidate": {"chain": 0, "instruction": row["index"]}, "reference": {"chain": 0, "instruction": ref}, "operator": row["operator"]})
        elif row["kind"] == "DelegateCall":
            inner = program_instructions(blobs[row["delegate"]])
            debug_map = delegate_maps[row["index"]]["delegate_map"]
            inner_entries = []
            for inner_row in inner:
                if inner_row["kind"] != "KernelCall":
                    continue
                handles = list(debug_map.get(inner_row["index"], ()))
                ref = reference_for(handles, inner_row["operator"])
                if ref is None:
                    raise RuntimeError(f"no reference instruction for delegate {row['delegate']} inner instruction {inner_row['index']}")
                inner_entries.append(
                    {
                        "candidate": {"chain": 0, "instruction": row["index"], "delegate_debug_id": inner_row["index"]},
                        "reference": {"chain": 0, "instruction": ref},
                        "operator": inner_row["operator"],
                        "debug_handles": handles,
                    }
                )
            entries += inner_entries
            # The delegate's outputs (after its inputs among the call's
            # arguments) are the outputs of its inner program: the values of
            # the inner instructions that produce them.
            inner_program = deserialize_pte_binary(blobs[row["delegate"]]).program.execution_plan[0]
            n_inputs = len(inner_program.inputs)
            producers = {}
            for inner_row in inner:
                if inner_row["kind"] == "KernelCall":
                    instr = inner_program.chains[0].instructions[inner_row["index"]].instr_args
                    producers[instr.args[-1]] = inner_row["index"]
            for k, value in enumerate(inner_program.outputs):
                inner_index = producers.get(value)
                match = next((e for e in inner_entries if e["candidate"]["delegate_debug_id"] == inner_index), None)
                if match is None:
                    continue
                entries.append(
                    {
                        "candidate": {"chain": 0, "instruction": row["index"], "output": n_inputs + k},
                        "reference": dict(match["reference"]),
                        "operator": match["operator"],
                        "note": f"DelegateCall argument {n_inputs + k}: delegate output {k}",
                    }
                )
            delegates_info.append(
                {
                    "instruction": row["index"],
                    "delegate_index": row["delegate"],
                    "inputs": n_inputs,
                    "outputs": len(inner_program.outputs),
                    "inner_instructions": [r for r in inner if r["kind"] == "KernelCall"],
                    "debug_handle_map": {str(k): list(v) for k, v in sorted(debug_map.items())},
                }
            )
    document = {
        "format": "etref-oracle-map",
        "version": 1,
        "generator": GENERATOR,
        "method": "forward",
        "candidate_program": candidate_path,
        "reference_program": REFERENCE_PROGRAM,
        "entries": entries,
    }
    return document, delegates_info


# ---------------------------------------------------------------------------
# Programs
# ---------------------------------------------------------------------------


def cnn_inputs(count: int) -> List[torch.Tensor]:
    seeds = [datasets.CNN_SEED + 1] + [datasets.CNN_SEED + 100 + i for i in range(count - 1)]
    return [datasets.seeded_randn(s, 1, 3, 32, 32) for s in seeds[:count]]


def export_cnn(partitioner=None, quantized=False):
    """The datasets' CNN (models/cnn), or its PT2E-quantized form
    (models/cnn_quantized: datasets/generate.py's quantize_cnn_pt2e), exported
    as datasets/generate.py exports them, optionally lowered with
    `partitioner`. Returns (eager model, executorch program manager)."""
    model = datasets.build_model(datasets.make_cnn, datasets.CNN_SEED)
    if quantized:
        datasets.load_quantized_kernels()
        model = datasets.quantize_cnn_pt2e(model)
    example = cnn_inputs(1)[0]
    ep = torch.export.export(model, (example,), strict=False)
    if partitioner is None:
        edge = to_edge(ep, compile_config=EdgeCompileConfig())
    else:
        edge = to_edge_transform_and_lower(ep, partitioner=[partitioner], compile_config=EdgeCompileConfig())
    return model, edge.to_executorch(ExecutorchBackendConfig())


def ties_input(qmodel) -> Tuple[torch.Tensor, float]:
    """An input whose every element lands exactly halfway between two
    quantization levels of the model's first quantize_per_tensor (the
    input's): x * (1.0f / (float)scale), computed in float as ExecuTorch's
    kernel computes it, equals k + 0.5. Rounding half to even and half
    away from zero then differ for every even k."""
    node = next(
        n for n in qmodel.graph.nodes if n.op == "call_function" and "quantize_per_tensor" in str(n.target) and "dequantize" not in str(n.target)
    )
    scale = float(node.args[1])
    inverse = np.float32(1.0) / np.float32(scale)
    # Halves k + 0.5 some float x hits exactly (not every one is: the
    # products of neighbouring floats step by about one ulp of the result).
    reachable = []
    for k in range(-60, 60):
        target = np.float32(k + 0.5)
        center = np.float32((k + 0.5) / float(inverse))
        candidates = [center]
        low = high = center
        for _ in range(16):
            low = np.nextafter(low, np.float32(-np.inf), dtype=np.float32)
            high = np.nextafter(high, np.float32(np.inf), dtype=np.float32)
            candidates += [low, high]
        hit = next((x for x in candidates if np.float32(x * inverse) == target), None)
        if hit is not None:
            reachable.append(hit)
    if len(reachable) < 60:
        raise RuntimeError(f"too few exact halves reachable for scale {scale}")
    values = [reachable[i % len(reachable)] for i in range(3 * 32 * 32)]
    return torch.from_numpy(np.array(values, dtype=np.float32).reshape(1, 3, 32, 32)), scale


def save_npy(path: Path, tensor: torch.Tensor) -> Dict[str, Any]:
    array = tensor.detach().contiguous().numpy()
    with open(path, "wb") as f:
        np.save(f, array, allow_pickle=False)
    return {"file": path.name, "dtype": str(array.dtype), "shape": list(array.shape)}


def write_json(path: Path, document: Dict[str, Any]) -> None:
    path.write_text(json.dumps(document, indent=2) + "\n")


def gen_vendor(
    root: Path,
    name: str,
    description: str,
    partitioner,
    reference: bytes,
    reference_handles,
    bundle_cases: int = 0,
    quantized: bool = False,
    reference_path: str = REFERENCE_PROGRAM,
) -> None:
    out = root / name
    out.mkdir(parents=True)
    model, manager = export_cnn(partitioner, quantized=quantized)
    data = manager.buffer
    (out / "model.pte").write_bytes(data)
    candidate_handles = handle_map(manager)
    document, delegates = build_map(data, manager, reference, reference_handles, candidate_handles, f"datasets/oracle/{name}/model.pte")
    document["reference_program"] = reference_path
    ties = None
    if quantized:
        ties = ties_input(model)
    write_json(out / "map.json", document)
    inputs = cnn_inputs(max(1, bundle_cases))
    cases = []
    with torch.no_grad():
        for c, x in enumerate(inputs):
            prefix = "" if c == 0 else f"case{c}_"
            y = model(x)
            cases.append({"prefix": prefix, "inputs": [save_npy(out / f"{prefix}input_0.npy", x)], "eager_outputs": [save_npy(out / f"{prefix}eager_output_0.npy", y)]})
    if ties is not None:
        tensor, scale = ties
        with torch.no_grad():
            cases.append(
                {
                    "prefix": "ties_",
                    "note": f"every element x makes x * (1.0f / {scale!r}f) an exact half (k + 0.5) in float, "
                    "so round-half-to-even and round-half-away quantize differ wherever k is even",
                    "inputs": [save_npy(out / "ties_input_0.npy", tensor)],
                    "eager_outputs": [save_npy(out / "ties_eager_output_0.npy", model(tensor))],
                }
            )
    files = [{"file": "model.pte", "size": len(data), "sha256": hashlib.sha256(data).hexdigest()}]
    if bundle_cases:
        from executorch.devtools import BundledProgram
        from executorch.devtools.bundled_program.config import MethodTestCase, MethodTestSuite
        from executorch.devtools.bundled_program.serialize import serialize_from_bundled_program_to_flatbuffer

        with torch.no_grad():
            suite = MethodTestSuite("forward", [MethodTestCase(inputs=[x], expected_outputs=[model(x)]) for x in inputs])
        bundled = serialize_from_bundled_program_to_flatbuffer(BundledProgram(manager, [suite]))
        (out / "model.bpte").write_bytes(bundled)
        files.append({"file": "model.bpte", "size": len(bundled), "sha256": hashlib.sha256(bundled).hexdigest(), "test_sets": len(inputs)})
    manifest = {
        "name": name,
        "description": description,
        "generator": GENERATOR,
        "generator_command": GENERATOR_COMMAND,
        "versions": {"torch": torch.__version__, "executorch": datasets.EXECUTORCH_VERSION},
        "seed": datasets.CNN_SEED,
        "method": "forward",
        "reference_program": reference_path,
        "files": files,
        "program": datasets.describe_program(data),
        "delegates": delegates,
        "cases": cases,
        "map_entries": len(document["entries"]),
    }
    write_json(out / "manifest.json", manifest)


def generate(root: Path) -> None:
    datasets.make_deterministic()
    if root.exists():
        for child in root.iterdir():
            if child.is_dir():
                shutil.rmtree(child)
    root.mkdir(parents=True, exist_ok=True)
    _, reference_manager = export_cnn(None)
    reference = reference_manager.buffer
    checked_in = (ORACLE_DIR.parent.parent / REFERENCE_PROGRAM).read_bytes()
    if reference != checked_in:
        raise RuntimeError(f"a fresh export of the CNN differs from {REFERENCE_PROGRAM}: regenerate datasets/ first")
    reference_handles = handle_map(reference_manager)
    gen_vendor(
        root,
        "cnn_vendor",
        "The datasets' CNN (models/cnn) with its whole graph lowered to the example vendor delegate: one DelegateCall whose inner program has the 10 KernelCalls of the reference program.",
        EtrefExampleVendorPartitioner(),
        reference,
        reference_handles,
        bundle_cases=2,
    )
    gen_vendor(
        root,
        "cnn_vendor_partial",
        "The CNN with only convolution, batch norm and relu lowered to the example vendor (two DelegateCalls); pooling, permute and addmm stay KernelCalls.",
        EtrefExampleVendorPartitioner(
            ["aten.convolution.default", "aten._native_batch_norm_legit_no_training.default", "aten.relu.default"]
        ),
        reference,
        reference_handles,
    )
    gen_vendor(
        root,
        "cnn_vendor_fp16",
        "cnn_vendor exported with the compile spec etref.fault = 'fp16:addmm': the delegate itself asks the example vendor to store the linear layer's output at fp16 precision (a deliberately wrong candidate carried by the program).",
        EtrefExampleVendorPartitioner(fault="fp16:addmm"),
        reference,
        reference_handles,
    )
    # The quantized CNN (models/cnn_quantized) lowered whole: its
    # quantize_per_tensor ops run in the vendor's own quantize kernel, where
    # the requant_* faults live. Generated last: loading the quantized
    # kernels' library changes other programs' last bits (generate.py).
    _, quantized_manager = export_cnn(None, quantized=True)
    quantized_reference = quantized_manager.buffer
    quantized_path = "datasets/models/cnn_quantized/model.pte"
    if quantized_reference != (ORACLE_DIR.parent.parent / quantized_path).read_bytes():
        raise RuntimeError(f"a fresh export of the quantized CNN differs from {quantized_path}: regenerate datasets/ first")
    gen_vendor(
        root,
        "cnn_vendor_quantized",
        "The PT2E-quantized CNN (models/cnn_quantized: XNNPACKQuantizer, int8 activations, per-channel int8 weights, "
        "BatchNorm folded) with its whole graph lowered to the example vendor delegate: quantize_per_tensor, "
        "dequantize_per_tensor/_per_channel and the float ops between them run inside one DelegateCall.",
        EtrefExampleVendorPartitioner(),
        quantized_reference,
        handle_map(quantized_manager),
        quantized=True,
        reference_path=quantized_path,
    )
    write_sums(root)


def generated_files(root: Path) -> List[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*") if p.is_file() and p.name not in ("SHA256SUMS",) and p.suffix != ".py" and p.name != "README.md")


def write_sums(root: Path) -> None:
    lines = [f"{hashlib.sha256((root / rel).read_bytes()).hexdigest()}  {rel}\n" for rel in generated_files(root)]
    (root / "SHA256SUMS").write_text("".join(lines))


def check(root: Path) -> int:
    with tempfile.TemporaryDirectory(prefix="etref-oracle-") as tmp:
        fresh = Path(tmp)
        generate(fresh)
        want, have = generated_files(fresh), generated_files(root)
        problems = [f"missing: {f}" for f in sorted(set(want) - set(have))]
        problems += [f"unexpected: {f}" for f in sorted(set(have) - set(want))]
        problems += [f"differs: {f}" for f in sorted(set(want) & set(have)) if (fresh / f).read_bytes() != (root / f).read_bytes()]
    for p in problems:
        print(p)
    print(f"check: {len(want)} files, {len(problems)} problem(s)")
    return 1 if problems else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="regenerate into a temp dir and compare")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    if args.check:
        return check(ORACLE_DIR)
    generate(ORACLE_DIR)
    return 0


if __name__ == "__main__":
    sys.exit(main())
