// SPDX-License-Identifier: Apache-2.0
//
// libstdc++'s sorting algorithms on fp32 (value, index) pairs (see
// sort.h). Each function follows its generic twin in ops_reference/
// support/reduce_sort.c line for line (which follows <bits/stl_algo.h>
// and <bits/stl_heap.h>), with slots as array elements.
#include <math.h>
#include <string.h>

#include "ops_optimized/reduce/reduce.h"
#include "ops_optimized/sort/sort.h"

typedef etr_sort_f32_pair_t pair_t;

// ATen's KeyValueCompAsc / KeyValueCompDesc on values (NaN largest).
static inline bool less(const pair_t *a, const pair_t *b, bool descending) {
  float x = a->value;
  float y = b->value;
  if (descending) {
    return (isnan(x) && !isnan(y)) || x > y;
  }
  return (!isnan(x) && isnan(y)) || x < y;
}

static inline void iter_swap(pair_t *p, int64_t i, int64_t j) {
  pair_t t = p[i];
  p[i] = p[j];
  p[j] = t;
}

static int64_t lg(int64_t n) {
  int64_t result = 0;
  while (n > 1) {
    n >>= 1;
    ++result;
  }
  return result;
}

static void push_heap(pair_t *p, int64_t first, int64_t hole, int64_t top,
                      pair_t value, bool d) {
  int64_t parent = (hole - 1) / 2;
  while (hole > top && less(&p[first + parent], &value, d)) {
    p[first + hole] = p[first + parent];
    hole = parent;
    parent = (hole - 1) / 2;
  }
  p[first + hole] = value;
}

static void adjust_heap(pair_t *p, int64_t first, int64_t hole,
                        int64_t length, pair_t value, bool d) {
  const int64_t top = hole;
  int64_t second = hole;
  while (second < (length - 1) / 2) {
    second = 2 * (second + 1);
    if (less(&p[first + second], &p[first + (second - 1)], d)) {
      --second;
    }
    p[first + hole] = p[first + second];
    hole = second;
  }
  if ((length & 1) == 0 && second == (length - 2) / 2) {
    second = 2 * (second + 1);
    p[first + hole] = p[first + (second - 1)];
    hole = second - 1;
  }
  push_heap(p, first, hole, top, value, d);
}

static void make_heap(pair_t *p, int64_t first, int64_t last, bool d) {
  int64_t length = last - first;
  if (length < 2) {
    return;
  }
  for (int64_t parent = (length - 2) / 2;; --parent) {
    adjust_heap(p, first, parent, length, p[first + parent], d);
    if (parent == 0) {
      return;
    }
  }
}

static void pop_heap(pair_t *p, int64_t first, int64_t last, int64_t result,
                     bool d) {
  pair_t value = p[result];
  p[result] = p[first];
  adjust_heap(p, first, 0, last - first, value, d);
}

static void heap_select(pair_t *p, int64_t first, int64_t middle,
                        int64_t last, bool d) {
  make_heap(p, first, middle, d);
  for (int64_t i = middle; i < last; ++i) {
    if (less(&p[i], &p[first], d)) {
      pop_heap(p, first, middle, i, d);
    }
  }
}

static void sort_heap(pair_t *p, int64_t first, int64_t last, bool d) {
  while (last - first > 1) {
    --last;
    pop_heap(p, first, last, last, d);
  }
}

void etr_sort_f32_partial_sort(pair_t *p, int64_t first, int64_t middle,
                               int64_t last, bool d) {
  heap_select(p, first, middle, last, d);
  sort_heap(p, first, middle, d);
}

// heap_select pops the heap for a tail element only when it beats the
// root, and pop_heap's write of the old root into the tail slot is never
// read again: so the tail is read in place, and on contiguous slices the
// elements that enter nowhere are skipped a vector at a time.
void etr_sort_f32_topk_partial(pair_t *heap, int64_t k, const float *x,
                               int64_t stride, int64_t n, bool d,
                               etr_topk_first_entering_fn first_entering) {
  for (int64_t i = 0; i < k; ++i) {
    heap[i].value = x[i * stride];
    heap[i].index = i;
  }
  make_heap(heap, 0, k, d);
  int64_t i = k;
  for (;;) {
    if (stride == 1) {
      i = (int64_t)first_entering((size_t)i, (size_t)n, x, heap[0].value, d);
    } else {
      while (i < n && !etr_topk_enters(x[i * stride], heap[0].value, d)) {
        ++i;
      }
    }
    if (i >= n) {
      break;
    }
    pair_t value = {x[i * stride], i};
    adjust_heap(heap, 0, 0, k, value, d);
    ++i;
  }
  sort_heap(heap, 0, k, d);
}

static void move_median_to_first(pair_t *p, int64_t result, int64_t a,
                                 int64_t b, int64_t c, bool d) {
  if (less(&p[a], &p[b], d)) {
    if (less(&p[b], &p[c], d)) {
      iter_swap(p, result, b);
    } else if (less(&p[a], &p[c], d)) {
      iter_swap(p, result, c);
    } else {
      iter_swap(p, result, a);
    }
  } else if (less(&p[a], &p[c], d)) {
    iter_swap(p, result, a);
  } else if (less(&p[b], &p[c], d)) {
    iter_swap(p, result, c);
  } else {
    iter_swap(p, result, b);
  }
}

static int64_t unguarded_partition(pair_t *p, int64_t first, int64_t last,
                                   int64_t pivot, bool d) {
  for (;;) {
    while (less(&p[first], &p[pivot], d)) {
      ++first;
    }
    --last;
    while (less(&p[pivot], &p[last], d)) {
      --last;
    }
    if (!(first < last)) {
      return first;
    }
    iter_swap(p, first, last);
    ++first;
  }
}

static int64_t unguarded_partition_pivot(pair_t *p, int64_t first,
                                         int64_t last, bool d) {
  int64_t mid = first + (last - first) / 2;
  move_median_to_first(p, first, first + 1, mid, last - 1, d);
  return unguarded_partition(p, first + 1, last, first, d);
}

static void unguarded_linear_insert(pair_t *p, int64_t last, bool d) {
  pair_t value = p[last];
  int64_t next = last - 1;
  while (less(&value, &p[next], d)) {
    p[last] = p[next];
    last = next;
    --next;
  }
  p[last] = value;
}

static void insertion_sort(pair_t *p, int64_t first, int64_t last, bool d) {
  if (first == last) {
    return;
  }
  for (int64_t i = first + 1; i < last; ++i) {
    if (less(&p[i], &p[first], d)) {
      pair_t value = p[i];
      for (int64_t j = i; j > first; --j) {
        p[j] = p[j - 1];
      }
      p[first] = value;
    } else {
      unguarded_linear_insert(p, i, d);
    }
  }
}

enum { kSortThreshold = 16 };  // libstdc++'s _S_threshold

static void final_insertion_sort(pair_t *p, int64_t first, int64_t last,
                                 bool d) {
  if (last - first > kSortThreshold) {
    insertion_sort(p, first, first + kSortThreshold, d);
    for (int64_t i = first + kSortThreshold; i < last; ++i) {
      unguarded_linear_insert(p, i, d);
    }
  } else {
    insertion_sort(p, first, last, d);
  }
}

static void introsort_loop(pair_t *p, int64_t first, int64_t last,
                           int64_t depth_limit, bool d) {
  while (last - first > kSortThreshold) {
    if (depth_limit == 0) {
      etr_sort_f32_partial_sort(p, first, last, last, d);
      return;
    }
    --depth_limit;
    int64_t cut = unguarded_partition_pivot(p, first, last, d);
    introsort_loop(p, cut, last, depth_limit, d);
    last = cut;
  }
}

void etr_sort_f32_sort(pair_t *p, int64_t first, int64_t last, bool d) {
  if (first < last) {
    introsort_loop(p, first, last, lg(last - first) * 2, d);
    final_insertion_sort(p, first, last, d);
  }
}

// Float bits mapped to keys whose unsigned order is the values' (for
// numbers: -0.0 just below 0.0), and back.
static inline uint32_t float_key(float v) {
  uint32_t u;
  memcpy(&u, &v, sizeof(u));
  return (u & 0x80000000u) != 0 ? ~u : u | 0x80000000u;
}
static inline float key_float(uint32_t key) {
  uint32_t u = (key & 0x80000000u) != 0 ? key ^ 0x80000000u : ~key;
  float v;
  memcpy(&v, &u, sizeof(v));
  return v;
}

// The slice as key << 32 | index entries into e[0, n), their digits
// counted (the radix sort's), in four copies: element i counts in copy
// i % 4, so that runs of one digit -- the top bytes of similar
// magnitudes -- make four chains of increments through memory, not one.
// False at a NaN.
static bool pack_counted(const float *x, int64_t stride, int64_t n,
                         uint64_t *e, uint32_t counts[4][4][256]) {
  memset(counts, 0, 4 * sizeof(*counts));
  for (int64_t i = 0; i < n; ++i) {
    float v = x[i * stride];
    if (isnan(v)) {
      return false;
    }
    uint32_t key = float_key(v);
    e[i] = (uint64_t)key << 32 | (uint64_t)i;
    uint32_t(*copy)[256] = counts[i & 3];
    for (int d = 0; d < 4; ++d) {
      ++copy[d][(key >> (8 * d)) & 0xffu];
    }
  }
  return true;
}

// Least-significant-digit radix sort of e[0, n) on the keys' 8-bit
// digits, a pass skipped where every key has the same digit; into e or
// `to`, whichever it returns. Each pass places the front half from the
// buckets' starts upward and the back half, read backward, from their
// ends downward: two chains of increments again, and within a bucket the
// order stays the input's (the front half's all come first). 64 rows of
// 1024 randn floats, Zen 5, AVX2 build: 490 -> 410 us against separate
// key and index arrays, one count array per digit, one chain.
static uint64_t *radix_sort(uint64_t *e, uint64_t *to, int64_t n,
                            uint32_t counts[4][4][256]) {
  for (int d = 0; d < 4; ++d) {
    int shift = 32 + 8 * d;
    uint32_t start[256];
    uint32_t end[256];
    uint32_t at = 0;
    bool one_digit = false;
    for (int b = 0; b < 256; ++b) {
      uint32_t c = counts[0][d][b] + counts[1][d][b] + counts[2][d][b] +
                   counts[3][d][b];
      one_digit = one_digit || c == (uint32_t)n;
      start[b] = at;
      at += c;
      end[b] = at;
    }
    if (one_digit) {
      continue;  // one digit for all: the order stands
    }
    int64_t half = n / 2;
    for (int64_t i = 0, j = n - 1; i < half; ++i, --j) {
      uint64_t front = e[i];
      uint64_t back = e[j];
      to[start[(front >> shift) & 0xffu]++] = front;
      to[--end[(back >> shift) & 0xffu]] = back;
    }
    if (n % 2 != 0) {
      to[start[(e[half] >> shift) & 0xffu]] = e[half];
    }
    uint64_t *t = e;
    e = to;
    to = t;
  }
  return e;
}

// The slice sorted stably by the radix sort, then its values, which must
// rise strictly.
bool etr_sort_f32_distinct(const float *x, int64_t stride, int64_t n,
                           bool descending, uint32_t *scratch, pair_t *p) {
  uint64_t *e = (uint64_t *)(void *)scratch;
  uint32_t counts[4][4][256];
  if (!pack_counted(x, stride, n, e, counts)) {
    return false;
  }
  e = radix_sort(e, e + n, n, counts);
  for (int64_t i = 0; i < n; ++i) {
    uint64_t entry = e[descending ? n - 1 - i : i];
    p[i].value = key_float((uint32_t)(entry >> 32));
    p[i].index = (int64_t)(uint32_t)entry;
  }
  for (int64_t i = 1; i < n; ++i) {
    if (descending ? !(p[i - 1].value > p[i].value)
                   : !(p[i - 1].value < p[i].value)) {
      return false;
    }
  }
  return true;
}

void etr_sort_f32_nth_element(pair_t *p, int64_t first, int64_t nth,
                              int64_t last, bool d) {
  if (first == last || nth == last) {
    return;
  }
  int64_t depth_limit = lg(last - first) * 2;
  while (last - first > 3) {
    if (depth_limit == 0) {
      heap_select(p, first, nth + 1, last, d);
      iter_swap(p, first, nth);
      return;
    }
    --depth_limit;
    int64_t cut = unguarded_partition_pivot(p, first, last, d);
    if (cut <= nth) {
      first = cut;
    } else {
      last = cut;
    }
  }
  insertion_sort(p, first, last, d);
}
