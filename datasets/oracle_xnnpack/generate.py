#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""XNNPACK-delegated programs run by ExecuTorch's own runtime, recorded for
etref's oracle (`etref compare --candidate etdump:...`).

For each program below the generator exports ONE torch.export program and
derives from it both
  * the reference program: to_edge(ep).to_executorch(), portable kernels
    only (it must be byte-identical to the datasets' non-delegated model:
    datasets/models/cnn, cnn_quantized, transformer), and
  * the candidate: to_edge_transform_and_lower(ep, [XnnpackPartitioner])
    .to_executorch() (for cnn_xnnpack and cnn_quantized_xnnpack it must be
    byte-identical to the dataset's delegated model),
so the exporter's debug handles agree between the two: each graph node of
torch.export's program gets one handle, kept by every node it is lowered
or decomposed into. The candidate then runs in ExecuTorch 1.5.1's Python
runtime (executorch.runtime, enable_etdump=True with a debug buffer), which
writes an ETDump whose debug events hold every argument of every
DelegateCall (inputs, then outputs: ExecuTorch cannot tell them apart and
logs all) and every KernelCall's outputs; their tensor bytes are in the
debug buffer. The "_per_op" variants use XnnpackPartitioner(per_op_mode=
True): one DelegateCall per operator, so intermediate values exist op by op
(a whole-graph delegate reports only its inputs and outputs: XNNPACK logs
nothing from inside).

Per program folder datasets/oracle_xnnpack/<name>/:
  * model.pte          the candidate (absent when the dataset holds it:
                       manifest.json "candidate_program" names the file);
  * input_0.npy        the seeded input (the dataset model's input_0.npy);
  * executorch.etdp    ExecuTorch's ETDump of one execution (profiling
                       timestamps are this machine's; everything else is
                       deterministic);
  * executorch.debug.bin  its debug buffer, cut after the last logged tensor;
  * executorch_output_0.npy  the runtime's output for that execution;
  * map.json           the oracle map ("etref-oracle-map" version 1, the
                       format of prof/oracle/align.h): each DelegateCall
                       output argument and each KernelCall outside the
                       delegates -> the reference instruction that computes
                       the same graph node (found by debug handle; the last
                       reference instruction of a node produces its value,
                       e.g. addmm after the weight permute of a linear);
  * manifest.json      programs, delegates, the debug handles behind each
                       map entry, the ETDump's event counts.

`--check` regenerates into a temporary directory and compares every file
byte for byte except the ETDump and its debug buffer: their profiling
timestamps and the tensors' offsets (aligned to 64 bytes of the runtime's
memory addresses) change from run to run, so for them every logged value
(instruction, dtype, shape and the tensor's bytes) must be identical.

Usage (repository root, after datasets/install.sh; about a minute):
    .venv/bin/python datasets/oracle_xnnpack/generate.py [--check]
"""

import os
import sys

if os.environ.get("PYTHONHASHSEED") != "0":
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable] + sys.argv)

from pathlib import Path  # noqa: E402

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
sys.path.insert(0, str(HERE.parent))

import argparse  # noqa: E402
import copy  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402
import warnings  # noqa: E402
from dataclasses import dataclass  # noqa: E402
from typing import Any, Callable, Dict, List, Optional, Tuple  # noqa: E402

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
from executorch.exir.schema import DelegateCall, KernelCall  # noqa: E402

GENERATOR = "datasets/oracle_xnnpack/generate.py"
GENERATOR_COMMAND = ".venv/bin/python datasets/oracle_xnnpack/generate.py"
DEBUG_BUFFER_BYTES = 4 << 20  # generous; the file is cut to what was used

# etdump ScalarType name -> element size (ETDump stores the dtype by name in
# the Python view of the flatbuffer).
ELEMENT_SIZE = {"BYTE": 1, "CHAR": 1, "SHORT": 2, "INT": 4, "LONG": 8, "HALF": 2, "FLOAT": 4, "DOUBLE": 8,
                "BOOL": 1, "BFLOAT16": 2, "UINT16": 2, "BITS16": 2}


@dataclass
class Spec:
    name: str
    description: str
    reference: str                      # datasets/models/<reference>/
    build: Callable[[], Tuple[torch.nn.Module, torch.Tensor]]  # (exportable model, input)
    per_op: bool
    dataset_candidate: Optional[str] = None  # datasets/models/<name>/model.pte


def cnn_model():
    model = datasets.build_model(datasets.make_cnn, datasets.CNN_SEED)
    return model, datasets.seeded_randn(datasets.CNN_SEED + 1, 1, 3, 32, 32)


def cnn_quantized_model():
    datasets.load_quantized_kernels()
    model, x = cnn_model()
    return datasets.quantize_cnn_pt2e(model), x


def transformer_model():
    seed = 1004  # datasets/generate.py gen_transformer
    return datasets.build_model(datasets.TransformerBlock, seed), datasets.seeded_randn(seed + 1, 1, 16, 64)


# fp32 programs first: loading the quantized kernel library moves some
# portable kernels' last bits (see datasets/generate.py load_quantized_kernels).
SPECS = [
    Spec("cnn_xnnpack", "The dataset's cnn_xnnpack program: the whole CNN in one XNNPACK delegate (fp32).",
         "cnn", cnn_model, False, "cnn_xnnpack"),
    Spec("cnn_xnnpack_per_op", "The CNN lowered with XnnpackPartitioner(per_op_mode=True): one fp32 XNNPACK delegate per "
         "operator (convolution, batch norm, relu, max pool, ..., linear), so every intermediate value is a delegate output.",
         "cnn", cnn_model, True),
    Spec("transformer_xnnpack", "The dataset's transformer block lowered to XNNPACK (fp32) with XnnpackPartitioner(): "
         "linear layers, matmuls, softmax and additions in XNNPACK delegates, layer norm and gelu where XNNPACK takes them.",
         "transformer", transformer_model, False),
    Spec("cnn_quantized_xnnpack", "The dataset's cnn_quantized_xnnpack program: the PT2E-quantized CNN (XNNPACKQuantizer) "
         "in one XNNPACK delegate (qs8 operators).", "cnn_quantized", cnn_quantized_model, False,
         "cnn_quantized_xnnpack"),
    Spec("cnn_quantized_xnnpack_per_op", "The PT2E-quantized CNN with XnnpackPartitioner(per_op_mode=True): one delegate per "
         "quantized operator (int8 in, int8 out), so every requantized activation is a delegate output.",
         "cnn_quantized", cnn_quantized_model, True),
]


# ---------------------------------------------------------------------------
# Export


def export_pair(spec: Spec):
    """(reference manager, candidate manager, input) from one torch.export."""
    from executorch.backends.xnnpack.partition.xnnpack_partitioner import XnnpackPartitioner

    model, x = spec.build()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ep = torch.export.export(model, (x,), strict=False)
        reference = to_edge(copy.deepcopy(ep), compile_config=EdgeCompileConfig()).to_executorch(
            ExecutorchBackendConfig())
        partitioner = XnnpackPartitioner(per_op_mode=True) if spec.per_op else XnnpackPartitioner()
        candidate = to_edge_transform_and_lower(ep, partitioner=[partitioner],
                                                compile_config=EdgeCompileConfig()).to_executorch(
            ExecutorchBackendConfig())
    return reference, candidate, x


def handle_map(manager) -> Dict[int, List[int]]:
    """Instruction id -> debug handles (the emitter writes one as an int)."""
    result = {}
    for instruction, value in manager.debug_handle_map["forward"].items():
        values = value if isinstance(value, (list, tuple)) else [value]
        result[int(instruction)] = [int(h) for h in values]
    return result


def tensor_items(plan, index: int) -> List[int]:
    """The tensor EValues an argument stands for (a TensorList's items)."""
    val = plan.values[index].val
    if type(val).__name__ == "Tensor":
        return [index]
    if type(val).__name__ == "TensorList":
        return [int(i) for i in val.items]
    return []


def instructions(data: bytes) -> List[Dict[str, Any]]:
    """Chain 0 of 'forward', per instruction: kind, operator, arguments and,
    for KernelCalls, the tensor EValues it reads ("inputs") and writes
    ("outputs": what the trailing return slot holds)."""
    program = deserialize_pte_binary(data).program
    plan = next(p for p in program.execution_plan if p.name == "forward")
    rows = []
    for index, instruction in enumerate(plan.chains[0].instructions):
        args = instruction.instr_args
        if isinstance(args, KernelCall):
            arguments = [int(a) for a in args.args]
            outputs = tensor_items(plan, arguments[-1]) if arguments else []
            inputs = [t for a in arguments[:-1] for t in tensor_items(plan, a) if t not in outputs]
            rows.append({"index": index, "kind": "KernelCall",
                         "operator": datasets.operator_name(plan.operators[args.op_index]), "args": arguments,
                         "inputs": inputs, "outputs": outputs,
                         "output_shapes": [list(plan.values[t].val.sizes) for t in outputs]})
        elif isinstance(args, DelegateCall):
            rows.append({"index": index, "kind": "DelegateCall", "delegate": args.delegate_index,
                         "args": list(args.args)})
        else:
            rows.append({"index": index, "kind": type(args).__name__})
    return rows


# Operators that only reshape (their value is another value's bytes).
VIEW_OPERATORS = ("::view_copy", "::_unsafe_view", "::squeeze_copy", "::unsqueeze_copy", "::reshape")


def edge_operator(target: str) -> str:
    """'<EdgeOpOverload: aten.convolution.default>: ...' -> 'aten::convolution'."""
    name = target.split("<EdgeOpOverload: ", 1)[-1].split(">", 1)[0]
    namespace, _, rest = name.partition(".")
    return f"{namespace}::{rest.split('.')[0]}"


def base_operator(operator: str) -> str:
    """'aten::convolution.out' -> 'aten::convolution'."""
    return operator.split(".")[0]


def node_handle(node) -> Optional[int]:
    handle = node.meta.get("debug_handle")
    if isinstance(handle, (list, tuple)):
        handle = handle[0] if handle else None
    return None if handle is None else int(handle)


def delegate_outputs(manager) -> List[Dict[str, Any]]:
    """Per executorch_call_delegate node, in graph order (= DelegateCall
    order): its number of inputs and, per output, the debug handle of the
    node inside the lowered graph that produces it and which result of that
    node it is (getitem index)."""
    gm = manager.exported_program().graph_module
    result = []
    for node in gm.graph.nodes:
        if node.op != "call_function" or "executorch_call_delegate" not in str(node.target):
            continue
        lowered = getattr(gm, node.args[0].target)
        graph = lowered.original_module.graph
        output = next(n for n in graph.nodes if n.op == "output")
        outs = []
        for value in output.args[0]:
            index = 0
            producer = value
            if value.op == "call_function" and value.target.__name__ == "getitem":
                producer, index = value.args[0], int(value.args[1])
            fake = value.meta.get("val")
            outs.append({"handle": node_handle(value) if node_handle(value) is not None else node_handle(producer),
                         "result": index, "node": value.name, "target": str(producer.target),
                         "shape": list(fake.shape) if hasattr(fake, "shape") else None})
        result.append({"inputs": len(node.args) - 1, "outputs": outs, "node": node.name})
    return result


def build_map(spec: Spec, reference_data: bytes, reference, candidate_data: bytes, candidate,
              candidate_path: str) -> Tuple[Dict[str, Any], List[Dict[str, Any]]]:
    ref_rows = instructions(reference_data)
    ref_handles = handle_map(reference)
    # Debug handle -> the last reference KernelCall computing that node (the
    # node's value); (handle, operator) -> every such KernelCall in order.
    last_for_handle: Dict[int, Dict[str, Any]] = {}
    by_handle_operator: Dict[Tuple[int, str], List[Dict[str, Any]]] = {}
    for row in ref_rows:
        if row["kind"] == "KernelCall":
            for handle in sorted(set(ref_handles.get(row["index"], []))):
                last_for_handle[handle] = row
                by_handle_operator.setdefault((handle, row["operator"]), []).append(row)
    seen: Dict[Tuple[int, str], int] = {}
    cand_rows = instructions(candidate_data)
    cand_handles = handle_map(candidate)
    cand_delegates = delegate_outputs(candidate)
    delegates = iter(cand_delegates)

    # What node produced each input: the debug handles of the instruction
    # (or delegate output) that wrote it, so that two KernelCalls of one
    # node and operator (a matmul's two expand_copy calls) pair up by what
    # they read, not by their order, which lowering may change.
    def writers(rows, handles, delegate_infos) -> Dict[int, Tuple[int, ...]]:
        written: Dict[int, Tuple[int, ...]] = {}
        infos = iter(delegate_infos)
        for row in rows:
            if row["kind"] == "KernelCall":
                for value in row["outputs"]:
                    written[value] = tuple(sorted(set(handles.get(row["index"], []))))
            elif row["kind"] == "DelegateCall":
                info = next(infos)
                for k, value in enumerate(row["args"][info["inputs"]:]):
                    written[int(value)] = (info["outputs"][k]["handle"],)
        return written

    ref_writers = writers(ref_rows, ref_handles, [])
    cand_writers = writers(cand_rows, cand_handles, cand_delegates)

    def signature(row, written) -> Tuple[Any, ...]:
        return tuple(written.get(value) for value in row["inputs"])
    entries: List[Dict[str, Any]] = []
    described = []
    for row in cand_rows:
        if row["kind"] == "KernelCall":
            # The k-th candidate KernelCall of a node and operator stands for
            # the k-th reference one (a matmul's two expand_copy calls).
            handles = cand_handles.get(row["index"], [])
            target = None
            for h in sorted(set(handles)):
                key = (h, row["operator"])
                if key in by_handle_operator:
                    options = by_handle_operator[key]
                    same_inputs = [r for r in options
                                   if signature(r, ref_writers) == signature(row, cand_writers)]
                    if len(same_inputs) == 1:
                        target = same_inputs[0]
                    else:
                        k = seen.get(key, 0)
                        seen[key] = k + 1
                        target = options[k] if k < len(options) else None
                    break
            if target is None:
                raise RuntimeError(f"{spec.name}: no reference instruction for candidate instruction {row['index']} "
                                   f"{row['operator']} (handles {handles})")
            entries.append({"candidate": {"chain": 0, "instruction": row["index"], "output": 0},
                            "reference": {"chain": 0, "instruction": target["index"], "output": 0},
                            "operator": row["operator"], "debug_handles": handles})
        elif row["kind"] == "DelegateCall":
            info = next(delegates)
            if len(row["args"]) != info["inputs"] + len(info["outputs"]):
                raise RuntimeError(f"{spec.name}: DelegateCall {row['index']} has {len(row['args'])} arguments, "
                                   f"expected {info['inputs']} inputs + {len(info['outputs'])} outputs")
            for k, out in enumerate(info["outputs"]):
                # The reference instruction of the same node and operator
                # (a quantize node shares its handle with the op it follows);
                # else the node's last instruction (linear -> addmm).
                same_op = [row for (h, op), rows in by_handle_operator.items()
                           if h == out["handle"] and base_operator(op) == edge_operator(out["target"]) for row in rows]
                target = max(same_op, key=lambda r: r["index"]) if same_op else last_for_handle.get(out["handle"])
                if target is None:
                    # The reference computes this node without an
                    # instruction (a view the memory plan aliases).
                    out["unmapped"] = "no reference instruction computes this node (a planned view)"
                    continue
                if not same_op and edge_operator(out["target"]).endswith(VIEW_OPERATORS):
                    # A reshape inside a decomposition (a matmul's operand
                    # view) is not the node's final value.
                    out["unmapped"] = "a view inside the node's decomposition, not its value"
                    continue
                shapes = target["output_shapes"]
                if out["shape"] is not None and (out["result"] >= len(shapes) or shapes[out["result"]] != out["shape"]):
                    # etref compare judges equal shapes only (a linear's
                    # [1, 16, 64] against its addmm's [16, 64]).
                    out["unmapped"] = (f"the reference value has shape "
                                       f"{shapes[out['result']] if out['result'] < len(shapes) else None}, "
                                       f"this one {out['shape']}")
                    continue
                entries.append({
                    "candidate": {"chain": 0, "instruction": row["index"], "output": info["inputs"] + k},
                    "reference": {"chain": 0, "instruction": target["index"], "output": out["result"]},
                    "operator": target["operator"],
                    "debug_handles": [out["handle"]],
                    "note": f"DelegateCall argument {info['inputs'] + k}: delegate output {k} ({out['target']})",
                })
            described.append({"instruction": row["index"], "delegate_index": row["delegate"], "inputs": info["inputs"],
                              "outputs": info["outputs"], "debug_handles": cand_handles.get(row["index"], [])})
    document = {
        "format": "etref-oracle-map",
        "version": 1,
        "generator": GENERATOR,
        "method": "forward",
        "candidate_program": candidate_path,
        "reference_program": f"datasets/models/{spec.reference}/model.pte",
        "entries": entries,
    }
    return document, described


# ---------------------------------------------------------------------------
# ExecuTorch's runtime with ETDump


def run_with_etdump(program: Path, x: torch.Tensor, etdump: Path, debug: Path) -> torch.Tensor:
    from executorch.runtime import Runtime

    loaded = Runtime.get().load_program(program, enable_etdump=True, debug_buffer_size=DEBUG_BUFFER_BYTES)
    method = loaded.load_method("forward")
    outputs = method.execute([x])
    loaded.write_etdump_result_to_file(str(etdump), str(debug))
    return outputs[0].clone()


def debug_events(etdump_bytes: bytes) -> List[Dict[str, Any]]:
    """The debug events of an ETDump (everything but timestamps)."""
    from executorch.devtools.etdump.serialize import deserialize_from_etdump_flatcc

    dump = deserialize_from_etdump_flatcc(etdump_bytes)
    events = []
    for run in dump.run_data:
        for event in run.events or []:
            debug = event.debug_event
            if debug is None:
                continue
            value = debug.debug_entry
            tensors = []
            if value.tensor is not None:
                tensors = [value.tensor]
            elif value.tensor_list is not None:
                tensors = list(value.tensor_list.tensors)
            events.append({
                "block": run.name,
                "chain": debug.chain_index,
                "instruction": debug.instruction_id,
                "delegate_debug_id": debug.delegate_debug_id_int,
                "value": str(value.val),
                "tensors": [{"dtype": str(getattr(t.scalar_type, "name", t.scalar_type)), "sizes": list(t.sizes),
                             "strides": list(t.strides), "offset": t.offset} for t in tensors],
            })
    return events


def tensor_bytes(t: Dict[str, Any]) -> int:
    numel = 1
    for size in t["sizes"]:
        numel *= size
    return numel * ELEMENT_SIZE[t["dtype"].split(".")[-1].upper()]


def used_debug_bytes(events: List[Dict[str, Any]]) -> int:
    end = 0
    for event in events:
        for t in event["tensors"]:
            if t["offset"] is not None:
                end = max(end, t["offset"] + tensor_bytes(t))
    return end


def logged_values(etdump_bytes: bytes, debug_bytes: bytes) -> List[Dict[str, Any]]:
    """The debug events with each tensor's bytes instead of its offset: the
    runtime aligns logged tensors to 64 bytes of their address in memory,
    so offsets (and the buffer's length) vary from run to run; the values
    do not."""
    values = []
    for event in debug_events(etdump_bytes):
        event = dict(event)
        tensors = []
        for t in event["tensors"]:
            t = dict(t)
            offset = t.pop("offset")
            t["sha256"] = None if offset is None else sha256(debug_bytes[offset:offset + tensor_bytes(t)])
            tensors.append(t)
        event["tensors"] = tensors
        values.append(event)
    return values


# ---------------------------------------------------------------------------
# Writing


def save_npy(path: Path, tensor: torch.Tensor) -> Dict[str, Any]:
    array = tensor.detach().contiguous().numpy()
    with open(path, "wb") as f:
        np.save(f, array, allow_pickle=False)
    return {"file": path.name, "dtype": str(array.dtype), "shape": list(array.shape)}


def write_json(path: Path, document: Dict[str, Any]) -> None:
    path.write_text(json.dumps(document, indent=2) + "\n")


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def generate_one(root: Path, spec: Spec) -> Dict[str, Any]:
    out = root / spec.name
    out.mkdir(parents=True)
    reference, candidate, x = export_pair(spec)
    reference_data = bytes(reference.buffer)
    reference_path = REPO / "datasets" / "models" / spec.reference / "model.pte"
    if reference_data != reference_path.read_bytes():
        raise RuntimeError(f"{spec.name}: a fresh non-delegated export differs from {reference_path}; "
                           "regenerate datasets/ first")
    candidate_data = bytes(candidate.buffer)
    files = []
    if spec.dataset_candidate is not None:
        candidate_rel = f"datasets/models/{spec.dataset_candidate}/model.pte"
        if candidate_data != (REPO / candidate_rel).read_bytes():
            raise RuntimeError(f"{spec.name}: a fresh delegated export differs from {candidate_rel}")
        candidate_file = REPO / candidate_rel
    else:
        candidate_rel = f"datasets/oracle_xnnpack/{spec.name}/model.pte"
        candidate_file = out / "model.pte"
        candidate_file.write_bytes(candidate_data)
        files.append({"file": "model.pte", "size": len(candidate_data), "sha256": sha256(candidate_data)})
    document, delegates = build_map(spec, reference_data, reference, candidate_data, candidate, candidate_rel)
    write_json(out / "map.json", document)
    files.append(save_npy(out / "input_0.npy", x))
    dataset_input = np.load(REPO / "datasets" / "models" / spec.reference / "input_0.npy")
    if not np.array_equal(dataset_input, x.numpy()):
        raise RuntimeError(f"{spec.name}: the input differs from datasets/models/{spec.reference}/input_0.npy")

    etdump, debug = out / "executorch.etdp", out / "executorch.debug.bin"
    y = run_with_etdump(candidate_file, x, etdump, debug)
    events = debug_events(etdump.read_bytes())
    used = used_debug_bytes(events)
    debug.write_bytes(debug.read_bytes()[:used])
    files.append(save_npy(out / "executorch_output_0.npy", y))
    files += [{"file": "executorch.etdp"}, {"file": "executorch.debug.bin"}]
    logged = {}
    for event in events:
        key = f"{event['chain']}:{event['instruction']}"
        logged[key] = logged.get(key, 0) + 1
    manifest = {
        "name": spec.name,
        "description": spec.description,
        "generator": GENERATOR,
        "generator_command": GENERATOR_COMMAND,
        "versions": {"torch": torch.__version__, "executorch": datasets.EXECUTORCH_VERSION},
        "partitioner": "XnnpackPartitioner(per_op_mode=True)" if spec.per_op else "XnnpackPartitioner()",
        "export": "torch.export.export(model, (input,), strict=False) -> ep; reference = to_edge(ep).to_executorch(); "
                  "candidate = to_edge_transform_and_lower(ep, partitioner=[partitioner]).to_executorch()",
        "candidate_program": candidate_rel,
        "candidate_program_sha256": sha256(candidate_data),
        "reference_program": f"datasets/models/{spec.reference}/model.pte",
        "reference_program_sha256": sha256(reference_data),
        "input": f"input_0.npy (= datasets/models/{spec.reference}/input_0.npy)",
        "etdump": {
            "runtime": "executorch.runtime.Runtime.get().load_program(candidate, enable_etdump=True, "
                       f"debug_buffer_size={DEBUG_BUFFER_BYTES}).load_method('forward').execute([input]); "
                       "write_etdump_result_to_file(executorch.etdp, executorch.debug.bin)",
            "debug_events": len(events),
            "debug_events_per_instruction": logged,
            "logged_tensor_bytes": sum(tensor_bytes(t) for e in events for t in e["tensors"]),
            "note": "tensor offsets in the debug buffer follow the runtime's 64-byte alignment of their memory "
                    "address, so they (and the buffer's length) change from run to run; the values do not",
        },
        "program": datasets.describe_program(candidate_data),
        "delegates": delegates,
        "map_entries": len(document["entries"]),
        "files": files,
        "compare_command": (f"bazel run //:etref -- compare {candidate_rel} --input datasets/oracle_xnnpack/{spec.name}/input_0.npy "
                            f"--candidate etdump:datasets/oracle_xnnpack/{spec.name}/executorch.etdp "
                            f"--reference-program datasets/models/{spec.reference}/model.pte "
                            f"--map datasets/oracle_xnnpack/{spec.name}/map.json"),
    }
    write_json(out / "manifest.json", manifest)
    return manifest


def generate(root: Path) -> List[Dict[str, Any]]:
    datasets.make_deterministic()
    # ETDumps whose logged values come out the same are kept as they were,
    # so regenerating does not churn them (their bytes vary run to run).
    previous: Dict[str, Tuple[bytes, bytes]] = {}
    if root.exists():
        for etdump in root.glob("*/executorch.etdp"):
            debug = etdump.with_name("executorch.debug.bin")
            if debug.exists():
                previous[etdump.parent.name] = (etdump.read_bytes(), debug.read_bytes())
        for child in root.iterdir():
            if child.is_dir():
                shutil.rmtree(child)
    root.mkdir(parents=True, exist_ok=True)
    manifests = []
    for spec in SPECS:
        manifests.append(generate_one(root, spec))
        if spec.name in previous:
            etdump, debug = root / spec.name / "executorch.etdp", root / spec.name / "executorch.debug.bin"
            old_etdump, old_debug = previous[spec.name]
            if logged_values(old_etdump, old_debug) == logged_values(etdump.read_bytes(), debug.read_bytes()):
                etdump.write_bytes(old_etdump)
                debug.write_bytes(old_debug)
        print(f"{spec.name}: {manifests[-1]['map_entries']} map entries, "
              f"{manifests[-1]['etdump']['debug_events']} debug events, "
              f"{manifests[-1]['etdump']['logged_tensor_bytes']} logged tensor bytes", flush=True)
    write_sums(root)
    return manifests


def generated_files(root: Path) -> List[str]:
    return sorted(p.relative_to(root).as_posix() for p in root.rglob("*")
                  if p.is_file() and p.parent != root)


def write_sums(root: Path) -> None:
    lines = [f"{sha256((root / rel).read_bytes())}  {rel}\n" for rel in generated_files(root)
             if not rel.endswith((".etdp", ".debug.bin"))]
    (root / "SHA256SUMS").write_text("".join(lines))


def check() -> int:
    with tempfile.TemporaryDirectory(prefix="etref-oracle-xnnpack-") as tmp:
        fresh = Path(tmp) / "oracle_xnnpack"
        generate(fresh)
        want, have = generated_files(fresh), generated_files(HERE)
        problems = [f"missing: {f}" for f in sorted(set(want) - set(have))]
        problems += [f"unexpected: {f}" for f in sorted(set(have) - set(want))]
        for rel in sorted(set(want) & set(have)):
            a, b = (fresh / rel).read_bytes(), (HERE / rel).read_bytes()
            if rel.endswith(".etdp"):
                debug = rel[: -len(".etdp")] + ".debug.bin"
                if logged_values(a, (fresh / debug).read_bytes()) != logged_values(b, (HERE / debug).read_bytes()):
                    problems.append(f"differs (logged values): {rel}")
            elif rel.endswith(".debug.bin"):
                continue  # compared through its ETDump
            elif a != b:
                problems.append(f"differs: {rel}")
        if (fresh / "SHA256SUMS").read_bytes() != (HERE / "SHA256SUMS").read_bytes():
            problems.append("differs: SHA256SUMS")
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
        return check()
    generate(HERE)
    return 0


if __name__ == "__main__":
    sys.exit(main())
