// SPDX-License-Identifier: Apache-2.0
//
// Contiguous fp32 unary microkernels, one file per ISA. Each maps n floats
// from x to y (which may be the same array); no reads or writes past n
// (tails use masked loads/stores or a scalar loop).
#ifndef ETR_OPS_OPTIMIZED_UNARY_UNARY_H
#define ETR_OPS_OPTIMIZED_UNARY_UNARY_H

#include <stddef.h>

#include "ops_optimized/isa.h"

typedef void (*etr_f32_unary_fn)(size_t n, const float *x, float *y);

// relu: x < 0 ? 0 : x, so NaN and -0.0 pass through as in PyTorch.
void etr_f32_relu_scalar(size_t n, const float *x, float *y);
void etr_f32_relu_avx2(size_t n, const float *x, float *y);
void etr_f32_relu_avx512(size_t n, const float *x, float *y);
void etr_f32_relu_neon(size_t n, const float *x, float *y);

// The relu microkernel for `isa`.
etr_f32_unary_fn etr_f32_relu_for(etr_isa_t isa);

#endif  // ETR_OPS_OPTIMIZED_UNARY_UNARY_H
