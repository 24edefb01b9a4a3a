// SPDX-License-Identifier: Apache-2.0
//
// Integer reductions (see reduce.h's etr_reduce_run_integer): sums, any
// and extrema of uint8 and int8..int64 inputs on the driver's [outer, r,
// inner] plan, in portable C (no ISA has the 64-bit lane arithmetic worth
// a microkernel; the gain over the reference is its per-element dtype
// dispatch and index arithmetic). Rows (inner == 1) reduce one output at
// a time; columns reduce up to kBlock outputs side by side, one input row
// after another, which the compiler vectorizes. Semantics are the
// reference's: a sum wraps in int64 (the reference converts every element
// to the out dtype and wraps there, which gives the same low bits), then
// is wrapped to the out dtype; any is whether an element is not 0; a
// maximum or minimum keeps the first
// position of its value (a later element replaces it only when strictly
// greater or less).
#include <stdint.h>

#include "core/scalar_type.h"
#include "ops_optimized/binary/integer.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/support/element.h"

// The typed loops here are written for the compiler to vectorize, which
// GCC 12 does at -O2 only for loops that need no scalar epilogue: ask for
// it (clang vectorizes at -O2 already).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize")
#endif

enum { kBlock = 256 };  // columns reduced side by side
// Row sums run in chunks of kChunk bytes, each prefetching the two lines
// kAhead bytes on: a sum does too little per line for the hardware
// prefetchers to keep up from L3 or memory. sum-rows-i64-1024 (8 MiB, Zen
// 4, paired bench_server rounds) 305-315 -> 213-224 us, against
// ExecuTorch's optimized kernel's 294 in the bench beside it; 1 and 4 KiB
// ahead did as well. The address is integer arithmetic: past the last
// row it points outside the tensor, which a prefetch may but a pointer
// may not.
enum { kChunk = 128, kAhead = 2048 };
// A row sum keeps four partial sums across its whole row (a wrapping sum
// in any order is the same): summing each chunk into one scalar made a
// chain of dependent adds and a horizontal reduction per 128 bytes, which
// bounded int64 rows at about 26 GB/s.

// One block of outputs: sums (any: 0 or 1), or extrema and their
// positions along r.
typedef struct int_results {
  uint64_t sums[kBlock];
  int64_t values[kBlock];
  int64_t indices[kBlock];
} int_results_t;

// The row and column loops per storage type. `sum` selects a sum (of the
// elements, or with `any` of x != 0, as a 0/1 or), else an extremum whose
// comparison `is_max` selects.
#define INT_REDUCE(T)                                                      \
  static void rows_##T(const T *x, size_t rows, size_t n, bool sum,       \
                       bool any, bool is_max, int_results_t *b) {         \
    for (size_t o = 0; o < rows; ++o) {                                    \
      const T *row = x + o * n;                                            \
      if (any) {                                                           \
        uint64_t acc = 0;                                                  \
        for (size_t j = 0; j < n; ++j) {                                   \
          acc |= row[j] != 0;                                              \
        }                                                                  \
        b->sums[o] = acc;                                                  \
        continue;                                                          \
      }                                                                    \
      if (sum) {                                                           \
        uint64_t p0 = 0, p1 = 0, p2 = 0, p3 = 0;                           \
        size_t j = 0;                                                      \
        for (; j + kChunk / sizeof(T) <= n; j += kChunk / sizeof(T)) {    \
          uintptr_t ahead = (uintptr_t)(row + j) + kAhead;                \
          __builtin_prefetch((const void *)ahead, 0, 3);                   \
          __builtin_prefetch((const void *)(ahead + 64), 0, 3);            \
          const T *chunk = row + j;                                        \
          for (size_t l = 0; l < kChunk / sizeof(T); l += 4) {            \
            p0 += (uint64_t)(int64_t)chunk[l];                             \
            p1 += (uint64_t)(int64_t)chunk[l + 1];                         \
            p2 += (uint64_t)(int64_t)chunk[l + 2];                         \
            p3 += (uint64_t)(int64_t)chunk[l + 3];                         \
          }                                                                \
        }                                                                  \
        uint64_t acc = (p0 + p1) + (p2 + p3);                              \
        for (; j < n; ++j) {                                               \
          acc += (uint64_t)(int64_t)row[j];                                \
        }                                                                  \
        b->sums[o] = acc;                                                  \
        continue;                                                          \
      }                                                                    \
      T best = row[0];                                                     \
      size_t at = 0;                                                       \
      for (size_t j = 1; j < n; ++j) {                                     \
        if (is_max ? row[j] > best : row[j] < best) {                      \
          best = row[j];                                                   \
          at = j;                                                          \
        }                                                                  \
      }                                                                    \
      b->values[o] = (int64_t)best;                                        \
      b->indices[o] = (int64_t)at;                                         \
    }                                                                      \
  }                                                                        \
  static void cols_##T(const T *x, size_t r, size_t count, size_t stride, \
                       bool sum, bool any, bool is_max,                   \
                       int_results_t *b) {                                \
    if (sum) {                                                             \
      for (size_t i = 0; i < count; ++i) {                                 \
        b->sums[i] = 0;                                                    \
      }                                                                    \
      for (size_t j = 0; j < r; ++j) {                                     \
        const T *row = x + j * stride;                                     \
        if (any) {                                                         \
          for (size_t i = 0; i < count; ++i) {                             \
            b->sums[i] |= row[i] != 0;                                     \
          }                                                                \
          continue;                                                        \
        }                                                                  \
        for (size_t i = 0; i < count; ++i) {                               \
          b->sums[i] += (uint64_t)(int64_t)row[i];                         \
        }                                                                  \
      }                                                                    \
      return;                                                              \
    }                                                                      \
    for (size_t i = 0; i < count; ++i) {                                   \
      b->values[i] = (int64_t)x[i];                                        \
      b->indices[i] = 0;                                                   \
    }                                                                      \
    for (size_t j = 1; j < r; ++j) {                                       \
      const T *row = x + j * stride;                                       \
      for (size_t i = 0; i < count; ++i) {                                 \
        int64_t v = (int64_t)row[i];                                       \
        bool take = is_max ? v > b->values[i] : v < b->values[i];         \
        b->values[i] = take ? v : b->values[i];                            \
        b->indices[i] = take ? (int64_t)j : b->indices[i];                 \
      }                                                                    \
    }                                                                      \
  }

INT_REDUCE(uint8_t)
INT_REDUCE(int8_t)
INT_REDUCE(int16_t)
INT_REDUCE(int32_t)
INT_REDUCE(int64_t)
#undef INT_REDUCE

// Dispatches one block: `rows` outputs of a rows plan, or `count` columns
// (`stride` apart along r) of a columns plan.
static void reduce_block(etr_scalar_type_t dtype, const void *x, bool rows,
                         size_t count, size_t r, size_t stride, bool sum,
                         bool any, bool is_max, int_results_t *b) {
  switch (dtype) {
    case ETR_BYTE:
      rows ? rows_uint8_t(x, count, r, sum, any, is_max, b)
           : cols_uint8_t(x, r, count, stride, sum, any, is_max, b);
      break;
    case ETR_CHAR:
      rows ? rows_int8_t(x, count, r, sum, any, is_max, b)
           : cols_int8_t(x, r, count, stride, sum, any, is_max, b);
      break;
    case ETR_SHORT:
      rows ? rows_int16_t(x, count, r, sum, any, is_max, b)
           : cols_int16_t(x, r, count, stride, sum, any, is_max, b);
      break;
    case ETR_INT:
      rows ? rows_int32_t(x, count, r, sum, any, is_max, b)
           : cols_int32_t(x, r, count, stride, sum, any, is_max, b);
      break;
    default:
      rows ? rows_int64_t(x, count, r, sum, any, is_max, b)
           : cols_int64_t(x, r, count, stride, sum, any, is_max, b);
      break;
  }
}

// Stores outputs [first, first + count) of a block (each at its flat
// position in the outs, as the plan lays them out).
static void store_block(const etr_reduce_request_t *q, size_t first,
                        size_t count, const int_results_t *b) {
  for (size_t k = 0; k < count; ++k) {
    int64_t at = (int64_t)(first + k);
    if (q->op == ETR_REDUCE_SUM) {
      etr_store_int64(q->values->dtype, etr_element_at(q->values, at),
                      (int64_t)b->sums[k]);
      continue;
    }
    if (q->op == ETR_REDUCE_ANY) {
      ((uint8_t *)q->values->data)[at] = b->sums[k] != 0;
      continue;
    }
    if (q->values != NULL) {
      etr_store_int64(q->values->dtype, etr_element_at(q->values, at),
                      b->values[k]);
    }
    if (q->indices != NULL) {
      ((int64_t *)q->indices->data)[at] = b->indices[k];
    }
  }
}

bool etr_reduce_run_integer(const etr_reduce_request_t *q) {
  const etr_tensor_t *self = q->self;
  bool any = q->op == ETR_REDUCE_ANY;
  bool sum = q->op == ETR_REDUCE_SUM || any;
  bool extremum = q->op == ETR_REDUCE_MAX || q->op == ETR_REDUCE_MIN;
  if (!etr_int_dtype(self->dtype) || (!sum && !extremum) ||
      (q->op == ETR_REDUCE_SUM &&
       (q->values == NULL || !etr_int_dtype(q->values->dtype))) ||
      (any && (q->values == NULL || q->values->dtype != ETR_BOOL)) ||
      (extremum && q->values != NULL && q->values->dtype != self->dtype) ||
      (q->indices != NULL && q->indices->dtype != ETR_LONG)) {
    return false;
  }
  etr_tensor_t *outs[2] = {q->values, q->indices};
  etr_reduce_plan_t plan;
  if (!etr_reduce_plan_init(self, q->mask, q->keepdim, outs, 2, extremum,
                            &plan)) {
    return false;
  }
  size_t r = (size_t)plan.r;
  size_t inner = (size_t)plan.inner;
  size_t element = etr_scalar_type_size(self->dtype);
  bool is_max = q->op == ETR_REDUCE_MAX;
  int_results_t b;
  for (size_t o = 0; o < (size_t)plan.outer;) {
    const uint8_t *slab = (const uint8_t *)self->data + o * r * inner * element;
    if (inner == 1) {
      size_t rows = (size_t)plan.outer - o;
      rows = rows < kBlock ? rows : kBlock;
      reduce_block(self->dtype, slab, true, rows, r, 1, sum, any, is_max,
                   &b);
      store_block(q, o, rows, &b);
      o += rows;
      continue;
    }
    for (size_t i = 0; i < inner; i += kBlock) {
      size_t count = inner - i < kBlock ? inner - i : kBlock;
      reduce_block(self->dtype, slab + i * element, false, count, r, inner,
                   sum, any, is_max, &b);
      store_block(q, o * inner + i, count, &b);
    }
    ++o;
  }
  return true;
}
