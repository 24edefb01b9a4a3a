// SPDX-License-Identifier: Apache-2.0
//
// Shared pieces of the FFT kernels (_fft_r2c, _fft_c2r): the `int[] dim`
// argument, ATen's normalization enum and the exact phase of a DFT term.
//
// The reference transforms are plain DFTs, O(n^2) per transformed signal,
// accumulated in double: each term's phase k * t / n is reduced modulo n
// in 128-bit integers before the one floating division, so a term's angle
// is exact to double rounding whatever the length.
//
// normalization is fft_norm_mode: 0 none, 1 by 1/sqrt(n), 2 by 1/n, with n
// the product of the signal sizes over the transformed dims. Other values
// are InvalidArgument (PyTorch's MKL build treats them as 2, its
// pocketfft build fails an internal assert).
#ifndef ETR_OPS_REFERENCE_SUPPORT_NN_FFT_H
#define ETR_OPS_REFERENCE_SUPPORT_NN_FFT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/kernel.h"
#include "core/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

// 2 pi (M_PI is not in C11).
#define ETR_NN_TWO_PI 6.283185307179586476925286766559

typedef struct etr_nn_fft_dims {
  int32_t count;
  int32_t dims[ETR_MAX_DIMS];  // in the argument's order
} etr_nn_fft_dims_t;

// Reads `int[] dim` for `self`: non-empty, every dim in [0, rank) (ATen's
// kernels take dims already wrapped: a negative one is InvalidArgument, as
// PyTorch fails on it), none twice (torch.fft never passes a repeated dim;
// the aten op given [1, 1] returns the [0, 1] transform); and requires
// every size of self to be positive (PyTorch's MKL build fails on empty
// inputs).
etr_error_t etr_nn_fft_read_dims(etr_kernel_context_t *ctx,
                                 etr_evalue_t **args, size_t num_args,
                                 size_t index, const etr_tensor_t *self,
                                 etr_nn_fft_dims_t *out);

// The factor of normalization mode `mode` for a signal of `n` elements.
etr_error_t etr_nn_fft_scale(etr_kernel_context_t *ctx, int64_t mode,
                             int64_t n, double *scale_out);

// (k * t mod n) / n, in [0, 1), for 0 <= k, t and n > 0.
double etr_nn_fft_phase(int64_t k, int64_t t, int64_t n);

#ifdef __cplusplus
}
#endif

#endif  // ETR_OPS_REFERENCE_SUPPORT_NN_FFT_H
