// SPDX-License-Identifier: Apache-2.0
//
// Float <-> int64 / int32 conversions in portable C (the reference's
// functions, which the SIMD files match bit for bit) and the per-ISA
// selection of the tables.
#include "ops_optimized/cast/cast.h"
#include "ops_reference/support/element.h"

int32_t etr_cast_f32_to_i32_one(float value) {
  return (int32_t)(uint32_t)(uint64_t)etr_double_to_int64((double)value);
}

static void i64_to_f32_scalar(size_t n, const int64_t *x, float *y) {
  for (size_t i = 0; i < n; ++i) {
    y[i] = (float)x[i];
  }
}

static void i32_to_f32_scalar(size_t n, const int32_t *x, float *y) {
  for (size_t i = 0; i < n; ++i) {
    y[i] = (float)x[i];
  }
}

static void f32_to_i64_scalar(size_t n, const float *x, int64_t *y) {
  for (size_t i = 0; i < n; ++i) {
    y[i] = etr_double_to_int64((double)x[i]);
  }
}

static void f32_to_i32_scalar(size_t n, const float *x, int32_t *y) {
  for (size_t i = 0; i < n; ++i) {
    y[i] = etr_cast_f32_to_i32_one(x[i]);
  }
}

const etr_cast_kernels_t etr_cast_kernels_scalar = {
    i64_to_f32_scalar, i32_to_f32_scalar, f32_to_i64_scalar,
    f32_to_i32_scalar};

const etr_cast_kernels_t *etr_cast_kernels_for(etr_isa_t isa) {
  switch (isa) {
#if defined(__x86_64__)
    case ETR_ISA_AVX512:
      return &etr_cast_kernels_avx512;
    case ETR_ISA_AVX2:
      return &etr_cast_kernels_avx2;
#endif
#if defined(__aarch64__)
    case ETR_ISA_NEON:
      return &etr_cast_kernels_neon;
#endif
    default:
      return &etr_cast_kernels_scalar;
  }
}
