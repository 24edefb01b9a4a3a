// SPDX-License-Identifier: Apache-2.0
//
// Ports of libstdc++'s std::sort, std::partial_sort and std::nth_element
// on (value, index) pairs, and a stable in-place sort (see reduce_sort.h).
// Function and variable names follow the libstdc++ helpers they port
// (__introsort_loop, __unguarded_partition, __adjust_heap, ...), so each
// step can be checked against <bits/stl_algo.h> and <bits/stl_heap.h>.
#include "ops_reference/support/reduce_sort.h"

#include <math.h>
#include <string.h>

#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"

// ---------------------------------------------------------------------------
// Slots and comparisons

etr_sort_pair_t etr_sort_get(const etr_sort_array_t *array, int64_t slot) {
  etr_sort_pair_t pair;
  memset(&pair, 0, sizeof(pair));
  size_t size = etr_scalar_type_size(array->dtype);
  if (slot >= array->stored) {
    memcpy(pair.raw,
           array->source + slot * array->source_stride * (int64_t)size, size);
    pair.index = slot;
  } else if (array->scratch != NULL) {
    pair = array->scratch[slot];
  } else {
    memcpy(pair.raw,
           array->values + slot * array->value_stride * (int64_t)size, size);
    pair.index = etr_load_int64(
        ETR_LONG, array->indices + slot * array->index_stride *
                                       (int64_t)sizeof(int64_t));
  }
  return pair;
}

void etr_sort_set(const etr_sort_array_t *array, int64_t slot,
                  const etr_sort_pair_t *pair) {
  size_t size = etr_scalar_type_size(array->dtype);
  if (slot >= array->stored) {
    return;  // a read-only input slot: never read again (see the header)
  }
  if (array->scratch != NULL) {
    array->scratch[slot] = *pair;
    return;
  }
  memcpy(array->values + slot * array->value_stride * (int64_t)size, pair->raw,
         size);
  etr_store_int64(ETR_LONG,
                  array->indices +
                      slot * array->index_stride * (int64_t)sizeof(int64_t),
                  pair->index);
}

bool etr_sort_compare(const etr_sort_array_t *array,
                      const etr_sort_pair_t *a, const etr_sort_pair_t *b) {
  if (array->dtype == ETR_UINT64) {
    uint64_t x = 0;
    uint64_t y = 0;
    memcpy(&x, a->raw, sizeof(x));
    memcpy(&y, b->raw, sizeof(y));
    return array->descending ? x > y : x < y;
  }
  if (etr_dtype_kind(array->dtype) == ETR_KIND_FLOATING) {
    double x = etr_load_double(array->dtype, a->raw);
    double y = etr_load_double(array->dtype, b->raw);
    if (array->descending) {
      return (isnan(x) && !isnan(y)) || x > y;
    }
    return (!isnan(x) && isnan(y)) || x < y;
  }
  int64_t x = etr_load_int64(array->dtype, a->raw);
  int64_t y = etr_load_int64(array->dtype, b->raw);
  return array->descending ? x > y : x < y;
}

// comp(*(first + i), *(first + j)) in libstdc++'s terms.
static bool less_at(const etr_sort_array_t *array, int64_t i, int64_t j) {
  etr_sort_pair_t a = etr_sort_get(array, i);
  etr_sort_pair_t b = etr_sort_get(array, j);
  return etr_sort_compare(array, &a, &b);
}

static void iter_swap(const etr_sort_array_t *array, int64_t i, int64_t j) {
  etr_sort_pair_t a = etr_sort_get(array, i);
  etr_sort_pair_t b = etr_sort_get(array, j);
  etr_sort_set(array, i, &b);
  etr_sort_set(array, j, &a);
}

// floor(log2(n)) for n >= 1 (std::__lg).
static int64_t lg(int64_t n) {
  int64_t result = 0;
  while (n > 1) {
    n >>= 1;
    ++result;
  }
  return result;
}

// ---------------------------------------------------------------------------
// Heaps (<bits/stl_heap.h>)

static void push_heap(const etr_sort_array_t *array, int64_t first,
                      int64_t hole, int64_t top, const etr_sort_pair_t *value) {
  int64_t parent = (hole - 1) / 2;
  while (hole > top) {
    etr_sort_pair_t at_parent = etr_sort_get(array, first + parent);
    if (!etr_sort_compare(array, &at_parent, value)) {
      break;
    }
    etr_sort_set(array, first + hole, &at_parent);
    hole = parent;
    parent = (hole - 1) / 2;
  }
  etr_sort_set(array, first + hole, value);
}

static void adjust_heap(const etr_sort_array_t *array, int64_t first,
                        int64_t hole, int64_t length,
                        const etr_sort_pair_t *value) {
  const int64_t top = hole;
  int64_t second = hole;
  while (second < (length - 1) / 2) {
    second = 2 * (second + 1);
    if (less_at(array, first + second, first + (second - 1))) {
      --second;
    }
    etr_sort_pair_t moved = etr_sort_get(array, first + second);
    etr_sort_set(array, first + hole, &moved);
    hole = second;
  }
  if ((length & 1) == 0 && second == (length - 2) / 2) {
    second = 2 * (second + 1);
    etr_sort_pair_t moved = etr_sort_get(array, first + (second - 1));
    etr_sort_set(array, first + hole, &moved);
    hole = second - 1;
  }
  push_heap(array, first, hole, top, value);
}

static void make_heap(const etr_sort_array_t *array, int64_t first,
                      int64_t last) {
  int64_t length = last - first;
  if (length < 2) {
    return;
  }
  for (int64_t parent = (length - 2) / 2;; --parent) {
    etr_sort_pair_t value = etr_sort_get(array, first + parent);
    adjust_heap(array, first, parent, length, &value);
    if (parent == 0) {
      return;
    }
  }
}

static void pop_heap(const etr_sort_array_t *array, int64_t first,
                     int64_t last, int64_t result) {
  etr_sort_pair_t value = etr_sort_get(array, result);
  etr_sort_pair_t top = etr_sort_get(array, first);
  etr_sort_set(array, result, &top);
  adjust_heap(array, first, 0, last - first, &value);
}

static void heap_select(const etr_sort_array_t *array, int64_t first,
                        int64_t middle, int64_t last) {
  make_heap(array, first, middle);
  for (int64_t i = middle; i < last; ++i) {
    if (less_at(array, i, first)) {
      pop_heap(array, first, middle, i);
    }
  }
}

static void sort_heap(const etr_sort_array_t *array, int64_t first,
                      int64_t last) {
  while (last - first > 1) {
    --last;
    pop_heap(array, first, last, last);
  }
}

void etr_sort_partial_sort(const etr_sort_array_t *array, int64_t first,
                           int64_t middle, int64_t last) {
  heap_select(array, first, middle, last);
  sort_heap(array, first, middle);
}

// ---------------------------------------------------------------------------
// Introsort and introselect (<bits/stl_algo.h>)

static void move_median_to_first(const etr_sort_array_t *array,
                                 int64_t result, int64_t a, int64_t b,
                                 int64_t c) {
  if (less_at(array, a, b)) {
    if (less_at(array, b, c)) {
      iter_swap(array, result, b);
    } else if (less_at(array, a, c)) {
      iter_swap(array, result, c);
    } else {
      iter_swap(array, result, a);
    }
  } else if (less_at(array, a, c)) {
    iter_swap(array, result, a);
  } else if (less_at(array, b, c)) {
    iter_swap(array, result, c);
  } else {
    iter_swap(array, result, b);
  }
}

static int64_t unguarded_partition(const etr_sort_array_t *array,
                                   int64_t first, int64_t last,
                                   int64_t pivot) {
  for (;;) {
    while (less_at(array, first, pivot)) {
      ++first;
    }
    --last;
    while (less_at(array, pivot, last)) {
      --last;
    }
    if (!(first < last)) {
      return first;
    }
    iter_swap(array, first, last);
    ++first;
  }
}

static int64_t unguarded_partition_pivot(const etr_sort_array_t *array,
                                         int64_t first, int64_t last) {
  int64_t mid = first + (last - first) / 2;
  move_median_to_first(array, first, first + 1, mid, last - 1);
  return unguarded_partition(array, first + 1, last, first);
}

static void unguarded_linear_insert(const etr_sort_array_t *array,
                                    int64_t last) {
  etr_sort_pair_t value = etr_sort_get(array, last);
  int64_t next = last - 1;
  for (;;) {
    etr_sort_pair_t at_next = etr_sort_get(array, next);
    if (!etr_sort_compare(array, &value, &at_next)) {
      break;
    }
    etr_sort_set(array, last, &at_next);
    last = next;
    --next;
  }
  etr_sort_set(array, last, &value);
}

static void insertion_sort(const etr_sort_array_t *array, int64_t first,
                           int64_t last) {
  if (first == last) {
    return;
  }
  for (int64_t i = first + 1; i < last; ++i) {
    if (less_at(array, i, first)) {
      // std::move_backward(first, i, i + 1), then *first = value.
      etr_sort_pair_t value = etr_sort_get(array, i);
      for (int64_t j = i; j > first; --j) {
        etr_sort_pair_t moved = etr_sort_get(array, j - 1);
        etr_sort_set(array, j, &moved);
      }
      etr_sort_set(array, first, &value);
    } else {
      unguarded_linear_insert(array, i);
    }
  }
}

enum { kSortThreshold = 16 };  // libstdc++'s _S_threshold

static void final_insertion_sort(const etr_sort_array_t *array,
                                 int64_t first, int64_t last) {
  if (last - first > kSortThreshold) {
    insertion_sort(array, first, first + kSortThreshold);
    for (int64_t i = first + kSortThreshold; i < last; ++i) {
      unguarded_linear_insert(array, i);
    }
  } else {
    insertion_sort(array, first, last);
  }
}

static void introsort_loop(const etr_sort_array_t *array, int64_t first,
                           int64_t last, int64_t depth_limit) {
  while (last - first > kSortThreshold) {
    if (depth_limit == 0) {
      etr_sort_partial_sort(array, first, last, last);
      return;
    }
    --depth_limit;
    int64_t cut = unguarded_partition_pivot(array, first, last);
    introsort_loop(array, cut, last, depth_limit);
    last = cut;
  }
}

void etr_sort_std_sort(const etr_sort_array_t *array, int64_t first,
                       int64_t last) {
  if (first < last) {
    introsort_loop(array, first, last, lg(last - first) * 2);
    final_insertion_sort(array, first, last);
  }
}

void etr_sort_nth_element(const etr_sort_array_t *array, int64_t first,
                          int64_t nth, int64_t last) {
  if (first == last || nth == last) {
    return;
  }
  int64_t depth_limit = lg(last - first) * 2;
  while (last - first > 3) {
    if (depth_limit == 0) {
      heap_select(array, first, nth + 1, last);
      iter_swap(array, first, nth);
      return;
    }
    --depth_limit;
    int64_t cut = unguarded_partition_pivot(array, first, last);
    if (cut <= nth) {
      first = cut;
    } else {
      last = cut;
    }
  }
  insertion_sort(array, first, last);
}

// ---------------------------------------------------------------------------
// Stable order: heapsort by (value, index)

// True when `a` comes after `b`: later in the comparison, or equal and of
// a larger index.
static bool comes_after(const etr_sort_array_t *array,
                        const etr_sort_pair_t *a, const etr_sort_pair_t *b) {
  if (etr_sort_compare(array, b, a)) {
    return true;
  }
  if (etr_sort_compare(array, a, b)) {
    return false;
  }
  return a->index > b->index;
}

static void stable_sift_down(const etr_sort_array_t *array, int64_t slot,
                             int64_t count) {
  for (;;) {
    int64_t last = slot;
    etr_sort_pair_t last_pair = etr_sort_get(array, slot);
    for (int64_t child = 2 * slot + 1; child <= 2 * slot + 2 && child < count;
         ++child) {
      etr_sort_pair_t child_pair = etr_sort_get(array, child);
      if (comes_after(array, &child_pair, &last_pair)) {
        last = child;
        last_pair = child_pair;
      }
    }
    if (last == slot) {
      return;
    }
    iter_swap(array, slot, last);
    slot = last;
  }
}

void etr_sort_stable(const etr_sort_array_t *array, int64_t count) {
  for (int64_t slot = count / 2 - 1; slot >= 0; --slot) {
    stable_sift_down(array, slot, count);
  }
  for (int64_t end = count - 1; end > 0; --end) {
    iter_swap(array, 0, end);
    stable_sift_down(array, 0, end);
  }
}
