// SPDX-License-Identifier: Apache-2.0
//
// The orderings of sort and topk, reproduced exactly.
//
// PyTorch's CPU sort and topk give every value its defined place (NaN
// counts as larger than everything), but equal values (and 0.0 versus
// -0.0, and NaNs among themselves) end up in whatever order their
// algorithms leave them, and the indices out shows that order. To match
// PyTorch's indices as well as its values, etref runs the same algorithms
// on the same (value, index) pairs with the same comparisons:
//   * sort (ATen's sort_kernel, non-stable): libstdc++'s std::sort, an
//     introsort (median-of-three quicksort down to slices of 16, heapsort
//     past a depth of 2 floor(log2 n), then insertion sort), comparing
//     values only with ATen's KeyValueCompAsc/Desc:
//       ascending  a < b or (b is NaN and a is not);
//       descending a > b or (a is NaN and b is not);
//   * topk (ATen's topk_impl_loop): std::partial_sort of the (value,
//     index) queue when k * 64 <= n, else std::nth_element at k - 1
//     followed, when `sorted`, by std::sort of the first k - 1;
//   * a stable order (ties keep their original order) where ATen's sort
//     takes FBGEMM's radix sort: a rank-1 integer (not Bool) tensor of at
//     least 32768 elements sorted ascending.
// The ports follow GCC's <bits/stl_algo.h> and <bits/stl_heap.h>
// step for step (same pivots, same hole-based heap moves); the test
// generator checked them against PyTorch 2.13 on thousands of tie-heavy
// random inputs. A different C++ library would order ties differently;
// values never differ.
//
// Pairs live in an etr_sort_array_t: writable slots [0, stored) in the out
// tensors (a values slice of the input's dtype and a Long indices slice,
// strided) or in scratch, and read-only slots [stored, ...) read from the
// input slice (the value of input element i with index i; writes to them
// are dropped, which is exact for std::partial_sort, whose heap selection
// only ever writes a tail slot after reading it for the last time).
#ifndef ETR_OPS_REFERENCE_SUPPORT_REDUCE_SORT_H
#define ETR_OPS_REFERENCE_SUPPORT_REDUCE_SORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/scalar_type.h"

#ifdef __cplusplus
extern "C" {
#endif

// An element's bytes (dtypes of at most 8 bytes) with its index.
typedef struct etr_sort_pair {
  uint8_t raw[8];
  int64_t index;
} etr_sort_pair_t;

typedef struct etr_sort_array {
  etr_scalar_type_t dtype;  // of every value (real, Bool or uint16/32/64)
  bool descending;          // ATen's KeyValueCompDesc instead of Asc
  int64_t stored;           // slots [0, stored) are writable
  // Writable slots in tensors (when scratch is NULL): strides in elements.
  char *values;
  int64_t value_stride;
  char *indices;  // Long
  int64_t index_stride;
  // Writable slots in scratch instead (stored entries).
  etr_sort_pair_t *scratch;
  // Read-only slots [stored, ...): input element `slot`, index `slot`.
  const char *source;
  int64_t source_stride;
} etr_sort_array_t;

etr_sort_pair_t etr_sort_get(const etr_sort_array_t *array, int64_t slot);
void etr_sort_set(const etr_sort_array_t *array, int64_t slot,
                  const etr_sort_pair_t *pair);

// ATen's comparison of two values (see above); indices are ignored.
bool etr_sort_compare(const etr_sort_array_t *array,
                      const etr_sort_pair_t *a, const etr_sort_pair_t *b);

// libstdc++'s std::sort, std::partial_sort and std::nth_element on slots
// [first, last) (middle and nth inside them).
void etr_sort_std_sort(const etr_sort_array_t *array, int64_t first,
                       int64_t last);
void etr_sort_partial_sort(const etr_sort_array_t *array, int64_t first,
                           int64_t middle, int64_t last);
void etr_sort_nth_element(const etr_sort_array_t *array, int64_t first,
                          int64_t nth, int64_t last);

// A stable sort of slots [0, count) (equal values keep their order), in
// place and without scratch: a heapsort ordered by (value, index).
void etr_sort_stable(const etr_sort_array_t *array, int64_t count);

#ifdef __cplusplus
}
#endif

#endif  // ETR_OPS_REFERENCE_SUPPORT_REDUCE_SORT_H
