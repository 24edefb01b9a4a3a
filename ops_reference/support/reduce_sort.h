// SPDX-License-Identifier: Apache-2.0
//
// Ordering and in-place heaps for sort and topk.
//
// Elements are ordered by (value, original index) so every order is total
// and the result is what a stable sort gives: ascending puts smaller values
// first, descending larger ones, NaN counts as larger than everything
// (last ascending, first descending), and equal values (0.0 and -0.0
// included) keep their original order in both directions. PyTorch's
// stable=True sort is exactly this; its default (unstable) sort gives the
// same values but may order the indices of equal values differently on
// slices longer than 16, and its topk takes tied elements in an order set
// by std::nth_element; etref always uses the stable order.
//
// A slot array is one slice of a values tensor (self's dtype) and the
// matching slice of an indices tensor (Long), both read and written
// through their strides. Sorting happens in place in those out tensors
// with a heap, so nothing is allocated and the cost is O(n log n).
#ifndef ETR_OPS_REFERENCE_SUPPORT_REDUCE_SORT_H
#define ETR_OPS_REFERENCE_SUPPORT_REDUCE_SORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/scalar_type.h"

#ifdef __cplusplus
extern "C" {
#endif

// A value with its original index, in the form its dtype compares in.
typedef struct etr_sort_key {
  double floating;   // Half, BFloat16, Float, Double
  int64_t integer;   // Bool and integers up to uint32
  uint64_t unsigned64;  // UInt64
  int64_t index;
} etr_sort_key_t;

typedef struct etr_sort_slots {
  etr_scalar_type_t dtype;
  bool descending;
  char *values;           // first element of the values slice
  int64_t value_stride;   // in elements
  char *indices;          // first element of the indices slice (Long)
  int64_t index_stride;   // in elements
} etr_sort_slots_t;

// The key of the element at `element` (dtype `dtype`) with index `index`.
etr_sort_key_t etr_sort_load_key(etr_scalar_type_t dtype, const void *element,
                                 int64_t index);

// True when `a` comes before `b` in the order described above.
bool etr_sort_key_before(etr_scalar_type_t dtype, bool descending,
                         const etr_sort_key_t *a, const etr_sort_key_t *b);

// Key of slot `slot` (its value and the index stored beside it).
etr_sort_key_t etr_sort_slot_key(const etr_sort_slots_t *slots, int64_t slot);

// Writes `element` (of the slots' dtype) and `index` into slot `slot`.
void etr_sort_slot_set(const etr_sort_slots_t *slots, int64_t slot,
                       const void *element, int64_t index);

// Restores the heap below `slot` among the first `count` slots; the heap
// keeps the element that comes last in the order at its root.
void etr_sort_sift_down(const etr_sort_slots_t *slots, int64_t slot,
                        int64_t count);

// Sorts the first `count` slots into the order (heapsort).
void etr_sort_slots(const etr_sort_slots_t *slots, int64_t count);

#ifdef __cplusplus
}
#endif

#endif  // ETR_OPS_REFERENCE_SUPPORT_REDUCE_SORT_H
