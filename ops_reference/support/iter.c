// SPDX-License-Identifier: Apache-2.0
//
// Strided iteration and element copies (see iter.h).
#include "ops_reference/support/iter.h"

#include <string.h>

#include "ops_reference/support/element.h"
#include "ops_reference/support/shape.h"

void etr_strided_iter_init(etr_strided_iter_t *iter, int32_t dim,
                           const int64_t *sizes,
                           const etr_tensor_t *const *operands,
                           size_t num_operands) {
  // Only what the walk reads is set: clearing the whole struct (1.4 KB)
  // was most of the cost of a small op's kernel call.
  iter->dim = dim;
  iter->num_operands = num_operands < ETR_ITER_MAX_OPERANDS
                           ? num_operands
                           : ETR_ITER_MAX_OPERANDS;
  iter->remaining = 1;
  for (int32_t d = 0; d < dim; ++d) {
    iter->remaining = sizes[d] == 0 ? 0 : iter->remaining;
  }
  for (int32_t d = 0; d < dim; ++d) {
    iter->sizes[d] = sizes[d];
    iter->index[d] = 0;
    iter->remaining = etr_saturating_mul(iter->remaining, sizes[d]);
  }
  for (size_t k = 0; k < ETR_ITER_MAX_OPERANDS; ++k) {
    iter->offsets[k] = 0;
  }
  for (size_t k = 0; k < iter->num_operands; ++k) {
    for (int32_t d = 0; d < dim; ++d) {
      iter->strides[k][d] = operands[k]->strides[d];
    }
  }
}

void etr_strided_iter_next(etr_strided_iter_t *iter) {
  --iter->remaining;
  for (int32_t d = iter->dim - 1; d >= 0; --d) {
    if (++iter->index[d] < iter->sizes[d]) {
      for (size_t k = 0; k < iter->num_operands; ++k) {
        iter->offsets[k] += iter->strides[k][d];
      }
      return;
    }
    // Carry: rewind this dim and advance the next outer one.
    iter->index[d] = 0;
    for (size_t k = 0; k < iter->num_operands; ++k) {
      iter->offsets[k] -= iter->strides[k][d] * (iter->sizes[d] - 1);
    }
  }
}

void etr_dim_split_init(etr_dim_split_t *split, uint32_t inner_mask,
                        const etr_tensor_t *const *operands,
                        size_t num_operands) {
  memset(split, 0, sizeof(*split));
  split->num_operands = num_operands < ETR_ITER_MAX_OPERANDS
                            ? num_operands
                            : ETR_ITER_MAX_OPERANDS;
  split->outer_count = 1;
  split->inner_count = 1;
  const etr_tensor_t *shape = operands[0];
  for (int32_t d = 0; d < shape->dim; ++d) {
    bool inner = (inner_mask >> d) & 1u;
    int32_t slot = inner ? split->inner_dim++ : split->outer_dim++;
    if (inner) {
      split->inner_sizes[slot] = shape->sizes[d];
      split->inner_count = etr_saturating_mul(split->inner_count,
                                              shape->sizes[d]);
    } else {
      split->outer_sizes[slot] = shape->sizes[d];
      split->outer_count = etr_saturating_mul(split->outer_count,
                                              shape->sizes[d]);
    }
    for (size_t k = 0; k < split->num_operands; ++k) {
      if (inner) {
        split->inner_strides[k][slot] = operands[k]->strides[d];
      } else {
        split->outer_strides[k][slot] = operands[k]->strides[d];
      }
    }
  }
}

// Offset of the linear row-major position `linear` in a (dim, sizes) box.
static int64_t offset_of(int64_t linear, int32_t dim, const int64_t *sizes,
                         const int64_t *strides) {
  int64_t offset = 0;
  for (int32_t d = dim - 1; d >= 0; --d) {
    offset += (linear % sizes[d]) * strides[d];
    linear /= sizes[d];
  }
  return offset;
}

int64_t etr_dim_split_outer(const etr_dim_split_t *split, size_t operand,
                            int64_t outer) {
  return offset_of(outer, split->outer_dim, split->outer_sizes,
                   split->outer_strides[operand]);
}

int64_t etr_dim_split_inner(const etr_dim_split_t *split, size_t operand,
                            int64_t inner) {
  return offset_of(inner, split->inner_dim, split->inner_sizes,
                   split->inner_strides[operand]);
}

void etr_copy_strided(etr_tensor_t *dst, const etr_tensor_t *src) {
  const etr_tensor_t *operands[2] = {dst, src};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, dst->dim, dst->sizes, operands, 2);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    etr_convert_element(dst->dtype, etr_element_at(dst, iter.offsets[0]),
                        src->dtype, etr_element_at(src, iter.offsets[1]));
  }
}

void etr_copy_reshaped(etr_tensor_t *dst, const etr_tensor_t *src) {
  etr_strided_iter_t dst_iter;
  etr_strided_iter_t src_iter;
  const etr_tensor_t *dst_operand[1] = {dst};
  const etr_tensor_t *src_operand[1] = {src};
  etr_strided_iter_init(&dst_iter, dst->dim, dst->sizes, dst_operand, 1);
  etr_strided_iter_init(&src_iter, src->dim, src->sizes, src_operand, 1);
  while (!etr_strided_iter_done(&dst_iter) &&
         !etr_strided_iter_done(&src_iter)) {
    etr_convert_element(dst->dtype, etr_element_at(dst, dst_iter.offsets[0]),
                        src->dtype, etr_element_at(src, src_iter.offsets[0]));
    etr_strided_iter_next(&dst_iter);
    etr_strided_iter_next(&src_iter);
  }
}
