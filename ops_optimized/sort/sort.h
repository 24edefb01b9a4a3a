// SPDX-License-Identifier: Apache-2.0
//
// sort and topk on fp32 (value, index) pairs: the same libstdc++
// algorithms the reference ports generically (ops_reference/support/
// reduce_sort.h: introsort, partial_sort, nth_element, step for step, with
// ATen's NaN-largest comparisons), here on a typed array of pairs in
// scratch, so the order of ties and NaNs -- and therefore the indices --
// is the reference's exactly, without the per-access dtype dispatch and
// stride arithmetic of the generic slots.
#ifndef ETR_OPS_OPTIMIZED_SORT_SORT_H
#define ETR_OPS_OPTIMIZED_SORT_SORT_H

#include <stdbool.h>
#include <stdint.h>

#include "core/kernel.h"
#include "core/tensor.h"

typedef struct etr_sort_f32_pair {
  float value;
  int64_t index;
} etr_sort_f32_pair_t;

// libstdc++'s std::sort, std::partial_sort and std::nth_element on
// pairs[first, last) with ATen's KeyValueCompAsc (or Desc).
void etr_sort_f32_sort(etr_sort_f32_pair_t *pairs, int64_t first,
                       int64_t last, bool descending);
void etr_sort_f32_partial_sort(etr_sort_f32_pair_t *pairs, int64_t first,
                               int64_t middle, int64_t last,
                               bool descending);
void etr_sort_f32_nth_element(etr_sort_f32_pair_t *pairs, int64_t first,
                              int64_t nth, int64_t last, bool descending);

// Drivers for a checked call (the reference's dry run validated it and
// resized the outs): Float self, values and Long indices of any strides;
// each slice gathered into ctx->temp scratch, ordered, written back.
// False, with nothing written, when the scratch is missing or too small.
bool etr_sort_f32_run(etr_kernel_context_t *ctx, const etr_tensor_t *self,
                      int32_t dim, bool descending, etr_tensor_t *values,
                      etr_tensor_t *indices);
bool etr_topk_f32_run(etr_kernel_context_t *ctx, const etr_tensor_t *self,
                      int64_t k, int32_t dim, bool largest, bool sorted,
                      etr_tensor_t *values, etr_tensor_t *indices);

#endif  // ETR_OPS_OPTIMIZED_SORT_SORT_H
