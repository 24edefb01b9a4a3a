// SPDX-License-Identifier: Apache-2.0
//
// Three-input elementwise microkernels (where, clamp with tensor bounds),
// one file per ISA, and their drivers for the op files.
//
// Microkernels take runs where each input is a vector (inc 1) or one
// value (inc 0); an input with inc 0 points at ETR_TERNARY_SPLAT copies of
// its value (so a vector load of it is a broadcast). Written once in
// ternary_kernels.h over ../unary/simd_<isa>.h, instantiated by
// ternary_<isa>.c. Nothing past n is read or written; y may alias x, a or
// b.
#ifndef ETR_OPS_OPTIMIZED_TERNARY_TERNARY_H
#define ETR_OPS_OPTIMIZED_TERNARY_TERNARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/kernel.h"
#include "ops_optimized/isa.h"

// Copies of a broadcast input's value a microkernel may load at once (the
// widest vector: 16 lanes).
#define ETR_TERNARY_SPLAT 16

typedef struct etr_ternary_kernels {
  // y[i] = c[i] != 0 ? a[i] : b[i] for 32-bit elements, copied bit for
  // bit (any 4-byte dtype).
  void (*where32)(size_t n, const uint8_t *c, size_t c_inc, const float *a,
                  size_t a_inc, const float *b, size_t b_inc, float *y);
  // clamp.Tensor's rule on floats: y = x, then low if low is NaN or x <
  // low (x not NaN), then high if high is NaN or x > high; a missing
  // bound is -inf / +inf.
  void (*clamp)(size_t n, const float *x, size_t x_inc, const float *low,
                size_t low_inc, const float *high, size_t high_inc,
                float *y);
} etr_ternary_kernels_t;

extern const etr_ternary_kernels_t etr_ternary_scalar;
extern const etr_ternary_kernels_t etr_ternary_avx2;
extern const etr_ternary_kernels_t etr_ternary_avx512;
extern const etr_ternary_kernels_t etr_ternary_neon;

const etr_ternary_kernels_t *etr_ternary_for(etr_isa_t isa);

// aten::where.self_out and aten::clamp.Tensor_out (ternary_driver.c) on
// the cases they specialize; *handled is false for the others (nothing
// touched but possibly out's shape): the caller then runs the reference.
etr_error_t etr_where_execute(etr_kernel_context_t *ctx, etr_evalue_t **args,
                              size_t num_args, bool *handled);
etr_error_t etr_clamp_tensor_execute(etr_kernel_context_t *ctx,
                                     etr_evalue_t **args, size_t num_args,
                                     bool *handled);

#endif  // ETR_OPS_OPTIMIZED_TERNARY_TERNARY_H
