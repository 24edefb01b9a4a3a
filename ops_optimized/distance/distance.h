// SPDX-License-Identifier: Apache-2.0
//
// Row-distance microkernels (fp32 rows, double accumulation, one table per
// ISA) and the drivers of the optimized _cdist_forward and _pdist_forward
// kernels.
//
// Each kernel reduces the differences d = (double)a[i] - (double)b[i] of
// two rows of n floats -- the very doubles the reference forms -- in
// several vector lanes combined at the end:
//   sum_sq    sum of d^2 (p = 2, before the square root);
//   sum_abs   sum of |d| (p = 1);
//   max_abs   max of |d| ignoring NaN (p = inf; ATen's std::max), 0 when
//             n = 0 or every d is NaN.
// Sums in another order than the reference's sequential one: the same for
// integer data (every partial sum exact), else within gamma_n of it in
// double, so the fp32 result is the reference's or one ulp away. max_abs
// is exact. Tails are masked or scalar: nothing past a row is read.
#ifndef ETR_OPS_OPTIMIZED_DISTANCE_DISTANCE_H
#define ETR_OPS_OPTIMIZED_DISTANCE_DISTANCE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/arena.h"
#include "core/tensor.h"
#include "ops_optimized/isa.h"

typedef enum etr_distance_norm {
  ETR_DISTANCE_P2,   // sqrt of sum_sq
  ETR_DISTANCE_P1,   // sum_abs
  ETR_DISTANCE_INF,  // max_abs
} etr_distance_norm_t;

typedef struct etr_distance_kernels {
  double (*sum_sq)(size_t n, const float *a, const float *b);
  double (*sum_abs)(size_t n, const float *a, const float *b);
  double (*max_abs)(size_t n, const float *a, const float *b);
  // Many pairs at once (NULL where the ISA has no such kernel): the
  // distances of `rows` (1 to 8) rows of n doubles at a (row r at a + r
  // n: x1's rows, converted) to `count` (1 to 16) rows held transposed at
  // bt (element i of row j at bt[i * ld + j]; 16 columns readable, those
  // past count zeros or anything), as `norm` reduces them, rounded to
  // float into y[r * y_stride + j], j < count. Each pair's sums in
  // another order, or fused, than the kernels above: the same bounds.
  void (*pairs_block)(etr_distance_norm_t norm, size_t rows, size_t count,
                      size_t n, const double *a, const double *bt,
                      size_t ld, float *y, size_t y_stride);
} etr_distance_kernels_t;

// For the ISA files' pairs_block: defines pairs_rows_<ROWS>(norm, count,
// n, a, bt, ld, y, y_stride), which calls the file's always-inline
// pairs_rows(norm, ROWS, ...) with the norm and the row count as
// constants, one specialization per norm.
#define ETR_DISTANCE_PAIRS_ROWS_FOR(ROWS)                                  \
  static void pairs_rows_##ROWS(etr_distance_norm_t norm, size_t count,    \
                                size_t n, const double *a,                 \
                                const double *bt, size_t ld, float *y,     \
                                size_t y_stride) {                         \
    if (norm == ETR_DISTANCE_P2) {                                         \
      pairs_rows(ETR_DISTANCE_P2, ROWS, count, n, a, bt, ld, y, y_stride); \
    } else if (norm == ETR_DISTANCE_P1) {                                  \
      pairs_rows(ETR_DISTANCE_P1, ROWS, count, n, a, bt, ld, y, y_stride); \
    } else {                                                               \
      pairs_rows(ETR_DISTANCE_INF, ROWS, count, n, a, bt, ld, y,           \
                 y_stride);                                                \
    }                                                                      \
  }

extern const etr_distance_kernels_t etr_distance_kernels_scalar;
extern const etr_distance_kernels_t etr_distance_kernels_avx2;
extern const etr_distance_kernels_t etr_distance_kernels_avx512;
extern const etr_distance_kernels_t etr_distance_kernels_neon;

// The table for `isa` (scalar when that ISA is not built in).
const etr_distance_kernels_t *etr_distance_kernels_for(etr_isa_t isa);

// out[b, i, j] = the p-norm distance of row i of x1[b] and row j of x2[b]
// for contiguous Float x1 [..., R1, C], x2 [..., R2, C] with the same
// batch dims and a contiguous Float out already resized by the reference
// (its dry run checked the call). p = 1, 2 and inf run the kernels above;
// p = 0 and other p run the reference's sequential formulas in portable C
// (bit-exact). False, with nothing written, for other cases (broadcast
// batch dims, other dtypes or layouts).
// With an ISA's pairs_block and room in `scratch` (may be NULL), p = 1, 2
// and inf run it on blocks of 8 rows of x1 by 16 of x2 (x2 transposed to
// doubles once per batch).
bool etr_cdist_run(etr_arena_t *scratch, const etr_tensor_t *x1,
                   const etr_tensor_t *x2, double p, etr_tensor_t *out);

// out[k] = the p-norm distance of rows i < j of a contiguous Float self
// [N, M], pairs in pdist's order, into a contiguous Float out resized by
// the reference: p = 1 and 2 on the kernels above, p = 0, +-inf (NaN
// propagating, pdist's rule) and other p sequentially as the reference
// (bit-exact). False, with nothing written, for other cases.
// With an ISA's pairs_block and room in `scratch` (may be NULL), p = 2
// and 1 run it on blocks of 8 rows by 16.
bool etr_pdist_run(etr_arena_t *scratch, const etr_tensor_t *self, double p,
                   etr_tensor_t *out);

#endif  // ETR_OPS_OPTIMIZED_DISTANCE_DISTANCE_H
