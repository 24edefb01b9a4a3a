# SPDX-License-Identifier: Apache-2.0
"""Writer and reader of etref's golden-vector files (datasets/golden/*.bin).

The format is specified in datasets/golden/FORMAT.md; this module is its
Python side (ops_reference/golden/golden_reader.c is the C side). One file
holds every case of one out-variant kernel: the arguments a kernel receives
(EValues in the out-variant schema's order, with the out tensors as
allocation specs) and the outputs PyTorch produced, or the marker that the
kernel must reject the arguments.

Tensors are stored as their logical values (row-major over the sizes) plus,
for inputs that PyTorch handed over as strided views, their strides and
storage offset, so a reader can rebuild the same view over a buffer.
"""

import struct
import sys
from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Tuple, Union

import torch

assert sys.byteorder == "little", "the golden format is little-endian"

MAGIC = b"ETRGOLD\0"
VERSION = 1
MAX_DIMS = 16

# EValue tags. 0..11 are ExecuTorch's runtime Tag numbers (core/evalue.h);
# the rest exist only in the file.
TAG_NONE = 0
TAG_TENSOR = 1
TAG_STRING = 2
TAG_DOUBLE = 3
TAG_INT = 4
TAG_BOOL = 5
TAG_BOOL_LIST = 6
TAG_DOUBLE_LIST = 7
TAG_INT_LIST = 8
TAG_TENSOR_LIST = 9
TAG_OPTIONAL_TENSOR_LIST = 11
TAG_SCALAR_TYPE = 12    # an Int naming a ScalarType (ExecuTorch numbering)
TAG_MEMORY_FORMAT = 13  # an Int naming a MemoryFormat (0 contiguous, 1 preserve, 2 channels_last)
TAG_LAYOUT = 14         # an Int naming a Layout (0 strided)
TAG_OUT_TENSOR = 32     # an out tensor to allocate (out spec)
TAG_OUT_TENSOR_LIST = 33  # a Tensor[] out: a list of out specs

EXPECT_VALUES = 0
EXPECT_ERROR = 1

# Tolerance classes (see FORMAT.md and ops_reference/golden/golden_tolerance.h).
TOL_EXACT = 0
TOL_DEFAULT = 1
TOL_TRANSCENDENTAL = 2
TOL_ACCUMULATION = 3
TOL_LOW_PRECISION = 4
TOL_SHAPE_ONLY = 5
TOL_PERMUTATION = 6
TOLERANCE_NAMES = {
    TOL_EXACT: "exact", TOL_DEFAULT: "default", TOL_TRANSCENDENTAL: "transcendental",
    TOL_ACCUMULATION: "accumulation", TOL_LOW_PRECISION: "low_precision",
    TOL_SHAPE_ONLY: "shape_only", TOL_PERMUTATION: "permutation",
}

SOURCE_SAMPLE = 0      # OpInfo.sample_inputs
SOURCE_REFERENCE = 1   # OpInfo.reference_inputs
SOURCE_ERROR = 2       # OpInfo.error_inputs
SOURCE_BOUNDARY = 3    # hand-written boundary case (golden_boundary.py)
SOURCE_LAYOUT = 4      # an OpInfo sample made non-contiguous or channels-last
SOURCE_BACKWARD = 5    # recorded while backpropagating through an OpInfo sample
SOURCE_DERIVED = 6     # an OpInfo sample's arguments passed to a related core op
SOURCE_NAMES = {
    SOURCE_SAMPLE: "sample", SOURCE_REFERENCE: "reference", SOURCE_ERROR: "error",
    SOURCE_BOUNDARY: "boundary", SOURCE_LAYOUT: "layout", SOURCE_BACKWARD: "backward",
    SOURCE_DERIVED: "derived",
}

NO_DTYPE = 255

# Case flags.
FLAG_MUTATES_INPUTS = 1  # the schema writes a non-out argument (running stats)

# torch dtype -> ExecuTorch ScalarType number (core/scalar_type.h).
SCALAR_TYPE = {
    torch.uint8: 0, torch.int8: 1, torch.int16: 2, torch.int32: 3, torch.int64: 4,
    torch.float16: 5, torch.float32: 6, torch.float64: 7, torch.complex32: 8,
    torch.complex64: 9, torch.complex128: 10, torch.bool: 11, torch.bfloat16: 15,
    torch.uint16: 27, torch.uint32: 28, torch.uint64: 29,
}
DTYPE_OF = {code: dtype for dtype, code in SCALAR_TYPE.items()}
MEMORY_FORMAT = {torch.contiguous_format: 0, torch.preserve_format: 1,
                 torch.channels_last: 2, torch.channels_last_3d: 3}
MEMORY_FORMAT_OF = {code: fmt for fmt, code in MEMORY_FORMAT.items()}
LAYOUT = {torch.strided: 0}


@dataclass
class TensorValue:
    """A tensor: logical values plus, for a strided view, strides and offset."""

    tensor: torch.Tensor              # the logical values (any layout)
    strides: Optional[Tuple[int, ...]] = None
    storage_offset: int = 0


@dataclass
class OutSpec:
    """An out tensor the reader allocates: dtype, final sizes, dim order."""

    dtype: torch.dtype
    sizes: Tuple[int, ...]
    dim_order: Optional[Tuple[int, ...]] = None


@dataclass
class Value:
    tag: int
    payload: object = None


@dataclass
class Case:
    expect: int
    tolerance: int
    source_kind: int
    dtype: int
    sample_index: int
    source: str
    note: str
    args: List[Value] = field(default_factory=list)
    expected: List[Value] = field(default_factory=list)
    flags: int = 0


# ---------------------------------------------------------------------------
# Encoding


def tensor_bytes(tensor: torch.Tensor) -> bytes:
    """Logical row-major values, little-endian, as the file stores them."""
    flat = tensor.detach().contiguous().reshape(-1)
    if flat.numel() == 0:
        return b""
    return flat.view(torch.uint8).numpy().tobytes()


def _string(text: str) -> bytes:
    data = text.encode("utf-8")
    return struct.pack("<I", len(data)) + data


def _tensor_body(value: TensorValue) -> bytes:
    tensor = value.tensor
    dim = tensor.dim()
    assert dim <= MAX_DIMS
    strided = value.strides is not None
    out = struct.pack("<BBBB", SCALAR_TYPE[tensor.dtype], dim, 1 if strided else 0, 0)
    out += struct.pack(f"<{dim}q", *tensor.shape)
    if strided:
        out += struct.pack(f"<{dim}q", *value.strides)
        out += struct.pack("<q", value.storage_offset)
    data = tensor_bytes(tensor)
    return out + struct.pack("<Q", len(data)) + data


def _out_spec(spec: OutSpec) -> bytes:
    dim = len(spec.sizes)
    has_order = spec.dim_order is not None
    out = struct.pack("<BBBB", SCALAR_TYPE[spec.dtype], dim, 1 if has_order else 0, 0)
    out += struct.pack(f"<{dim}q", *spec.sizes)
    if has_order:
        out += bytes(spec.dim_order)
    return out


def encode_value(value: Value) -> bytes:
    tag, payload = value.tag, value.payload
    head = struct.pack("<B", tag)
    if tag == TAG_NONE:
        return head
    if tag == TAG_TENSOR:
        return head + _tensor_body(payload)
    if tag == TAG_STRING:
        return head + _string(payload)
    if tag == TAG_DOUBLE:
        return head + struct.pack("<d", payload)
    if tag in (TAG_INT, TAG_SCALAR_TYPE, TAG_MEMORY_FORMAT, TAG_LAYOUT):
        return head + struct.pack("<q", payload)
    if tag == TAG_BOOL:
        return head + struct.pack("<B", 1 if payload else 0)
    if tag == TAG_BOOL_LIST:
        return head + struct.pack(f"<I{len(payload)}B", len(payload), *[1 if b else 0 for b in payload])
    if tag == TAG_DOUBLE_LIST:
        return head + struct.pack(f"<I{len(payload)}d", len(payload), *payload)
    if tag == TAG_INT_LIST:
        return head + struct.pack(f"<I{len(payload)}q", len(payload), *payload)
    if tag == TAG_TENSOR_LIST:
        return head + struct.pack("<I", len(payload)) + b"".join(_tensor_body(t) for t in payload)
    if tag == TAG_OPTIONAL_TENSOR_LIST:
        body = b"".join(b"\0" if t is None else b"\1" + _tensor_body(t) for t in payload)
        return head + struct.pack("<I", len(payload)) + body
    if tag == TAG_OUT_TENSOR:
        return head + _out_spec(payload)
    if tag == TAG_OUT_TENSOR_LIST:
        return head + struct.pack("<I", len(payload)) + b"".join(_out_spec(s) for s in payload)
    raise ValueError(f"unknown tag {tag}")


def encode_case(case: Case) -> bytes:
    body = struct.pack("<BBBBII", case.expect, case.tolerance, case.source_kind, case.dtype,
                       case.sample_index, case.flags)
    body += _string(case.source) + _string(case.note)
    body += struct.pack("<I", len(case.args)) + b"".join(encode_value(v) for v in case.args)
    body += struct.pack("<I", len(case.expected)) + b"".join(encode_value(v) for v in case.expected)
    return struct.pack("<I", len(body)) + body


def encode_file(generator: str, provenance: str, kernel: str, schema: str,
                cases: Sequence[Union[Case, bytes]]) -> bytes:
    out = MAGIC + struct.pack("<II", VERSION, 0)
    out += _string(generator) + _string(provenance) + _string(kernel) + _string(schema)
    out += struct.pack("<I", len(cases))
    for case in cases:
        out += case if isinstance(case, bytes) else encode_case(case)
    return out


# ---------------------------------------------------------------------------
# Decoding (for the ExecuTorch cross-check and for tests of the writer)


class _Cursor:
    def __init__(self, data: bytes, pos: int = 0) -> None:
        self.data, self.pos = data, pos

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise ValueError(f"truncated at byte {self.pos} (need {n})")
        chunk = self.data[self.pos:self.pos + n]
        self.pos += n
        return chunk

    def unpack(self, fmt: str):
        size = struct.calcsize("<" + fmt)
        return struct.unpack("<" + fmt, self.take(size))

    def string(self) -> str:
        (n,) = self.unpack("I")
        return self.take(n).decode("utf-8")


def _decode_tensor(cursor: _Cursor) -> TensorValue:
    code, dim, flags, _ = cursor.unpack("BBBB")
    dtype = DTYPE_OF[code]
    sizes = cursor.unpack(f"{dim}q")
    strides, offset = None, 0
    if flags & 1:
        strides = cursor.unpack(f"{dim}q")
        (offset,) = cursor.unpack("q")
    (nbytes,) = cursor.unpack("Q")
    raw = bytearray(cursor.take(nbytes))
    numel = 1
    for s in sizes:
        numel *= s
    flat = torch.frombuffer(raw, dtype=torch.uint8) if nbytes else torch.empty(0, dtype=torch.uint8)
    tensor = flat.view(dtype).reshape(sizes) if numel else torch.empty(sizes, dtype=dtype)
    return TensorValue(tensor.clone(), strides, offset)


def _decode_out_spec(cursor: _Cursor) -> OutSpec:
    code, dim, flags, _ = cursor.unpack("BBBB")
    sizes = cursor.unpack(f"{dim}q")
    order = tuple(cursor.take(dim)) if flags & 1 else None
    return OutSpec(DTYPE_OF[code], tuple(sizes), order)


def decode_value(cursor: _Cursor) -> Value:
    (tag,) = cursor.unpack("B")
    if tag == TAG_NONE:
        return Value(tag)
    if tag == TAG_TENSOR:
        return Value(tag, _decode_tensor(cursor))
    if tag == TAG_STRING:
        return Value(tag, cursor.string())
    if tag == TAG_DOUBLE:
        return Value(tag, cursor.unpack("d")[0])
    if tag in (TAG_INT, TAG_SCALAR_TYPE, TAG_MEMORY_FORMAT, TAG_LAYOUT):
        return Value(tag, cursor.unpack("q")[0])
    if tag == TAG_BOOL:
        return Value(tag, bool(cursor.unpack("B")[0]))
    if tag in (TAG_BOOL_LIST, TAG_DOUBLE_LIST, TAG_INT_LIST):
        (n,) = cursor.unpack("I")
        fmt = {TAG_BOOL_LIST: "B", TAG_DOUBLE_LIST: "d", TAG_INT_LIST: "q"}[tag]
        items = list(cursor.unpack(f"{n}{fmt}"))
        return Value(tag, [bool(i) for i in items] if tag == TAG_BOOL_LIST else items)
    if tag == TAG_TENSOR_LIST:
        (n,) = cursor.unpack("I")
        return Value(tag, [_decode_tensor(cursor) for _ in range(n)])
    if tag == TAG_OPTIONAL_TENSOR_LIST:
        (n,) = cursor.unpack("I")
        items = []
        for _ in range(n):
            (present,) = cursor.unpack("B")
            items.append(_decode_tensor(cursor) if present else None)
        return Value(tag, items)
    if tag == TAG_OUT_TENSOR:
        return Value(tag, _decode_out_spec(cursor))
    if tag == TAG_OUT_TENSOR_LIST:
        (n,) = cursor.unpack("I")
        return Value(tag, [_decode_out_spec(cursor) for _ in range(n)])
    raise ValueError(f"unknown tag {tag} at byte {cursor.pos - 1}")


def decode_file(data: bytes) -> Tuple[dict, List[Case]]:
    cursor = _Cursor(data)
    if cursor.take(8) != MAGIC:
        raise ValueError("bad magic")
    version, flags = cursor.unpack("II")
    if version != VERSION:
        raise ValueError(f"unsupported version {version}")
    header = {"version": version, "flags": flags, "generator": cursor.string(),
              "provenance": cursor.string(), "kernel": cursor.string(), "schema": cursor.string()}
    (count,) = cursor.unpack("I")
    cases = []
    for _ in range(count):
        (size,) = cursor.unpack("I")
        end = cursor.pos + size
        expect, tolerance, source_kind, dtype, sample_index, flags = cursor.unpack("BBBBII")
        source, note = cursor.string(), cursor.string()
        (nargs,) = cursor.unpack("I")
        args = [decode_value(cursor) for _ in range(nargs)]
        (nexp,) = cursor.unpack("I")
        expected = [decode_value(cursor) for _ in range(nexp)]
        if cursor.pos != end:
            raise ValueError("case size does not match its contents")
        cases.append(Case(expect, tolerance, source_kind, dtype, sample_index, source, note,
                          args, expected, flags))
    if cursor.pos != len(data):
        raise ValueError("trailing bytes after the last case")
    return header, cases


def build_input(value: TensorValue) -> torch.Tensor:
    """The strided view a reader builds: values scattered into a buffer."""
    tensor = value.tensor
    if value.strides is None:
        return tensor.clone()
    sizes, strides = tuple(tensor.shape), tuple(value.strides)
    if tensor.numel() == 0:
        return torch.empty_strided(sizes, strides, dtype=tensor.dtype)
    index = torch.full(sizes, value.storage_offset, dtype=torch.int64)
    for d, (size, stride) in enumerate(zip(sizes, strides)):
        shape = [1] * len(sizes)
        shape[d] = size
        index += torch.arange(size, dtype=torch.int64).reshape(shape) * stride
    storage = torch.zeros(int(index.max()) + 1, dtype=tensor.dtype)
    # Overlapping views (stride 0) write one location several times with
    # the same value, so the order of the writes does not matter.
    storage[index.reshape(-1)] = tensor.reshape(-1)
    return storage.as_strided(sizes, strides, value.storage_offset)


def file_name(kernel: str) -> str:
    """'aten::add.out' -> 'aten__add.out.bin' ('::' becomes '__')."""
    return kernel.replace("::", "__") + ".bin"
