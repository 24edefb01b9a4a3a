// SPDX-License-Identifier: Apache-2.0
//
// Fast Fourier transforms for the optimized _fft_r2c and _fft_c2r kernels:
// an iterative radix-2 Cooley-Tukey transform in double, O(n log n) per
// signal where the reference evaluates the DFT directly in O(n^2). One
// transformed dim of power-of-two length; each signal is gathered into
// scratch (any strides), transformed, scaled and written back rounded
// once. The butterflies sum in another order than the direct DFT, so
// results differ from the reference's by the double rounding of
// O(log n) steps (relative 2^-50 or so of the signal's magnitude), far
// below the fp32 rounding of the result; the tests state the bound.
// Signals holding an infinity or NaN are left to the reference (which
// outputs then turn NaN depends on the summation order). Scratch: 24 n
// bytes of ctx->temp.
#ifndef ETR_OPS_OPTIMIZED_FFT_FFT_H
#define ETR_OPS_OPTIMIZED_FFT_FFT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/kernel.h"
#include "core/tensor.h"

// r2c of Float self along `dim` (n = self.sizes[dim], a power of two) into
// ComplexFloat out (n/2 + 1 or n entries along dim), times `scale`.
bool etr_fft_r2c_run(etr_kernel_context_t *ctx, const etr_tensor_t *self,
                     int32_t dim, double scale, bool onesided,
                     etr_tensor_t *out);
// c2r of ComplexFloat self along `dim` into Float out with n =
// out.sizes[dim] (a power of two) entries: the Hermitian extension of the
// first n/2 + 1 inputs (the imaginary parts of entry 0 and n/2 ignored),
// inverse transformed, real part times `scale`.
bool etr_fft_c2r_run(etr_kernel_context_t *ctx, const etr_tensor_t *self,
                     int32_t dim, double scale, etr_tensor_t *out);

#endif  // ETR_OPS_OPTIMIZED_FFT_FFT_H
