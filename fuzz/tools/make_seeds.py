#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
#
# Writes the generated part of the seed corpora (fuzz/corpus/<target>/gen_*):
#   kernel_diff  golden cases (datasets/golden/*.bin, FORMAT.md) converted to
#                kernel_diff's input (u8 name length, name, u8 arg count, the
#                arguments' bytes copied verbatim): per kernel with a
#                registered kernel, up to 2 value cases of different dtypes
#                (the first two in the file), the first two Float cases
#                besides (most optimized kernels have paths for Float only,
#                which a Byte or Char seed reaches only when the fuzzer
#                mutates its dtype), and 1 error case, each at most 8 KiB;
#                and convolutions the Winograd and small-plane kernels
#                take, FFTs of odd lengths and row-major addmm calls;
#   planner      lifetime sets in the planner target's encoding from a seeded
#                generator (chains, everything live at once, disjoint,
#                several pools, large and empty units, each alignment);
#   npy_parse    .npy files in every dtype the reader knows, format versions
#                1.0-3.0, Fortran order, 0-d and empty arrays.
# The .pte, .bpte, .ptd and dataset .npy seeds are read from datasets/models
# directly (by the replay tests, fuzz/campaign and oss_fuzz_build.sh) and
# are not copied.
#
# Deterministic (seeded): `make_seeds.py --check` fails when regenerating
# would change a checked-in seed. Only the standard library is needed.
import argparse
import os
import random
import re
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
MAX_CASE_BYTES = 8192
FLOAT = 6  # ScalarType::Float


class Reader:
    def __init__(self, data, position=0):
        self.data = data
        self.position = position

    def take(self, n):
        if self.position + n > len(self.data):
            raise ValueError("truncated")
        chunk = self.data[self.position:self.position + n]
        self.position += n
        return chunk

    def u8(self):
        return self.take(1)[0]

    def u32(self):
        return struct.unpack("<I", self.take(4))[0]

    def u64(self):
        return struct.unpack("<Q", self.take(8))[0]

    def string(self):
        return self.take(self.u32()).decode("utf-8")


def skip_tensor(r):
    dtype, dim, flags, _ = r.take(4)
    r.take(8 * dim)
    if flags & 1:
        r.take(8 * dim + 8)
    r.take(r.u64())
    return dtype


def skip_out_spec(r):
    dtype, dim, flags, _ = r.take(4)
    r.take(8 * dim)
    if flags & 1:
        r.take(dim)
    return dtype


def skip_value(r):
    """Skips one value; returns the dtype of a tensor input, else None."""
    tag = r.u8()
    if tag == 0:
        return None
    if tag == 1:
        return skip_tensor(r)
    if tag == 2:
        r.string()
    elif tag in (3, 4, 12, 13, 14):
        r.take(8)
    elif tag == 5:
        r.take(1)
    elif tag == 6:
        r.take(r.u32())
    elif tag in (7, 8):
        r.take(8 * r.u32())
    elif tag == 9:
        for _ in range(r.u32()):
            skip_tensor(r)
    elif tag == 11:
        for _ in range(r.u32()):
            if r.u8():
                skip_tensor(r)
    elif tag == 32:
        skip_out_spec(r)
    elif tag == 33:
        for _ in range(r.u32()):
            skip_out_spec(r)
    else:
        raise ValueError("unknown tag %d" % tag)
    return None


def golden_cases(path):
    """Yields (kernel, expect, dtype, arg_count, arg_bytes) per case."""
    data = open(path, "rb").read()
    r = Reader(data)
    if r.take(8) != b"ETRGOLD\0" or r.u32() != 1:
        raise ValueError("%s: not a version 1 golden file" % path)
    r.u32()  # flags
    r.string()  # generator
    r.string()  # provenance
    kernel = r.string()
    r.string()  # schema
    for _ in range(r.u32()):
        case_bytes = r.u32()
        end = r.position + case_bytes
        expect, _tolerance, _source, dtype = r.take(4)
        r.take(8)  # sample index, flags
        r.string()  # source
        r.string()  # note
        arg_count = r.u32()
        start = r.position
        for _ in range(arg_count):
            skip_value(r)
        args = data[start:r.position]
        r.position = end
        yield kernel, expect, dtype, arg_count, args


def registered_kernels():
    names = set()
    for path in ("ops_reference/registry.c", "core/prim_ops.c"):
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            names.update(re.findall(r'\{"([a-z_]+::[A-Za-z0-9_.]+)"', f.read()))
    return names


def kernel_diff_seeds():
    golden = os.path.join(ROOT, "datasets", "golden")
    if not os.path.isdir(golden):
        sys.stderr.write("make_seeds.py: no datasets/golden; kernel_diff seeds "
                         "left as they are\n")
        return None
    registered = registered_kernels()
    seeds = {}
    for name in sorted(os.listdir(golden)):
        if not name.endswith(".bin"):
            continue
        picked_dtypes = set()
        floats = 0
        errors = 0
        for kernel, expect, dtype, count, args in golden_cases(os.path.join(golden, name)):
            if kernel not in registered or count > 24 or len(args) > MAX_CASE_BYTES:
                continue
            if expect == 1:
                if errors >= 1:
                    continue
                errors += 1
                label = "error"
            else:
                if dtype == FLOAT and floats < 2:
                    floats += 1
                    label = "dtype%d" % dtype
                    if floats == 2:
                        label += "_second"
                    picked_dtypes.add(dtype)
                elif dtype in picked_dtypes or len(picked_dtypes - {FLOAT}) >= 2:
                    continue
                else:
                    picked_dtypes.add(dtype)
                    label = "dtype%d" % dtype
            key, blob = call_seed(kernel, count, args, label)
            seeds[key] = blob
    seeds.update(winograd_seeds())
    seeds.update(fft_seeds())
    seeds.update(dense_matmul_seeds())
    return seeds


def call_seed(kernel, count, args, label):
    """A kernel_diff seed's file name and bytes: the call of `kernel` (its
    name, then `count` encoded arguments `args`)."""
    encoded = kernel.encode()
    return ("gen_%s_%s" % (re.sub(r"[^A-Za-z0-9_.]", "_", kernel), label),
            bytes([len(encoded)]) + encoded + bytes([count]) + args)


def encode_tensor(dtype, sizes, values):
    """A dense tensor argument (FORMAT.md tag 1) holding the bytes `values`."""
    return (bytes([1, dtype, len(sizes), 0, 0]) + b"".join(struct.pack("<q", x) for x in sizes)
            + struct.pack("<Q", len(values)) + values)


def encode_out(dtype, sizes):
    """An out spec (tag 32) without a dim order."""
    return bytes([32, dtype, len(sizes), 0, 0]) + b"".join(struct.pack("<q", x) for x in sizes)


def encode_ints(*values):
    """An IntList (tag 8)."""
    return bytes([8]) + struct.pack("<I", len(values)) + b"".join(struct.pack("<q", v) for v in values)


def encode_int(value):
    """An Int (tag 4)."""
    return bytes([4]) + struct.pack("<q", value)


def seeded_floats(rng, count, low, high, divisor):
    """count floats k / divisor, k uniform in [low, high], as fp32 bytes."""
    return b"".join(struct.pack("<f", rng.randint(low, high) / divisor) for _ in range(count))


def seeded_tensor(rng, sizes):
    """A dense Float tensor of `sizes` holding seeded eighths in [-2, 2]."""
    n = 1
    for size in sizes:
        n *= size
    return encode_tensor(FLOAT, sizes, seeded_floats(rng, n, -16, 16, 8.0))


def fft_seeds():
    """aten::_fft_r2c.out and _fft_c2r.out calls of odd length
    (ops_optimized/fft/fft.c's r2c_odd and c2r_odd, two signals a lane),
    which no golden case reaches with more than one block of lanes: 15
    points of 20 signals (two sides) along the last dim and along dim 0
    (strided signals), 13 points (prime: Bluestein) both sides, and the
    inverses to 15 and 13 points; seeded values."""
    rng = random.Random(45)
    complex_float = 9  # ScalarType::ComplexFloat

    def tensor(sizes, dtype=FLOAT):
        n = 2 if dtype == complex_float else 1
        for size in sizes:
            n *= size
        return encode_tensor(dtype, sizes, seeded_floats(rng, n, -64, 64, 16.0))

    def r2c(sizes, dim, norm, onesided, out_sizes):
        return ("aten::_fft_r2c.out", tensor(sizes) + encode_ints(dim) + encode_int(norm)
                + bytes([5, 1 if onesided else 0]) + encode_out(complex_float, out_sizes))

    def c2r(sizes, dim, norm, last, out_sizes):
        return ("aten::_fft_c2r.out", tensor(sizes, complex_float) + encode_ints(dim)
                + encode_int(norm) + encode_int(last) + encode_out(FLOAT, out_sizes))

    cases = [("r2c_odd_rows", r2c((20, 15), 1, 0, True, (20, 8))),
             ("r2c_odd_strided", r2c((15, 20), 0, 2, True, (8, 20))),
             ("r2c_prime_twosided", r2c((3, 13), 1, 1, False, (3, 13))),
             ("c2r_odd_rows", c2r((19, 8), 1, 2, 15, (19, 15))),
             ("c2r_prime", c2r((5, 7), 1, 0, 13, (5, 13)))]
    return dict(call_seed(name, 5, args, label) for label, (name, args) in cases)


def winograd_seeds():
    """aten::convolution.out calls that the Winograd kernels take
    (ops_optimized/conv/winograd_avx512.c, winograd_positions_avx512.c:
    3x3, stride 1, padding 1, 8 input and out channels), which no golden
    case within the size cap reaches: a 8x24 plane (48 tiles, the tile
    lanes) and a 4x4 one (4 tiles, the position lanes); and the small
    5x5 stride-2 depthwise planes and a one-pixel pointwise call, seeded
    values."""
    rng = random.Random(44)

    def tensor(sizes):
        return seeded_tensor(rng, sizes)

    def convolution(input_sizes, weight_sizes, stride, pad, groups, out_sizes):
        return (tensor(input_sizes) + tensor(weight_sizes) + tensor((weight_sizes[0],))
                + encode_ints(stride, stride) + encode_ints(pad, pad) + encode_ints(1, 1)
                + bytes([5, 0]) + encode_ints(0, 0) + encode_int(groups)
                + encode_out(FLOAT, out_sizes))

    cases = [("winograd_tile_lanes", convolution((1, 8, 8, 24), (8, 8, 3, 3), 1, 1, 1,
                                                  (1, 8, 8, 24))),
             ("winograd_position_lanes", convolution((1, 8, 4, 4), (8, 8, 3, 3), 1, 1, 1,
                                                      (1, 8, 4, 4))),
             # depthwise5x5_s2_plane_avx512.c: 5x5, stride 2, padding 2 on
             # 8x8 planes (the in-lane split) and 6x4 ones (the generic one).
             ("depthwise5x5_s2_plane", convolution((1, 3, 8, 8), (3, 1, 5, 5), 2, 2, 3,
                                                    (1, 3, 4, 4))),
             ("depthwise5x5_s2_plane_generic", convolution((1, 2, 6, 4), (2, 1, 5, 5), 2, 2,
                                                            2, (1, 2, 3, 2))),
             # pointwise_<isa>.c's one-pixel chains: 24 -> 20 on [1, 24, 1, 1].
             ("pointwise_one_pixel", convolution((1, 24, 1, 1), (20, 24, 1, 1), 1, 0, 1,
                                                  (1, 20, 1, 1))),
             # depthwise3x3_s2_avx2.c: 3 channels of 16x16 (out rows of 8),
             # one channel 9x33 (17: two blocks and a 1-wide tail).
             ("depthwise3x3_s2_avx2", convolution((1, 3, 16, 16), (3, 1, 3, 3), 2, 1, 3,
                                                   (1, 3, 8, 8))),
             ("depthwise3x3_s2_avx2_wide", convolution((1, 1, 9, 33), (1, 1, 3, 3), 2, 1,
                                                        1, (1, 1, 5, 17))),
             # depthwise3x3_w4_avx2.c: 3x3 stride 1 on rows of 4 (5 rows).
             ("depthwise3x3_w4_avx2", convolution((1, 3, 5, 4), (3, 1, 3, 3), 1, 1, 3,
                                                   (1, 3, 5, 4))),
             # Its stride-2 twin on rows of 8 (7 rows: 4 out rows).
             ("depthwise3x3_s2_w4_avx2", convolution((1, 2, 7, 8), (2, 1, 3, 3), 2, 1, 2,
                                                      (1, 2, 4, 4))),
             # And its stride-1 kernel on rows of 8 (6 rows).
             ("depthwise3x3_w8_avx2", convolution((1, 2, 6, 8), (2, 1, 3, 3), 1, 1, 2,
                                                   (1, 2, 6, 8)))]
    return dict(call_seed("aten::convolution.out", 10, args, label) for label, args in cases)


def dense_matmul_seeds():
    """aten::addmm.out on dense row-major Float operands, which addmm's
    fast path (ops_optimized/op_addmm.c's addmm_dense) and its kept GEMM
    problem take and no golden case reaches (their mat2 is a transposed
    view): an LSTM gate's [1, 16] x [16, 64] + [64] and a [5, 8] x [8, 24]
    with a [5, 24] bias, beta 1 and alpha 1 (Ints); seeded values."""
    rng = random.Random(46)

    def tensor(sizes):
        return seeded_tensor(rng, sizes)

    def addmm(bias_sizes, m, k, n):
        return (tensor(bias_sizes) + tensor((m, k)) + tensor((k, n)) + encode_int(1)
                + encode_int(1) + encode_out(FLOAT, (m, n)))

    cases = [("dense_row_bias", addmm((64,), 1, 16, 64)),
             ("dense_matrix_bias", addmm((5, 24), 5, 8, 24))]
    return dict(call_seed("aten::addmm.out", 6, args, label) for label, args in cases)


def planner_seeds():
    rng = random.Random(20240611)
    seeds = {}

    def unit(pool, size, shift, start, length, kind=0):
        return struct.pack("<BBIHH", pool, (shift << 2) | kind, size, start, length)

    def lifetime_set(name, flags, positions, units):
        seeds["gen_" + name] = bytes([flags]) + struct.pack("<H", positions - 1) + b"".join(units)

    lifetime_set("chain", 1, 32, [unit(0, 64 * (i + 1), 0, i, 1) for i in range(30)])
    lifetime_set("all_live", 1, 8, [unit(0, rng.randrange(1, 5000), 0, 0, 7) for _ in range(20)])
    lifetime_set("disjoint", 2, 64, [unit(0, rng.randrange(1, 5000), 0, 2 * i, 0) for i in range(30)])
    lifetime_set("pools", 5, 100, [unit(i % 3, rng.randrange(0, 1 << 16), 0,
                                        rng.randrange(0, 90), rng.randrange(0, 10))
                                   for i in range(60)])
    lifetime_set("large", 3, 50, [unit(0, rng.randrange(1, 1 << 20), 20, rng.randrange(0, 40),
                                       rng.randrange(0, 10)) for _ in range(16)])
    lifetime_set("empty_units", 0, 10, [unit(0, 0, 0, i, 2) for i in range(8)] +
                 [unit(0, 100, 0, 0, 9)])
    lifetime_set("random", 1, 300, [unit(rng.randrange(0, 3), rng.randrange(0, 1 << 14),
                                         rng.randrange(0, 4), rng.randrange(0, 300),
                                         rng.randrange(0, 40), rng.randrange(0, 4))
                                    for _ in range(200)])
    return seeds


def npy(descr, shape, data, version=(1, 0), fortran=False):
    shape_text = "(" + "".join("%d, " % s for s in shape).rstrip(" ") + ")"
    if len(shape) > 1:
        shape_text = shape_text.rstrip(",)") + ")"
    header = "{'descr': '%s', 'fortran_order': %s, 'shape': %s, }" % (
        descr, "True" if fortran else "False", shape_text)
    length_bytes = 2 if version[0] == 1 else 4
    unpadded = 6 + 2 + length_bytes + len(header) + 1
    header += " " * ((64 - unpadded % 64) % 64) + "\n"
    fmt = "<H" if length_bytes == 2 else "<I"
    return (b"\x93NUMPY" + bytes(version) + struct.pack(fmt, len(header)) +
            header.encode("latin1") + data)


def npy_seeds():
    seeds = {}
    for descr, size in (("<f4", 4), ("<f8", 8), ("<f2", 2), ("|u1", 1), ("|i1", 1),
                        ("<i2", 2), ("<i4", 4), ("<i8", 8), ("|b1", 1), ("<c8", 8),
                        ("<c16", 16), ("<u2", 2), ("<u4", 4), ("<u8", 8)):
        name = descr.strip("<|")
        seeds["gen_%s_2x3" % name] = npy(descr, (2, 3), bytes(range(6 * size)))
    seeds["gen_f4_scalar"] = npy("<f4", (), b"\x00\x00\x80\x3f")
    seeds["gen_f4_empty"] = npy("<f4", (0, 4), b"")
    seeds["gen_f4_fortran"] = npy("<f4", (2, 3), bytes(24), fortran=True)
    seeds["gen_f4_v2"] = npy("<f4", (3,), bytes(12), version=(2, 0))
    seeds["gen_f4_v3"] = npy("<f4", (3,), bytes(12), version=(3, 0))
    seeds["gen_f4_rank5"] = npy("<f4", (1, 2, 1, 2, 1), bytes(16))
    return seeds


def main():
    parser = argparse.ArgumentParser(description="Writes the generated seed corpora (see the header comment).")
    parser.add_argument("--check", action="store_true",
                        help="fail when regeneration would change fuzz/corpus")
    args = parser.parse_args()
    stale = []
    for target, seeds in (("kernel_diff", kernel_diff_seeds()),
                          ("planner", planner_seeds()), ("npy_parse", npy_seeds())):
        if seeds is None:
            continue
        directory = os.path.join(ROOT, "fuzz", "corpus", target)
        os.makedirs(directory, exist_ok=True)
        existing = {n for n in os.listdir(directory) if n.startswith("gen_")}
        for name, blob in sorted(seeds.items()):
            path = os.path.join(directory, name)
            old = open(path, "rb").read() if os.path.exists(path) else None
            if old != blob:
                stale.append(path)
                if not args.check:
                    with open(path, "wb") as f:
                        f.write(blob)
        for name in sorted(existing - set(seeds)):
            stale.append(os.path.join(directory, name))
            if not args.check:
                os.remove(os.path.join(directory, name))
        print("%s: %d generated seeds" % (target, len(seeds)))
    if args.check and stale:
        sys.stderr.write("make_seeds.py --check: %d seeds would change, e.g. %s\n"
                         % (len(stale), stale[0]))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
