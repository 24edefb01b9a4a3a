// SPDX-License-Identifier: Apache-2.0
//
// Pieces shared by the data-movement kernels (fill, scalar_tensor,
// constant_pad_nd, scatter.value, the index-taking ops): PyTorch's checked
// conversion of a Scalar into a tensor dtype, storing such a Scalar, filling
// a strided tensor with one value, and reading Long/Int index tensors.
//
// The checked conversion is c10's `overflows<To, From>` as Tensor.fill_
// applies it (verified against PyTorch 2.13 by gen_movement_cases.py),
// which is the shared etr_check_scalar_fits (support/dtype.h):
//   * Bool targets accept anything ("!= 0");
//   * an Int scalar fits an integral dtype when it lies in its range, or,
//     for unsigned dtypes, down to -max (c10 lets negatives wrap: -1 into
//     uint8 is 255, -256 is refused); it fits Half within +-65504 and every
//     other floating or complex dtype always;
//   * a Double scalar fits an integral dtype when it is not NaN and lies in
//     [lowest, max] of the dtype compared as doubles (so -0.5 does not fit
//     uint8, 127.9 does not fit int8, and inf fits none); it fits a
//     floating or complex dtype when it is +-inf, NaN or within the largest
//     finite value (65519 does not fit Half even though it would round to
//     65504);
//   * exception: filling a tensor of exactly one Half or BFloat16 element
//     goes through ATen's scalar fast path, which does not check (1e40 into
//     a one-element Half tensor is inf). scalar_tensor always takes it,
//     and so does full.out (ATen's full is empty + fill_).
#ifndef ETR_OPS_REFERENCE_SUPPORT_MOVEMENT_UTIL_H
#define ETR_OPS_REFERENCE_SUPPORT_MOVEMENT_UTIL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/kernel.h"
#include "core/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

// InvalidArgument ("<op>: <what> cannot be converted to type Char without
// overflow") unless `scalar` converts into `dtype` by the rules above;
// `numel` is the number of elements the fill writes (1 selects the
// unchecked Half/BFloat16 path).
etr_error_t etr_movement_check_fill_value(etr_kernel_context_t *ctx,
                                          const char *what,
                                          const etr_scalar_t *scalar,
                                          etr_scalar_type_t dtype,
                                          int64_t numel);

// Writes `scalar` converted to `dtype` as c10::convert does (floating
// values truncate toward zero into integral dtypes; Int values wrap into
// narrower integral dtypes; Half/BFloat16 go through float).
void etr_movement_store_scalar(etr_scalar_type_t dtype, void *element,
                               const etr_scalar_t *scalar);

// Copies the element at `element` (of tensor->dtype) to every element of
// `tensor`, honouring its strides.
void etr_movement_fill(etr_tensor_t *tensor, const void *element);

// InvalidArgument unless `tensor` is a Long or Int tensor: "<op>: <what>
// must be an int64 or int32 tensor, not Float".
etr_error_t etr_movement_check_index_dtype(etr_kernel_context_t *ctx,
                                           const char *what,
                                           const etr_tensor_t *tensor);

// The Long or Int element `offset` elements into `tensor`.
int64_t etr_movement_load_index(const etr_tensor_t *tensor, int64_t offset);

// Sizes as a rank and a copy, checked for an out tensor: every entry
// non-negative and at most ETR_MAX_DIMS of them (InvalidArgument, naming
// `what`, otherwise).
etr_error_t etr_movement_check_sizes(etr_kernel_context_t *ctx,
                                     const char *what, const int64_t *sizes,
                                     size_t length);

#ifdef __cplusplus
}
#endif

#endif  // ETR_OPS_REFERENCE_SUPPORT_MOVEMENT_UTIL_H
