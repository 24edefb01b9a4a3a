#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Run a sample of the golden cases through ExecuTorch as a second opinion.

For every kernel with golden cases (datasets/golden/) and up to
CASES_PER_KERNEL of its value cases (different dtypes first), the case's
functional core op is wrapped in a one-op nn.Module whose tensor arguments
are the forward inputs and whose other arguments are baked in, exported
with torch.export -> executorch.exir.to_edge -> to_executorch(), and run on
the ExecuTorch runtime shipped in the executorch wheel
(executorch.runtime.Runtime, portable kernels). Its outputs are compared
with the golden outputs (PyTorch's) using the case's tolerance class.

Recorded per core op, in datasets/ops/executorch_findings.json:
  * the kernels the emitted programs call, and whether the runtime has them
    (OperatorMissing at load), or why no program could be made (export or
    to_edge failure);
  * the dtypes whose cases ran and matched;
  * disagreements with PyTorch eager beyond the tolerance (the case, the
    first differing element), and runtime errors.
These are findings about ExecuTorch, not etref failures. Inputs are passed
contiguous (an ExecuTorch program cannot receive a strided view), and
symbolic prim ops are not exercised (torch.export folds them to constants
under static shapes).

Usage: .venv/bin/python datasets/ops/executorch_second_opinion.py [--out F]
"""

import os
import sys

if os.environ.get("PYTHONHASHSEED") != "0":
    os.environ["PYTHONHASHSEED"] = "0"
    os.execv(sys.executable, [sys.executable] + sys.argv)
for _var in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
    os.environ[_var] = "1"
sys.dont_write_bytecode = True

import argparse  # noqa: E402
import collections  # noqa: E402
import contextlib  # noqa: E402
import json  # noqa: E402
import logging  # noqa: E402
import re  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any, Dict, List, Optional, Tuple  # noqa: E402

import torch  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
import golden_format as gf  # noqa: E402

GENERATOR = "datasets/ops/executorch_second_opinion.py"
OPS_DIR = Path(__file__).resolve().parent
REPO = OPS_DIR.parent.parent
CASES_PER_KERNEL = 6
# Tolerances of the golden classes, (rtol, atol) for the real dtype.
from generate_golden import REAL_OF, TOLERANCES  # noqa: E402


@contextlib.contextmanager
def captured_native_stderr():
    """Collects what the runtime's C++ code writes to fd 2."""
    sys.stderr.flush()
    saved = os.dup(2)
    with tempfile.TemporaryFile(mode="w+b") as sink:
        os.dup2(sink.fileno(), 2)
        text = {"value": ""}
        try:
            yield text
        finally:
            sys.stderr.flush()
            os.dup2(saved, 2)
            os.close(saved)
            sink.seek(0)
            text["value"] = sink.read().decode("utf-8", "replace")


def core_ops_path() -> Path:
    # ETREF_CORE_OPS_JSON lets regenerate.sh --check use a fresh op list.
    return Path(os.environ.get("ETREF_CORE_OPS_JSON", OPS_DIR / "core_ops.json"))


def functional_ops() -> Dict[str, torch._ops.OpOverload]:
    """kernel -> the functional core op a program would call for it."""
    document = json.loads(core_ops_path().read_text())
    result = {}
    for entry in document["ops"]:
        if entry["kind"] != "functional":
            continue
        namespace, rest = entry["op"].split("::", 1)
        base, _, overload = rest.partition(".")
        op = getattr(getattr(getattr(torch.ops, namespace), base), overload or "default")
        result.setdefault(entry["kernel"], op)
    return result


class OneOp(torch.nn.Module):
    """Calls one functional op; tensors come in as forward inputs."""

    def __init__(self, op, template: List[Tuple[str, Any]], kwarg_names: List[str]) -> None:
        super().__init__()
        self.op = op
        self.template = template  # (kind, payload) per schema argument
        self.kwarg_names = kwarg_names

    def forward(self, *tensors):
        values = []
        for kind, payload in self.template:
            if kind == "tensor":
                values.append(tensors[payload])
            elif kind == "tensors":
                values.append([None if i is None else tensors[i] for i in payload])
            else:
                values.append(payload)
        positional = values[:len(values) - len(self.kwarg_names)]
        keywords = dict(zip(self.kwarg_names, values[len(positional):]))
        result = self.op(*positional, **keywords)
        return tuple(result) if isinstance(result, (list, tuple)) else (result,)


def scalar_value(value: gf.Value):
    if value.tag == gf.TAG_SCALAR_TYPE:
        return gf.DTYPE_OF[value.payload]
    if value.tag == gf.TAG_MEMORY_FORMAT:
        return gf.MEMORY_FORMAT_OF[value.payload]
    if value.tag == gf.TAG_LAYOUT:
        return torch.strided
    return value.payload


def build_module(op, kernel_schema_args, case: gf.Case):
    """(module, inputs) for a case, or raises ValueError."""
    named: Dict[str, gf.Value] = {a.name: v for a, v in zip(kernel_schema_args, case.args)}
    out_specs = [v.payload for v in case.args if v.tag == gf.TAG_OUT_TENSOR]
    out_specs += [s for v in case.args if v.tag == gf.TAG_OUT_TENSOR_LIST for s in v.payload]
    inputs: List[torch.Tensor] = []
    template: List[Tuple[str, Any]] = []
    kwarg_names: List[str] = []
    for arg in op._schema.arguments:
        if arg.name in named:
            value = named[arg.name]
            if value.tag == gf.TAG_TENSOR:
                template.append(("tensor", len(inputs)))
                inputs.append(value.payload.tensor.contiguous().clone())
            elif value.tag in (gf.TAG_TENSOR_LIST, gf.TAG_OPTIONAL_TENSOR_LIST):
                indices = []
                for item in value.payload:
                    if item is None:
                        indices.append(None)
                    else:
                        indices.append(len(inputs))
                        inputs.append(item.tensor.contiguous().clone())
                template.append(("tensors", indices))
            else:
                template.append(("const", scalar_value(value)))
        elif arg.name == "dtype" and out_specs:
            template.append(("const", out_specs[0].dtype))  # functional-only
        elif arg.has_default_value():
            template.append(("const", arg.default_value))
        elif arg.type.kind() == "OptionalType":
            template.append(("const", None))
        else:
            raise ValueError(f"no value for {arg.name}")
        if arg.kwarg_only:
            kwarg_names.append(arg.name)
    # Keyword-only arguments must come last in the template order.
    order = [i for i, a in enumerate(op._schema.arguments) if not a.kwarg_only]
    order += [i for i, a in enumerate(op._schema.arguments) if a.kwarg_only]
    template = [template[i] for i in order]
    return OneOp(op, template, kwarg_names), inputs


def expected_outputs(case: gf.Case) -> List[torch.Tensor]:
    return [v.payload.tensor for v in case.expected if v.tag == gf.TAG_TENSOR]


def compare(actual: torch.Tensor, expected: torch.Tensor, tolerance: int) -> Optional[str]:
    if actual.dtype != expected.dtype:
        return f"dtype {actual.dtype} vs {expected.dtype}"
    if tuple(actual.shape) != tuple(expected.shape):
        return f"shape {tuple(actual.shape)} vs {tuple(expected.shape)}"
    if tolerance in (gf.TOL_SHAPE_ONLY, gf.TOL_PERMUTATION) or expected.numel() == 0:
        return None
    a, e = actual.reshape(-1), expected.reshape(-1)
    if a.is_complex():
        a, e = torch.view_as_real(a).reshape(-1), torch.view_as_real(e).reshape(-1)
    floating = a.is_floating_point()
    real = REAL_OF.get(expected.dtype, expected.dtype)
    if not floating or tolerance == gf.TOL_EXACT:
        rtol, atol = 0.0, 0.0
    else:
        rtol, atol = TOLERANCES.get(tolerance, TOLERANCES[gf.TOL_DEFAULT])[real]
    ad, ed = a.double(), e.double()
    nan_a, nan_e = torch.isnan(ad), torch.isnan(ed)
    inf = torch.isinf(ad) | torch.isinf(ed)
    bad = nan_a != nan_e
    both = ~(nan_a | nan_e)
    bad |= both & inf & (ad != ed)
    finite = both & ~inf
    bad |= finite & ((ad - ed).abs() > atol + rtol * ed.abs())
    if not floating:
        bad = a.to(torch.int64) != e.to(torch.int64) if a.dtype != torch.bool else a != e
    if not bool(bad.any()):
        return None
    i = int(bad.nonzero()[0])
    return (f"{int(bad.sum())} of {bad.numel()} values differ; first at flat {i}: "
            f"ExecuTorch {a[i].item()!r}, PyTorch {e[i].item()!r}")


def run_case(runtime, op, kernel_args, case: gf.Case) -> Dict[str, Any]:
    module, inputs = build_module(op, kernel_args, case)
    from executorch.exir import to_edge

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            exported = torch.export.export(module, tuple(inputs))
        except Exception as error:
            return {"stage": "export", "error": f"{type(error).__name__}: {first_line(error)}"}
        try:
            program = to_edge(exported).to_executorch()
        except Exception as error:
            return {"stage": "to_edge", "error": f"{type(error).__name__}: {first_line(error)}"}
    operators = sorted({(o.name + ("." + o.overload if o.overload else ""))
                        for plan in program.executorch_program.execution_plan
                        for o in plan.operators})
    with captured_native_stderr() as log:
        try:
            loaded = runtime.load_program(program.buffer)
            method = loaded.load_method("forward")
        except Exception as error:
            method, load_error = None, error
    if method is None:
        missing = sorted(set(re.findall(r"Missing operator: \[\d+\] (\S+)", log["value"])))
        return {"stage": "load", "operators": operators, "missing": missing,
                "error": f"{type(load_error).__name__}: {first_line(load_error)}"}
    with captured_native_stderr() as log:
        try:
            outputs = method.execute(inputs)
        except Exception as error:
            return {"stage": "execute", "operators": operators,
                    "error": f"{type(error).__name__}: {first_line(error)}",
                    "log": last_log_line(log)}
    expected = expected_outputs(case)
    outputs = [o for o in outputs if isinstance(o, torch.Tensor)]
    if len(outputs) != len(expected):
        return {"stage": "compare", "operators": operators,
                "error": f"{len(outputs)} outputs, PyTorch has {len(expected)}"}
    for index, (actual, reference) in enumerate(zip(outputs, expected)):
        difference = compare(actual, reference, case.tolerance)
        if difference:
            return {"stage": "compare", "operators": operators,
                    "error": f"output {index}: {difference}"}
    return {"stage": "ok", "operators": operators}


def first_line(error: BaseException) -> str:
    text = str(error).strip()
    return (text.splitlines()[0] if text else "")[:240]


def last_log_line(log: Dict[str, str]) -> str:
    lines = [line for line in log.get("value", "").splitlines() if line.strip()]
    return lines[-1][:240] if lines else ""


# Dtypes in the order cases are picked: the common float types first.
DTYPE_PRIORITY = [torch.float32, torch.float16, torch.bfloat16, torch.float64, torch.int64,
                  torch.int32, torch.bool, torch.uint8, torch.int8, torch.int16,
                  torch.complex64, torch.complex128]


def pick_cases(cases: List[gf.Case]) -> List[Tuple[int, gf.Case]]:
    """Up to CASES_PER_KERNEL value cases: one per dtype in DTYPE_PRIORITY
    order, then the remaining cases in file order."""
    values = [(i, c) for i, c in enumerate(cases) if c.expect == gf.EXPECT_VALUES]
    rank = {gf.SCALAR_TYPE[d]: r for r, d in enumerate(DTYPE_PRIORITY)}
    chosen: List[Tuple[int, gf.Case]] = []
    seen = set()
    for i, c in sorted(values, key=lambda item: (rank.get(item[1].dtype, 99), item[0])):
        if c.dtype not in seen:
            seen.add(c.dtype)
            chosen.append((i, c))
    indices = {i for i, _ in chosen}
    chosen += [(i, c) for i, c in values if i not in indices]
    return sorted(chosen[:CASES_PER_KERNEL], key=lambda item: item[0])


def describe(case: gf.Case, index: int) -> str:
    dtype = str(gf.DTYPE_OF.get(case.dtype, "-")).replace("torch.", "")
    return f"case {index} ({case.source} {gf.SOURCE_NAMES[case.source_kind]} {case.sample_index}, {dtype})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--golden-dir", type=Path, default=REPO / "datasets/golden")
    parser.add_argument("--out", type=Path, default=OPS_DIR / "executorch_findings.json")
    parser.add_argument("--only", help="regex: run only kernels matching it (for debugging)")
    args = parser.parse_args()
    logging.disable(logging.WARNING)
    torch.set_num_threads(1)
    from executorch.extension.pybindings import portable_lib
    from executorch.runtime import Runtime
    from executorch.version import __version__ as executorch_version

    portable_lib._unsafe_reset_threadpool(1)
    runtime = Runtime.get()
    functional = functional_ops()
    core = json.loads(core_ops_path().read_text())
    started = time.time()
    per_op: Dict[str, Any] = {}
    for entry in core["ops"]:
        kernel = entry["kernel"]
        if args.only and not re.search(args.only, kernel):
            continue
        record: Dict[str, Any] = {"kernel": kernel, "executorch_kernel": entry["executorch_kernel"],
                                  "in_runtime_registry": entry["executorch_kernel_in_runtime_registry"]}
        per_op[entry["op"]] = record
        path = args.golden_dir / gf.file_name(kernel)
        if entry["kind"] != "functional" or functional.get(kernel) is not entry_op(entry):
            record["status"] = ("not run: " + ("symbolic prim op (folded away by torch.export under "
                                              "static shapes)" if entry["kind"] == "prim" else
                                              "in-place op" if entry["kind"] == "inplace" else
                                              f"same kernel as {functional_name(functional, kernel)}"))
            continue
        if not path.exists():
            record["status"] = "not run: no golden cases"
            continue
        _, cases = gf.decode_file(path.read_bytes())
        op = functional[kernel]
        kernel_args = list(resolve(kernel)._schema.arguments)
        results = []
        for index, case in pick_cases(cases):
            try:
                outcome = run_case(runtime, op, kernel_args, case)
            except ValueError as error:
                outcome = {"stage": "build", "error": str(error)}
            outcome["case"] = describe(case, index)
            outcome["dtype"] = str(gf.DTYPE_OF.get(case.dtype, "-")).replace("torch.", "")
            results.append(outcome)
        summarize(record, results)
    document = {
        "generator": GENERATOR,
        "torch_version": torch.__version__,
        "executorch_version": executorch_version,
        "cases_per_kernel": CASES_PER_KERNEL,
        "summary": totals(per_op),
        "ops": per_op,
    }
    args.out.write_text(json.dumps(document, indent=1, sort_keys=True) + "\n")
    summary = document["summary"]
    print(f"{GENERATOR}: {summary['ops_run']} ops run, {summary['ops_kernel_missing']} with a "
          f"missing kernel, {summary['ops_export_failed']} not exportable, "
          f"{summary['ops_with_disagreements']} with disagreements; {time.time() - started:.0f} s")
    return 0


def entry_op(entry: dict):
    namespace, rest = entry["op"].split("::", 1)
    base, _, overload = rest.partition(".")
    return getattr(getattr(getattr(torch.ops, namespace), base), overload or "default")


def functional_name(functional: Dict[str, Any], kernel: str) -> str:
    op = functional.get(kernel)
    return op.name() if op is not None else kernel


def resolve(name: str):
    namespace, rest = name.split("::", 1)
    base, _, overload = rest.partition(".")
    return getattr(getattr(getattr(torch.ops, namespace), base), overload or "default")


def summarize(record: Dict[str, Any], results: List[Dict[str, Any]]) -> None:
    stages = collections.Counter(r["stage"] for r in results)
    record["cases_run"] = len(results)
    record["outcomes"] = dict(sorted(stages.items()))
    record["programs_call"] = sorted({o for r in results for o in r.get("operators", [])})
    record["missing_operators"] = sorted({m for r in results for m in r.get("missing", [])})
    record["dtypes_ok"] = sorted({r["dtype"] for r in results if r["stage"] == "ok"})
    record["disagreements"] = [{"case": r["case"], "detail": r["error"]}
                               for r in results if r["stage"] == "compare"]
    record["errors"] = [{"case": r["case"], "stage": r["stage"], "detail": r["error"],
                         **({"log": r["log"]} if r.get("log") else {})}
                        for r in results if r["stage"] not in ("ok", "compare")]
    if stages.get("load") and not stages.get("ok"):
        record["status"] = "kernel missing"
    elif stages.get("export", 0) + stages.get("to_edge", 0) == len(results) and results:
        record["status"] = "export failed"
    elif stages.get("compare"):
        record["status"] = "disagrees"
    elif stages.get("ok") == len(results):
        record["status"] = "ok"
    else:
        record["status"] = "partial"


def totals(per_op: Dict[str, Any]) -> Dict[str, Any]:
    statuses = collections.Counter(r.get("status", "").split(":")[0] for r in per_op.values())
    return {
        "ops": len(per_op),
        "statuses": dict(sorted(statuses.items())),
        "ops_run": sum(1 for r in per_op.values() if "cases_run" in r),
        "ops_kernel_missing": sum(1 for r in per_op.values() if r.get("status") == "kernel missing"),
        "ops_export_failed": sum(1 for r in per_op.values() if r.get("status") == "export failed"),
        "ops_with_disagreements": sum(1 for r in per_op.values() if r.get("disagreements")),
        "missing_operators": sorted({m for r in per_op.values() for m in r.get("missing_operators", [])}),
    }


if __name__ == "__main__":
    sys.exit(main())
