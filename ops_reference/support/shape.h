// SPDX-License-Identifier: Apache-2.0
//
// Shape rules shared by the kernels: dim normalization (negative dims and
// PyTorch's range errors), dim lists for reductions, broadcasting of shapes,
// strided views (a tensor struct describing another tensor's memory with
// other sizes and strides), and resizing out tensors.
//
// A view is an etr_tensor_t that borrows another tensor's data: permute,
// slice, select and broadcast are expressed as views so the kernels behind
// them are a single strided copy. Views have capacity_bytes 0 and must not
// be resized.
#ifndef ETR_OPS_REFERENCE_SUPPORT_SHAPE_H
#define ETR_OPS_REFERENCE_SUPPORT_SHAPE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/kernel.h"
#include "core/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

// int64 arithmetic on values from a program (strides, paddings, sizes),
// which may be absurd: false instead of undefined behaviour on overflow.
static inline bool etr_checked_add(int64_t a, int64_t b, int64_t *out) {
  return !__builtin_add_overflow(a, b, out);
}
static inline bool etr_checked_mul(int64_t a, int64_t b, int64_t *out) {
  return !__builtin_mul_overflow(a, b, out);
}
// a * b clamped to INT64_MAX (for element counts of shapes that may hold a
// 0 after huge sizes: the product is then never used to address memory).
static inline int64_t etr_saturating_mul(int64_t a, int64_t b) {
  int64_t product = 0;
  return __builtin_mul_overflow(a, b, &product) ? INT64_MAX : product;
}

// Number of elements, 0 as soon as a size is 0 (core's etr_tensor_numel
// multiplies left to right, which can overflow on [2^40, 2^40, 0]).
int64_t etr_numel(const etr_tensor_t *tensor);

// Wraps `dim` (which may be negative) into 0..rank-1. A 0-dim tensor
// accepts -1 and 0 (PyTorch treats it as rank 1 here). InvalidArgument
// otherwise: "<op>: dim 3 is out of range for a tensor of rank 2".
etr_error_t etr_normalize_dim(etr_kernel_context_t *ctx, int64_t dim,
                              int32_t rank, int32_t *out);

// Same, for an insertion position (unsqueeze): range is rank + 1.
etr_error_t etr_normalize_insert_dim(etr_kernel_context_t *ctx, int64_t dim,
                                     int32_t rank, int32_t *out);

// The dims of a reduction as a bit mask over 0..rank-1. An absent or empty
// list means every dim. InvalidArgument for a dim out of range or a dim
// named twice.
etr_error_t etr_dim_list_mask(etr_kernel_context_t *ctx, const int64_t *dims,
                              size_t num_dims, bool present, int32_t rank,
                              uint32_t *mask_out);

// The PyTorch broadcast of two shapes (aligned at the innermost dim, sizes
// equal or 1). InvalidArgument when they do not broadcast.
etr_error_t etr_broadcast_shapes(etr_kernel_context_t *ctx, int32_t dim_a,
                                 const int64_t *sizes_a, int32_t dim_b,
                                 const int64_t *sizes_b, int32_t *dim_out,
                                 int64_t *sizes_out);

// Broadcast of several tensors' shapes (count >= 1).
etr_error_t etr_broadcast_tensors_shape(etr_kernel_context_t *ctx,
                                        const etr_tensor_t *const *tensors,
                                        size_t count, int32_t *dim_out,
                                        int64_t *sizes_out);

// True when `tensor` broadcasts to exactly (dim, sizes).
bool etr_can_broadcast_to(const etr_tensor_t *tensor, int32_t dim,
                          const int64_t *sizes);

// A view of `tensor` with shape (dim, sizes): the tensor's strides aligned
// at the innermost dim, 0 for broadcast dims. Requires
// etr_can_broadcast_to (InvalidArgument otherwise).
etr_error_t etr_broadcast_view(etr_kernel_context_t *ctx,
                               const etr_tensor_t *tensor, int32_t dim,
                               const int64_t *sizes, etr_tensor_t *view);

// A view of `tensor` whose data starts `offset` elements in, with the given
// shape and strides (dim_order derived from the strides).
void etr_make_view(const etr_tensor_t *tensor, int64_t offset, int32_t dim,
                   const int64_t *sizes, const int64_t *strides,
                   etr_tensor_t *view);

// PyTorch's slice bounds on a dim of `size`: a missing start is 0, a
// missing end is the size; negative values count from the end; both are
// clamped into [0, size] and an end before the start gives length 0.
// InvalidArgument unless step > 0. Writes the first index and the number
// of selected indices.
etr_error_t etr_slice_bounds(etr_kernel_context_t *ctx, int64_t size,
                             bool has_start, int64_t start, bool has_end,
                             int64_t end, int64_t step, int64_t *start_out,
                             int64_t *length_out);

// A view of `tensor` keeping indices start, start+step, ... (length of
// them) along `dim`.
void etr_slice_view(const etr_tensor_t *tensor, int32_t dim, int64_t start,
                    int64_t length, int64_t step, etr_tensor_t *view);

// The `int[]? dim_order` argument of ExecuTorch's dim-order ops: when
// present it must be a permutation of 0..rank-1 equal to the out tensor's
// dim order (the planner lays out the out tensor as asked). InvalidArgument
// otherwise.
etr_error_t etr_check_dim_order_arg(etr_kernel_context_t *ctx,
                                    const int64_t *dim_order, size_t length,
                                    bool present, int32_t rank,
                                    const etr_tensor_t *out);

// Resizes `out` to (dim, sizes). InvalidArgument naming the op when the
// out tensor's memory is too small or its shape is static.
etr_error_t etr_resize_out(etr_kernel_context_t *ctx, etr_tensor_t *out,
                           int32_t dim, const int64_t *sizes);
etr_error_t etr_resize_out_like(etr_kernel_context_t *ctx, etr_tensor_t *out,
                                const etr_tensor_t *like);

// InvalidArgument unless `tensor` has rank `dim`.
etr_error_t etr_check_rank(etr_kernel_context_t *ctx, const char *what,
                           const etr_tensor_t *tensor, int32_t dim);

// The diagonal `offset` of dims dim1 and dim2 of `self`: its length and
// the element offset of its first element (both 0 when it is empty),
// without overflow for any offset.
void etr_diagonal_extent(const etr_tensor_t *self, int64_t offset,
                         int32_t dim1, int32_t dim2, int64_t *length,
                         int64_t *first);

#ifdef __cplusplus
}
#endif

#endif  // ETR_OPS_REFERENCE_SUPPORT_SHAPE_H
