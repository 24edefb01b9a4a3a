// SPDX-License-Identifier: Apache-2.0
//
// Instruction sets the optimized kernels can use, detected once.
//
// Each SIMD microkernel lives in a file of its own compiled for one ISA
// (`*_avx2.c` with -mavx2 -mfma, `*_avx512.c` with -mavx512f/bw/dq/vl,
// `*_neon.c` on aarch64); a kernel picks the table of its family for
// etr_isa_active() at each call, so one binary holds every path and tests
// can run them side by side. ETR_ISA_SCALAR is portable C with no
// intrinsics, the baseline every machine has.
//
// etr_isa_active() is the best ISA this CPU supports, or a lower one when
// the environment variable ETREF_ISA (scalar, avx2, avx512, neon) asks for
// it, or when a test forces one with etr_isa_force. Asking for an ISA the
// CPU lacks falls back to the best available (never a SIGILL).
#ifndef ETR_OPS_OPTIMIZED_ISA_H
#define ETR_OPS_OPTIMIZED_ISA_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum etr_isa {
  ETR_ISA_SCALAR = 0,
  ETR_ISA_AVX2 = 1,    // x86-64: AVX2 + FMA3 (+ F16C)
  ETR_ISA_AVX512 = 2,  // x86-64: AVX-512 F, BW, DQ, VL
  ETR_ISA_NEON = 3,    // aarch64: Advanced SIMD (always present)
  ETR_NUM_ISAS = 4,
} etr_isa_t;

// "scalar", "avx2", "avx512", "neon".
const char *etr_isa_name(etr_isa_t isa);

// True when this CPU (and this build) can run `isa`.
bool etr_isa_available(etr_isa_t isa);

// The ISA kernels use now.
etr_isa_t etr_isa_active(void);

// Makes kernels use `isa` (when available; otherwise the best available) —
// for tests and benchmarks that compare paths. Not thread-safe. Returns the
// ISA now active.
etr_isa_t etr_isa_force(etr_isa_t isa);

// Returns to the detected (or ETREF_ISA) choice.
void etr_isa_reset(void);

// True on Intel CPUs, where a 512-bit vector divide issues more slowly per
// element than two 256-bit ones (binary/binary_avx512.c): the AVX-512
// division kernels then divide in halves. Detected once.
bool etr_isa_split_wide_divide(void);

// True on Intel CPUs, whose vector divide issues once every 8-10 cycles
// (the Xeon of 2026-11-28): there dividing by one value with FMA steps
// beats it; on Zen 2 the divide is the faster (div.Scalar f32[64x1024] / 3
// 13.1 -> 9.0 us, the fused hardswish 4.8 -> 2.55 us;
// binary/binary_kernels.h). Also true off x86 (Arm keeps the FMA steps it
// had: not measured against its divide). Detected once.
bool etr_isa_slow_divide(void);
// For tests, so that both divisions run on any CPU: 1 or 0 forces the
// answer of etr_isa_slow_divide, -1 returns to the detected one. Not
// thread-safe.
void etr_isa_force_slow_divide(int slow);

// True on AMD CPUs, whose AVX-512 (Zen 4) runs a 16-entry single-source
// permute (vpermps) beside the FMAs while a 32-entry two-source one
// (vpermt2ps) holds a shared pipe for about a cycle: gelu's AVX-512
// kernels then take their 16-entry tables, a lookup and a multiply-add
// more a vector (unary/vmath.h's vf_gelu_rows). On Intel both
// permutes take the second FMA unit's port, and the 32-entry tables stay.
// ETREF_NARROW_LOOKUPS=1 or 0 overrides the detection. Detected once.
bool etr_isa_narrow_lookups(void);
// For tests, so that both tables run on any AVX-512 CPU: 1 or 0 forces
// the answer, -1 returns to the detected one. Not thread-safe.
void etr_isa_force_narrow_lookups(int narrow);

// True when the CPU has AVX512_BF16 (VCVTNE2PS2BF16) beside ETR_ISA_AVX512:
// the AVX-512 fp32 -> BFloat16 conversion then uses it
// (unary/convert_bf16_avx512.c). Detected once.
bool etr_isa_has_avx512_bf16(void);

// Bytes of memory (an elementwise kernel's inputs and out together) from
// which the kernel writes its out with streaming stores
// (common/stream.h): half the level-3 cache that CPUID describes, at most
// 64 MiB (isa.c), else 64 MiB. Detected once; then an inline read of
// etr_isa_stream_bytes_known, as every elementwise kernel call asks (a
// call into isa.c had cost 0.5 of the 3.3 ns of an add of 16 floats).
extern size_t etr_isa_stream_bytes_known;  // 0 until detected or forced
size_t etr_isa_stream_bytes_detect(void);
static inline size_t etr_isa_stream_bytes(void) {
  const size_t known = etr_isa_stream_bytes_known;
  return known != 0 ? known : etr_isa_stream_bytes_detect();
}
// For tests, so that both loops run on small arrays: a nonzero value
// forces the answer of etr_isa_stream_bytes, 0 returns to the detected
// one. Not thread-safe.
void etr_isa_force_stream_bytes(size_t bytes);

#ifdef __cplusplus
}
#endif

#endif  // ETR_OPS_OPTIMIZED_ISA_H
