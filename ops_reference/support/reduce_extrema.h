// SPDX-License-Identifier: Apache-2.0
//
// The maximum/minimum reductions shared by amax, amin, max.dim, min.dim,
// argmax and argmin: one pass over the reduced elements of every out
// position, with PyTorch's CPU ordering rules:
//   * NaN wins: once a NaN is seen it is the result, and its index is that
//     of the first NaN (the same for max and min);
//   * ties keep the first element in row-major order of the reduced dims
//     (so amax of [0.0, -0.0] is 0.0 and of [-0.0, 0.0] is -0.0);
//   * Bool and integers compare as int64 (the callers accept no
//     uint64, whose upper half would not).
// The winning element is copied bit for bit (values have self's dtype), so
// -0.0 and NaN payloads survive; its index counts the reduced positions in
// row-major order: the position along the dim for a single dim, the flat
// index for every dim (argmax with dim=None).
#ifndef ETR_OPS_REFERENCE_SUPPORT_REDUCE_EXTREMA_H
#define ETR_OPS_REFERENCE_SUPPORT_REDUCE_EXTREMA_H

#include <stdbool.h>
#include <stdint.h>

#include "core/kernel.h"
#include "core/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

// PyTorch refuses a max/min over nothing. InvalidArgument, naming
// `function` ("amax"), when a dim in `mask` has size 0 ("Expected
// reduction dim 0 to have non-zero size"), or when `self` is empty and
// no dim was named (`dims_named` false: "Expected reduction dim to be
// specified for input.numel() == 0").
etr_error_t etr_extremum_check_nonempty(etr_kernel_context_t *ctx,
                                        const char *function,
                                        const etr_tensor_t *self,
                                        uint32_t mask, bool dims_named);

// Reduces `self` over the dims in `mask` into `values` (self's dtype)
// and/or `indices` (Long); either may be NULL. Both already have the
// reduced shape (etr_reduction_shape with `keepdim`). `is_max` picks the
// maximum, else the minimum. Every reduced slice must be non-empty.
void etr_extremum_reduce(const etr_tensor_t *self, uint32_t mask,
                         bool keepdim, bool is_max, etr_tensor_t *values,
                         etr_tensor_t *indices);

#ifdef __cplusplus
}
#endif

#endif  // ETR_OPS_REFERENCE_SUPPORT_REDUCE_EXTREMA_H
