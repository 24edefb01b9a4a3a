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
#include <stddef.h>
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
// topk's partial_sort (pairs of x[i * stride], i, i < n; k <= n) into
// heap[0, k), reading the tail in place: the same first k, in the same
// order, as etr_sort_f32_partial_sort(pairs, 0, k, n). `first_entering` is
// the reduce table's topk_first_entering, for contiguous slices.
typedef size_t (*etr_topk_first_entering_fn)(size_t first, size_t n,
                                             const float *x, float bound,
                                             bool largest);
void etr_sort_f32_topk_partial(etr_sort_f32_pair_t *heap, int64_t k,
                               const float *x, int64_t stride, int64_t n,
                               bool descending,
                               etr_topk_first_entering_fn first_entering);
void etr_sort_f32_nth_element(etr_sort_f32_pair_t *pairs, int64_t first,
                              int64_t nth, int64_t last, bool descending);

// The slice x[i * stride], i < n, into pairs[0, n) in sorted order, by a
// radix sort, when its values are all distinct and none is NaN (-0.0 and
// 0.0 count as equal): then every correct sort -- the reference's
// introsort included -- gives this one order, indices and all. False when
// some are not (a NaN seen first, or equal neighbours once sorted), with
// pairs[0, n) holding no particular order. `scratch` holds 4 n uint32,
// 8-byte aligned. (The ISAs with a sorting network take contiguous
// slices of up to ETR_SORT_DISTINCT_MAX by the reduce table's
// sort_distinct instead.)
bool etr_sort_f32_distinct(const float *x, int64_t stride, int64_t n,
                           bool descending, uint32_t *scratch,
                           etr_sort_f32_pair_t *pairs);

// Drivers for a checked call (the reference's dry run validated it and
// resized the outs): Float self, values and Long indices of any strides;
// each slice gathered into ctx->temp scratch, ordered, written back
// (topk's partial_sort keeps only its heap of k there).
// False, with nothing written, when the scratch is missing or too small.
bool etr_sort_f32_run(etr_kernel_context_t *ctx, const etr_tensor_t *self,
                      int32_t dim, bool descending, etr_tensor_t *values,
                      etr_tensor_t *indices);
bool etr_topk_f32_run(etr_kernel_context_t *ctx, const etr_tensor_t *self,
                      int64_t k, int32_t dim, bool largest, bool sorted,
                      etr_tensor_t *values, etr_tensor_t *indices);

#endif  // ETR_OPS_OPTIMIZED_SORT_SORT_H
