// SPDX-License-Identifier: Apache-2.0
//
// Walking tensors element by element, honouring strides.
//
// etr_strided_iter_t walks up to ETR_ITER_MAX_OPERANDS tensors of one
// logical shape together, in row-major logical order, keeping each
// operand's element offset up to date. Elementwise kernels pass the out
// tensor and broadcast views of their inputs (etr_broadcast_view), so
// broadcasting, non-contiguous inputs and channels-last outs are all the
// same loop.
//
// etr_dim_split_t splits a shape into "outer" dims and "inner" dims (a bit
// mask), the shape of every reduction and normalization: for each outer
// position the kernel walks the inner positions. Offsets are computed per
// call from linear positions, which keeps the kernels simple.
//
// etr_copy_strided and etr_copy_reshaped move elements between two
// tensors (converting dtype when they differ); every data-movement kernel
// (permute, slice, cat, expand, view, clone, ...) is a view plus one of
// them.
#ifndef ETR_OPS_REFERENCE_SUPPORT_ITER_H
#define ETR_OPS_REFERENCE_SUPPORT_ITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/tensor.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ETR_ITER_MAX_OPERANDS 8

typedef struct etr_strided_iter {
  int32_t dim;
  int64_t sizes[ETR_MAX_DIMS];
  int64_t index[ETR_MAX_DIMS];
  size_t num_operands;
  int64_t strides[ETR_ITER_MAX_OPERANDS][ETR_MAX_DIMS];
  int64_t offsets[ETR_ITER_MAX_OPERANDS];  // current element of each operand
  int64_t remaining;                       // elements left, current included
} etr_strided_iter_t;

// Starts at the first element. Every operand must have shape (dim, sizes)
// (pass broadcast views for broadcast inputs); at most
// ETR_ITER_MAX_OPERANDS operands (extra ones are ignored).
void etr_strided_iter_init(etr_strided_iter_t *iter, int32_t dim,
                           const int64_t *sizes,
                           const etr_tensor_t *const *operands,
                           size_t num_operands);

static inline bool etr_strided_iter_done(const etr_strided_iter_t *iter) {
  return iter->remaining <= 0;
}

// Moves to the next element in row-major logical order.
void etr_strided_iter_next(etr_strided_iter_t *iter);

typedef struct etr_dim_split {
  int32_t outer_dim;
  int32_t inner_dim;
  int64_t outer_sizes[ETR_MAX_DIMS];
  int64_t inner_sizes[ETR_MAX_DIMS];
  size_t num_operands;
  int64_t outer_strides[ETR_ITER_MAX_OPERANDS][ETR_MAX_DIMS];
  int64_t inner_strides[ETR_ITER_MAX_OPERANDS][ETR_MAX_DIMS];
  int64_t outer_count;  // product of outer sizes (1 when none)
  int64_t inner_count;  // product of inner sizes (1 when none)
} etr_dim_split_t;

// Splits the shape of operands[0] (every operand has the same shape) into
// the dims in `inner_mask` and the rest, both kept in increasing order.
void etr_dim_split_init(etr_dim_split_t *split, uint32_t inner_mask,
                        const etr_tensor_t *const *operands,
                        size_t num_operands);

// Offset of operand `operand` at outer position `outer` (0..outer_count-1)
// and inner position 0; add etr_dim_split_inner for the inner position.
int64_t etr_dim_split_outer(const etr_dim_split_t *split, size_t operand,
                            int64_t outer);
int64_t etr_dim_split_inner(const etr_dim_split_t *split, size_t operand,
                            int64_t inner);

// Copies every element of `src` to the same logical position of `dst`
// (same shape), converting dtype. Both may be strided views.
void etr_copy_strided(etr_tensor_t *dst, const etr_tensor_t *src);

// Copies `src` into `dst` (same number of elements, any shapes) in
// row-major logical order, converting dtype: the semantics of view/reshape.
void etr_copy_reshaped(etr_tensor_t *dst, const etr_tensor_t *src);

#ifdef __cplusplus
}
#endif

#endif  // ETR_OPS_REFERENCE_SUPPORT_ITER_H
