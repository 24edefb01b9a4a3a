// SPDX-License-Identifier: Apache-2.0
//
// Dtype conversions to and from Float for the optimized _to_copy and
// _to_dim_order_copy kernels: microkernels per ISA for the integer pairs,
// the existing Half/BFloat16 kernels (unary/unary.h) for those, and a
// driver that takes dense tensors with the same strides.
//
// Every conversion is the reference's (ops_reference/support/element.c's
// etr_convert_element) bit for bit:
//   int64 -> float   (float)x, round to nearest even (AVX-512DQ VCVTQQ2PS
//                    rounds once; NEON goes through double only for lanes
//                    within 2^53, where that is exact; others are C);
//   int32 -> float   (float)x (CVTDQ2PS / SCVTF round to nearest);
//   float -> int64   etr_double_to_int64: truncation, INT64_MIN for NaN
//                    and anything outside [-2^63, 2^63) (VCVTTPS2QQ's own
//                    "integer indefinite");
//   float -> int32   that int64 wrapped to 32 bits (VCVTTPS2QQ then
//                    VPMOVQD; AVX2 and NEON truncate directly where every
//                    lane is inside (-2^31, 2^31) and use C otherwise);
//   bool <-> float   x != 0 (NaN is true), 0 / 1;
//   half / bfloat16 <-> float   core/scalar_type.h's conversions.
// Kernels never read or write past n.
#ifndef ETR_OPS_OPTIMIZED_CAST_CAST_H
#define ETR_OPS_OPTIMIZED_CAST_CAST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/tensor.h"
#include "ops_optimized/isa.h"

typedef struct etr_cast_kernels {
  void (*i64_to_f32)(size_t n, const int64_t *x, float *y);
  void (*i32_to_f32)(size_t n, const int32_t *x, float *y);
  void (*f32_to_i64)(size_t n, const float *x, int64_t *y);
  void (*f32_to_i32)(size_t n, const float *x, int32_t *y);
} etr_cast_kernels_t;

extern const etr_cast_kernels_t etr_cast_kernels_scalar;
extern const etr_cast_kernels_t etr_cast_kernels_avx2;
extern const etr_cast_kernels_t etr_cast_kernels_avx512;
extern const etr_cast_kernels_t etr_cast_kernels_neon;

// The table for `isa` (the scalar one when this build has none for it).
const etr_cast_kernels_t *etr_cast_kernels_for(etr_isa_t isa);

// One float -> int32 conversion as the reference does it (see above), for
// the lanes the SIMD kernels leave to C.
int32_t etr_cast_f32_to_i32_one(float value);

// out = self converted, when self and out are dense with the same strides
// (any dim order), do not overlap, and the pair is Float <-> Long, Int,
// Bool, Half or BFloat16. Returns false, writing nothing, otherwise. The
// arguments must have passed the reference kernel's checks (out resized).
bool etr_cast_run(const etr_tensor_t *self, etr_tensor_t *out);

#endif  // ETR_OPS_OPTIMIZED_CAST_CAST_H
