// SPDX-License-Identifier: Apache-2.0
//
// The gather/scatter family (gather, scatter.src/.value, scatter_add,
// scatter_reduce): PyTorch's shape checks and one reference loop for every
// scatter-like reduction.
//
// Shapes follow ATen's ScatterGatherChecks.h, with a 0-dim tensor counting
// as rank 1 of size 1 ("ensure_nonempty"): index must have self's rank;
// index.size(d) <= self.size(d) for every d != dim; for scatter with a src
// tensor, index.size(d) <= src.size(d) for every d and src has self's rank.
// Index values must lie in [0, self.size(dim)) (negative values do not
// wrap; InvalidArgument otherwise); index tensors are int64 or int32 (as
// PyTorch 2.13 accepts), unless empty.
//
// The scatter loop visits every element t of the result and, when t lies
// inside index's extent on the non-scattered dims, walks index along `dim`
// in increasing order, taking src (or the value) wherever index equals
// t[dim]: that is the order in which ATen's CPU kernel applies updates to
// one element, so the last write wins for plain scatter and sums round in
// PyTorch's order. Reductions run in ATen's op-math type: float for Half,
// BFloat16 and Float (each step rounded to float, one final rounding for
// Half/BFloat16, as ATen's float accumulation buffer), double for Double,
// the same per part for complex, and int64 wrapping to the dtype's width
// for integers; Bool adds as "or" and multiplies as "and".
#ifndef ETR_OPS_REFERENCE_SUPPORT_MOVEMENT_SCATTER_H
#define ETR_OPS_REFERENCE_SUPPORT_MOVEMENT_SCATTER_H

#include <stdbool.h>
#include <stdint.h>

#include "core/kernel.h"
#include "core/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum etr_movement_reduce {
  ETR_MOVEMENT_ASSIGN = 0,  // scatter: the last matching src wins
  ETR_MOVEMENT_SUM = 1,
  ETR_MOVEMENT_PROD = 2,
  ETR_MOVEMENT_MEAN = 3,    // sum / count, count including self if asked
  ETR_MOVEMENT_AMAX = 4,    // NaN propagates
  ETR_MOVEMENT_AMIN = 5,
} etr_movement_reduce_t;

// `tensor` seen with rank >= 1: a 0-dim tensor becomes [1] with stride 0.
void etr_movement_nonempty_view(const etr_tensor_t *tensor,
                                etr_tensor_t *view);

// gather's checks (index dtype, rank, sizes); InvalidArgument naming the
// op. `dim` is already wrapped. As in ATen, nothing about index is checked
// when it has no elements (an empty Float index is fine).
etr_error_t etr_movement_check_gather(etr_kernel_context_t *ctx,
                                      const etr_tensor_t *self, int32_t dim,
                                      const etr_tensor_t *index);

// scatter's checks; `src` may be NULL (scatter.value). src must have
// self's dtype; as in ATen, index's dtype and the shapes are not checked
// when index has no elements.
etr_error_t etr_movement_check_scatter(etr_kernel_context_t *ctx,
                                       const etr_tensor_t *self, int32_t dim,
                                       const etr_tensor_t *index,
                                       const etr_tensor_t *src);

// InvalidArgument unless every index value lies in [0, size): "<op>: index
// 5 is out of bounds for dimension 1 with size 3".
etr_error_t etr_movement_check_index_bounds(etr_kernel_context_t *ctx,
                                            const etr_tensor_t *index,
                                            int32_t dim, int64_t size);

// out = self with index/src (or `value`, one element of out's dtype when
// src is NULL) scattered along `dim` by `reduce`. Shapes, dtypes and
// index bounds must have been checked; out has self's shape and dtype.
void etr_movement_scatter(const etr_tensor_t *self, int32_t dim,
                          const etr_tensor_t *index, const etr_tensor_t *src,
                          const void *value, etr_movement_reduce_t reduce,
                          bool include_self, etr_tensor_t *out);

#ifdef __cplusplus
}
#endif

#endif  // ETR_OPS_REFERENCE_SUPPORT_MOVEMENT_SCATTER_H
