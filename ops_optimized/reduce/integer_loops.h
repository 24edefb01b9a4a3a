// SPDX-License-Identifier: Apache-2.0
//
// The integer reductions' loops (reduce.h's int_block), in portable C for
// the compiler to vectorize: each ISA's file includes this header and is
// compiled with its own flags (integer.c for the scalar and NEON tables,
// integer_avx2.c, integer_avx512.c), the same source at each width.
// 64-bit lane arithmetic has no instruction worth a hand-written
// microkernel; what the compiler needs is loops it can vectorize, and
// wide enough vectors (SSE2's two int64 lanes left an 8 MiB int64 row sum
// at half the bandwidth AVX2 reaches). Rows (inner == 1) reduce one output
// at a time; columns reduce up to ETR_REDUCE_INT_BLOCK outputs side by
// side, one input row after another. Semantics are the reference's: a sum
// wraps in int64 (the reference converts every element to the out dtype
// and wraps there, which gives the same low bits); any is whether an
// element is not 0; a maximum or minimum keeps the first position of its
// value (a later element replaces it only when strictly greater or less).
// Include once per translation unit, after reduce.h.
#ifndef ETR_OPS_OPTIMIZED_REDUCE_INTEGER_LOOPS_H
#define ETR_OPS_OPTIMIZED_REDUCE_INTEGER_LOOPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/scalar_type.h"
#include "ops_optimized/reduce/reduce.h"

// GCC 12 vectorizes at -O2 only loops that need no scalar epilogue: ask
// for it (clang vectorizes at -O2 already).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize")
#endif

// Row sums run in chunks of kChunk bytes, each prefetching the two lines
// kAhead bytes on: a sum does too little per line for the hardware
// prefetchers to keep up from L3 or memory. sum-rows-i64-1024 (8 MiB, Zen
// 4, paired bench_server rounds) 305-315 -> 213-224 us with SSE2; 1 and
// 4 KiB ahead did as well. The address is integer arithmetic: past the
// last row it points outside the tensor, which a prefetch may but a
// pointer may not. Each chunk is one plain sum into the row's accumulator,
// which the compiler vectorizes at the ISA's width: four interleaved
// scalar partial sums (this loop's earlier form) vectorized into
// shuffles that, with AVX2, halved its speed. With SSE2 (the scalar
// table on x86) GCC reduces each chunk's vector sum to the scalar, which
// an earlier note measured at about 26 GB/s on Zen 4; on the Zen 5 of
// this change that form ran 150-157 us against the four partials'
// 192-237 (the AVX2 and AVX-512 tables take int64 rows at 80-110 GB/s).
enum { kChunk = 128, kAhead = 2048 };

// The row and column loops per storage type.
#define ETR_INT_REDUCE(T)                                                  \
  static void rows_##T(const T *x, size_t rows, size_t n,                 \
                       etr_reduce_op_t op, etr_int_results_t *b) {        \
    for (size_t o = 0; o < rows; ++o) {                                    \
      const T *row = x + o * n;                                            \
      if (op == ETR_REDUCE_ANY) {                                          \
        uint64_t acc = 0;                                                  \
        for (size_t j = 0; j < n; ++j) {                                   \
          acc |= row[j] != 0;                                              \
        }                                                                  \
        b->sums[o] = acc;                                                  \
        continue;                                                          \
      }                                                                    \
      if (op == ETR_REDUCE_SUM) {                                          \
        uint64_t acc = 0;                                                  \
        size_t j = 0;                                                      \
        for (; j + kChunk / sizeof(T) <= n; j += kChunk / sizeof(T)) {    \
          uintptr_t ahead = (uintptr_t)(row + j) + kAhead;                \
          __builtin_prefetch((const void *)ahead, 0, 3);                   \
          __builtin_prefetch((const void *)(ahead + 64), 0, 3);            \
          const T *chunk = row + j;                                        \
          for (size_t l = 0; l < kChunk / sizeof(T); ++l) {               \
            acc += (uint64_t)(int64_t)chunk[l];                            \
          }                                                                \
        }                                                                  \
        for (; j < n; ++j) {                                               \
          acc += (uint64_t)(int64_t)row[j];                                \
        }                                                                  \
        b->sums[o] = acc;                                                  \
        continue;                                                          \
      }                                                                    \
      bool is_max = op == ETR_REDUCE_MAX;                                  \
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
                       etr_reduce_op_t op, etr_int_results_t *b) {        \
    if (op == ETR_REDUCE_SUM || op == ETR_REDUCE_ANY) {                    \
      for (size_t i = 0; i < count; ++i) {                                 \
        b->sums[i] = 0;                                                    \
      }                                                                    \
      for (size_t j = 0; j < r; ++j) {                                     \
        const T *row = x + j * stride;                                     \
        if (op == ETR_REDUCE_ANY) {                                        \
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
    bool is_max = op == ETR_REDUCE_MAX;                                    \
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

ETR_INT_REDUCE(uint8_t)
ETR_INT_REDUCE(int8_t)
ETR_INT_REDUCE(int16_t)
ETR_INT_REDUCE(int32_t)
ETR_INT_REDUCE(int64_t)
#undef ETR_INT_REDUCE

// reduce.h's int_block, which the including file names for its table.
static void int_block(etr_scalar_type_t dtype, etr_reduce_op_t op,
                      const void *x, size_t count, size_t r, size_t inner,
                      etr_int_results_t *b) {
  bool rows = inner == 1;
  switch (dtype) {
    case ETR_BYTE:
      rows ? rows_uint8_t(x, count, r, op, b)
           : cols_uint8_t(x, r, count, inner, op, b);
      break;
    case ETR_CHAR:
      rows ? rows_int8_t(x, count, r, op, b)
           : cols_int8_t(x, r, count, inner, op, b);
      break;
    case ETR_SHORT:
      rows ? rows_int16_t(x, count, r, op, b)
           : cols_int16_t(x, r, count, inner, op, b);
      break;
    case ETR_INT:
      rows ? rows_int32_t(x, count, r, op, b)
           : cols_int32_t(x, r, count, inner, op, b);
      break;
    default:
      rows ? rows_int64_t(x, count, r, op, b)
           : cols_int64_t(x, r, count, inner, op, b);
      break;
  }
}

#endif  // ETR_OPS_OPTIMIZED_REDUCE_INTEGER_LOOPS_H
