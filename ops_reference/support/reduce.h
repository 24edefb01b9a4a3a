// SPDX-License-Identifier: Apache-2.0
//
// Shapes and views for reductions over a set of dims (sum, mean, any,
// softmax's max/sum, layer norm's mean/rstd).
//
// A reduction kernel works on the input's shape throughout: the reduced
// out tensor is seen through a view with the input's shape whose reduced
// dims have stride 0 (etr_reduction_out_view), so the input, the reduced
// out and any same-shaped out share one etr_dim_split_t with the reduced
// dims as its inner dims.
#ifndef ETR_OPS_REFERENCE_SUPPORT_REDUCE_H
#define ETR_OPS_REFERENCE_SUPPORT_REDUCE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/kernel.h"
#include "core/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

// Shape of reducing `input` over the dims in `mask`: reduced dims become 1
// when `keepdim`, else disappear.
void etr_reduction_shape(const etr_tensor_t *input, uint32_t mask,
                         bool keepdim, int32_t *dim_out, int64_t *sizes_out);

// Reads the optional `int[1]? dim` and `bool keepdim` arguments of a
// reduction, computes the reduced-dim mask and resizes `out` to the reduced
// shape. InvalidArgument for bad dims or an out that is too small.
etr_error_t etr_reduction_prepare(etr_kernel_context_t *ctx,
                                  const etr_tensor_t *input,
                                  const int64_t *dims, size_t num_dims,
                                  bool dims_present, bool keepdim,
                                  etr_tensor_t *out, uint32_t *mask_out);

// A view of `out` (already of the reduced shape) with the input's shape:
// kept dims take out's strides, reduced dims stride 0.
void etr_reduction_out_view(const etr_tensor_t *input, uint32_t mask,
                            bool keepdim, const etr_tensor_t *out,
                            etr_tensor_t *view);

#ifdef __cplusplus
}
#endif

#endif  // ETR_OPS_REFERENCE_SUPPORT_REDUCE_H
