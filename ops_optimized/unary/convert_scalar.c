// SPDX-License-Identifier: Apache-2.0
//
// fp32 <-> Half/BFloat16 conversions in portable C (core/scalar_type.h's
// functions, which the other ISAs match bit for bit), and the per-ISA
// selection of the conversion kernels.
#include "core/scalar_type.h"
#include "ops_optimized/unary/unary.h"

static void from_f16_scalar(size_t n, const uint16_t *x, float *y) {
  for (size_t i = 0; i < n; ++i) {
    y[i] = etr_half_to_float(x[i]);
  }
}

static void from_bf16_scalar(size_t n, const uint16_t *x, float *y) {
  for (size_t i = 0; i < n; ++i) {
    y[i] = etr_bfloat16_to_float(x[i]);
  }
}

static void to_f16_scalar(size_t n, const float *x, uint16_t *y) {
  for (size_t i = 0; i < n; ++i) {
    y[i] = etr_float_to_half(x[i]);
  }
}

static void to_bf16_scalar(size_t n, const float *x, uint16_t *y) {
  for (size_t i = 0; i < n; ++i) {
    y[i] = etr_float_to_bfloat16(x[i]);
  }
}

const etr_f32_convert_kernels_t etr_f32_convert_scalar = {
    from_f16_scalar, from_bf16_scalar, to_f16_scalar, to_bf16_scalar};

const etr_f32_convert_kernels_t *etr_f32_convert_for(etr_isa_t isa) {
  switch (isa) {
#if defined(__x86_64__)
    case ETR_ISA_AVX512:
      return etr_isa_has_avx512_bf16() ? &etr_f32_convert_avx512_bf16
                                       : &etr_f32_convert_avx512;
    case ETR_ISA_AVX2:
      return &etr_f32_convert_avx2;
#endif
#if defined(__aarch64__)
    case ETR_ISA_NEON:
      return &etr_f32_convert_neon;
#endif
    default:
      return &etr_f32_convert_scalar;
  }
}
