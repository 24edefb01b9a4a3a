// SPDX-License-Identifier: Apache-2.0
//
// fp32 <-> Half/BFloat16 conversions in portable C (core's scalar
// conversions, the definition the SIMD files match bit for bit), their
// per-ISA selection, and the dtype-dispatching helpers the optimized
// kernels use to compute Half and BFloat16 in fp32.
#include <string.h>

#include "core/scalar_type.h"
#include "ops_optimized/reduce/reduce.h"

static void f16_to_f32_scalar(size_t n, const uint16_t *x, float *y) {
  for (size_t i = 0; i < n; ++i) {
    y[i] = etr_half_to_float(x[i]);
  }
}

static void bf16_to_f32_scalar(size_t n, const uint16_t *x, float *y) {
  for (size_t i = 0; i < n; ++i) {
    y[i] = etr_bfloat16_to_float(x[i]);
  }
}

static void f32_to_f16_scalar(size_t n, const float *x, uint16_t *y) {
  for (size_t i = 0; i < n; ++i) {
    y[i] = etr_float_to_half(x[i]);
  }
}

static void f32_to_bf16_scalar(size_t n, const float *x, uint16_t *y) {
  for (size_t i = 0; i < n; ++i) {
    y[i] = etr_float_to_bfloat16(x[i]);
  }
}

const etr_convert_kernels_t etr_convert_kernels_scalar = {
    .f16_to_f32 = f16_to_f32_scalar,
    .bf16_to_f32 = bf16_to_f32_scalar,
    .f32_to_f16 = f32_to_f16_scalar,
    .f32_to_bf16 = f32_to_bf16_scalar,
};

const etr_convert_kernels_t *etr_convert_kernels_for(etr_isa_t isa) {
  switch (isa) {
#if defined(__x86_64__)
    case ETR_ISA_AVX512:
      return &etr_convert_kernels_avx512;
    case ETR_ISA_AVX2:
      return &etr_convert_kernels_avx2;
#endif
#if defined(__aarch64__)
    case ETR_ISA_NEON:
      return &etr_convert_kernels_neon;
#endif
    default:
      return &etr_convert_kernels_scalar;
  }
}

void etr_convert_to_f32(etr_scalar_type_t dtype, size_t n, const void *x,
                        float *y) {
  const etr_convert_kernels_t *k = etr_convert_kernels_for(etr_isa_active());
  switch (dtype) {
    case ETR_HALF:
      k->f16_to_f32(n, (const uint16_t *)x, y);
      return;
    case ETR_BFLOAT16:
      k->bf16_to_f32(n, (const uint16_t *)x, y);
      return;
    default:
      if (n > 0 && (const void *)y != x) {
        memcpy(y, x, n * sizeof(float));
      }
      return;
  }
}

void etr_convert_from_f32(etr_scalar_type_t dtype, size_t n, const float *x,
                          void *y) {
  const etr_convert_kernels_t *k = etr_convert_kernels_for(etr_isa_active());
  switch (dtype) {
    case ETR_HALF:
      k->f32_to_f16(n, x, (uint16_t *)y);
      return;
    case ETR_BFLOAT16:
      k->f32_to_bf16(n, x, (uint16_t *)y);
      return;
    default:
      if (n > 0 && (const void *)x != y) {
        memcpy(y, x, n * sizeof(float));
      }
      return;
  }
}

enum { kStageFloats = 64 * 1024 };  // fp32 in + out a chunk: 256 KiB

bool etr_stage_through_f32(etr_arena_t *temp, etr_scalar_type_t dtype,
                           size_t units, size_t in_unit, size_t out_unit,
                           const void *x, void *y, etr_stage_fn_t fn,
                           void *state) {
  if (temp == NULL || units == 0) {
    return temp != NULL;
  }
  size_t chunk = kStageFloats / (in_unit + out_unit);
  chunk = chunk < 1 ? 1 : chunk < units ? chunk : units;
  const etr_arena_mark_t mark = etr_arena_mark(temp);
  float *in = (float *)etr_arena_alloc(temp, chunk * in_unit * sizeof(float),
                                       64);
  float *out = in == NULL ? NULL
                          : (float *)etr_arena_alloc(
                                temp, chunk * out_unit * sizeof(float), 64);
  bool done = out != NULL;
  size_t element = etr_scalar_type_size(dtype);
  for (size_t first = 0; done && first < units; first += chunk) {
    size_t count = units - first < chunk ? units - first : chunk;
    etr_convert_to_f32(dtype, count * in_unit,
                       (const char *)x + first * in_unit * element, in);
    done = fn(state, first, count, in, out);
    if (done) {
      etr_convert_from_f32(dtype, count * out_unit, out,
                           (char *)y + first * out_unit * element);
    }
  }
  etr_arena_rewind(temp, mark);
  return done;
}
