// SPDX-License-Identifier: Apache-2.0
//
// Affine quantization: the microkernels (fp32 <-> int8 / uint8, one table
// per ISA) and the drivers of the optimized quantize_per_tensor,
// quantize_per_channel, dequantize_per_tensor and dequantize_per_channel
// kernels (quantized_decomposed::*).
//
// The arithmetic is the reference's to the bit (ops_reference/support/
// quantize.h):
//   quantize:   q = clamp(nearbyint(x * inverse_scale) + zero_point,
//                         low, high)
//               the product in float, rounded half to even, the zero point
//               added in float; NaN gives `low`; low > high gives `high`
//               for every value (max with low, then min with high: x86's
//               MAXPS returns its second operand for a NaN, NEON's FMAXNM
//               the number, so NaN lands on low as in the reference).
//   dequantize: x = (float)(q - zero_point) * scale
//               the difference exact in int32 (the drivers only take zero
//               points with |zp| <= 2^30, so it cannot overflow), converted
//               to float rounding to nearest, then one float product (no
//               FMA to contract: there is no add).
//
// Drivers: input and out dense with the same strides (any dim order, so
// channels-last too) are walked in memory order as [blocks, channels,
// inner] with `channels` the size of the channel axis and `inner` its
// stride; each run of `inner` elements shares one scale and zero point.
// Per-tensor is one channel. Anything else (other dtypes: Half, BFloat16,
// Double, Short, Int...; strided views; overlapping buffers; zero points
// outside the ranges above) is left to the caller's reference kernel: the
// drivers return false and write nothing. Kernels never read or write past
// n (masked tails or a stack buffer).
#ifndef ETR_OPS_OPTIMIZED_QUANT_QUANT_H
#define ETR_OPS_OPTIMIZED_QUANT_QUANT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/kernel.h"
#include "core/tensor.h"
#include "ops_optimized/common/check.h"
#include "ops_optimized/isa.h"
#include "ops_reference/support/quantize.h"

// The per-run constants of a quantize microkernel, all floats as the
// reference computes with them.
typedef struct etr_quantize_f32_params {
  float inverse_scale;  // 1.0f / (float)scale
  float zero_point;     // (float)zero_point
  float low;            // quant_min (exact: within the int8/uint8 range)
  float high;           // quant_max
} etr_quantize_f32_params_t;

typedef struct etr_quant_kernels {
  void (*quantize_s8)(size_t n, const float *x, int8_t *y,
                      const etr_quantize_f32_params_t *params);
  void (*quantize_u8)(size_t n, const float *x, uint8_t *y,
                      const etr_quantize_f32_params_t *params);
  void (*dequantize_s8)(size_t n, const int8_t *x, float *y,
                        int32_t zero_point, float scale);
  void (*dequantize_u8)(size_t n, const uint8_t *x, float *y,
                        int32_t zero_point, float scale);
} etr_quant_kernels_t;

extern const etr_quant_kernels_t etr_quant_kernels_scalar;
extern const etr_quant_kernels_t etr_quant_kernels_avx2;
extern const etr_quant_kernels_t etr_quant_kernels_avx512;
extern const etr_quant_kernels_t etr_quant_kernels_neon;

// The table for `isa` (the scalar one when this build has none for it).
const etr_quant_kernels_t *etr_quant_kernels_for(etr_isa_t isa);

// out = quantize(input) per `params` (per tensor or per channel) when the
// case is one the drivers specialize (see above): a Float input and a Char
// or Byte out. Returns false, writing nothing, otherwise. The arguments
// must have passed the reference kernel's checks (out resized).
bool etr_quant_run_quantize(const etr_tensor_t *input, etr_tensor_t *out,
                            const etr_quant_params_t *params,
                            int64_t quant_min, int64_t quant_max);

// out = dequantize(input) per `params`: a Char or Byte input and a Float
// out. Returns false, writing nothing, when not specialized.
bool etr_quant_run_dequantize(const etr_tensor_t *input, etr_tensor_t *out,
                              const etr_quant_params_t *params);

#endif  // ETR_OPS_OPTIMIZED_QUANT_QUANT_H
