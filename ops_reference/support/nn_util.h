// SPDX-License-Identifier: Apache-2.0
//
// Small helpers shared by the "nn" family of reference kernels (pooling,
// normalization, convolution backward, sampling, FFT): int-list arguments
// of one or N values, the out tensors of backward ops selected by an
// output_mask, N-d batched views, and ATen's float op-math for coordinate
// arithmetic.
//
// Backward ops (convolution_backward, native_layer_norm_backward,
// native_group_norm_backward) take `bool[3] output_mask`; PyTorch returns
// an undefined tensor where the mask is false. An ExecuTorch program still
// passes a Tensor EValue there (to_executorch() emits a placeholder of
// dtype Byte, sizes [0] and no memory, verified with executorch 1.4.1),
// and a hand-built call may pass None: etr_nn_arg_grad_out accepts both for
// a masked-out slot and never checks, resizes or touches it.
#ifndef ETR_OPS_REFERENCE_SUPPORT_NN_UTIL_H
#define ETR_OPS_REFERENCE_SUPPORT_NN_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/kernel.h"
#include "core/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ETR_NN_MAX_SPATIAL 3

// Reads an `int[count]` argument into out[0..count-1]. A list of one value
// is repeated when `allow_single`; an empty list gives `fallback` (count
// values) when it is not NULL. InvalidArgument for any other length
// ("<op>: <what> must be a single int or a list of <count> ints").
etr_error_t etr_nn_read_ints(etr_kernel_context_t *ctx, etr_evalue_t **args,
                             size_t num_args, size_t index, const char *what,
                             int32_t count, bool allow_single,
                             const int64_t *fallback, int64_t *out);

// Reads a `bool[3] output_mask` argument (InvalidArgument unless it has
// exactly three entries).
etr_error_t etr_nn_read_output_mask(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args,
                                    size_t index, bool mask_out[3]);

// The out tensor of a backward op's output `index`: a Tensor when
// `wanted` (InvalidType otherwise); when not wanted a Tensor or None is
// accepted and *out is set to NULL (see the file comment).
etr_error_t etr_nn_arg_grad_out(etr_kernel_context_t *ctx,
                                etr_evalue_t **args, size_t num_args,
                                size_t index, const char *what, bool wanted,
                                etr_tensor_t **out);

// A view of `tensor` with `batched_rank` dims: a tensor of rank
// batched_rank - 1 gets a leading batch dim of size 1 (stride 0), one of
// rank batched_rank is viewed as is.
void etr_nn_batched_view(const etr_tensor_t *tensor, int32_t batched_rank,
                         etr_tensor_t *view);

// InvalidArgument unless `tensor` has exactly the sizes (dim, sizes):
// "<op>: <what> has shape [..] but [..] is expected".
etr_error_t etr_nn_check_shape(etr_kernel_context_t *ctx, const char *what,
                               const etr_tensor_t *tensor, int32_t dim,
                               const int64_t *sizes);

// True when `tensor` is dense in the memory format PyTorch would suggest
// for it: row-major contiguous, or channels-last (rank 4: N, H, W, C
// outermost first; rank 5: N, D, H, W, C). Strides of size-1 dims are
// ignored, as in c10's is_contiguous. Kernels whose ATen implementation
// fails on other layouts (TORCH_CHECK(X.is_contiguous(memory_format)))
// reject them with this.
bool etr_nn_is_dense_suggested(const etr_tensor_t *tensor);

// Element offset (through strides) of the element at row-major logical
// position `flat` (0 <= flat < numel) of `tensor`.
int64_t etr_nn_offset_of(const etr_tensor_t *tensor, int64_t flat);

// `x` rounded to float when `single` (and returned unchanged otherwise).
// Applied after every operation it reproduces float arithmetic exactly
// (double holds more than 2 * 24 + 2 bits, so rounding twice is harmless
// for + - * / and sqrt): the kernels use it where ATen computes a
// coordinate or an index in float op-math and a discrete choice depends on
// the last bit (nearest-neighbour indices, window starts).
static inline double etr_nn_opmath(bool single, double x) {
  return single ? (double)(float)x : x;
}

// Floor division for b > 0 (no overflow for any a).
static inline int64_t etr_nn_floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

// Truncating integer division as C++ computes it, with INT64_MIN / -1
// wrapping (to INT64_MIN) instead of trapping, and 0 for b == 0.
static inline int64_t etr_nn_trunc_div(int64_t a, int64_t b) {
  if (b == 0) {
    return 0;
  }
  if (b == -1) {
    return (int64_t)(0 - (uint64_t)a);
  }
  return a / b;
}

#ifdef __cplusplus
}
#endif

#endif  // ETR_OPS_REFERENCE_SUPPORT_NN_UTIL_H
