// SPDX-License-Identifier: Apache-2.0
//
// The driver of the optimized _cdist_forward kernel (see distance.h).
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "ops_optimized/distance/distance.h"
#include "ops_reference/support/shape.h"

// The reference's row_distance for p = 0 and general p (sequential, so
// bit-exact), on contiguous fp32 rows.
static double general_distance(size_t n, const float *a, const float *b,
                               double p) {
  double total = 0.0;
  for (size_t i = 0; i < n; ++i) {
    double d = (double)a[i] - (double)b[i];
    if (p == 0.0) {
      total += isnan(d) ? NAN : (d != 0.0 ? 1.0 : 0.0);
    } else {
      total += pow(fabs(d), p);
    }
  }
  return p == 0.0 ? total : pow(total, 1.0 / p);
}

// The row length of the transposed rows for `count` of them: a whole
// number of 16-column blocks, plus 8 doubles so that the rows do not all
// fall in a few L1 sets (a 4 KiB row length put the 64 rows of a block in
// one: 64 x 512 cdist ran at 64% of its time in this kernel).
static size_t padded_ld(size_t count) { return (count + 15) / 16 * 16 + 8; }

// The rows_x x n floats of x as doubles into rows (row-major), and the
// first `columns` of them transposed into bt (n x ld, zeros past
// `columns`, to ld).
static void to_doubles(size_t rows_x, size_t n, const float *x,
                       double *rows, size_t columns, const float *y,
                       double *bt, size_t ld) {
  for (size_t e = 0; e < rows_x * n; ++e) {
    rows[e] = (double)x[e];
  }
  for (size_t j = 0; j < ld; ++j) {
    for (size_t i = 0; i < n; ++i) {
      bt[i * ld + j] = j < columns ? (double)y[j * n + i] : 0.0;
    }
  }
}

// One batch of cdist by the ISA's pairs_block: x1's rows converted to
// doubles in `rows` (rows1 x n), x2's transposed in bt (n x ld, zeros
// past rows2), then blocks of 8 rows of x1 by 16 of x2, column blocks
// outer so that a block's 16 columns of bt stay in L1 while x1 passes.
static void cdist_blocks(const etr_distance_kernels_t *k,
                         etr_distance_norm_t norm, size_t rows1,
                         size_t rows2, size_t n, const float *a,
                         const float *b, double *bt, size_t ld,
                         double *rows, float *y) {
  to_doubles(rows1, n, a, rows, rows2, b, bt, ld);
  for (size_t j0 = 0; j0 < rows2; j0 += 16) {
    size_t count = rows2 - j0 < 16 ? rows2 - j0 : 16;
    for (size_t i0 = 0; i0 < rows1; i0 += 8) {
      size_t block = rows1 - i0 < 8 ? rows1 - i0 : 8;
      k->pairs_block(norm, block, count, n, rows + i0 * n, bt + j0, ld,
                     y + i0 * rows2 + j0, rows2);
    }
  }
}

bool etr_cdist_run(etr_arena_t *scratch, const etr_tensor_t *x1,
                   const etr_tensor_t *x2, double p, etr_tensor_t *out) {
  if (x1->dtype != ETR_FLOAT || x2->dtype != ETR_FLOAT ||
      out->dtype != ETR_FLOAT || x1->dim != x2->dim ||
      !etr_tensor_is_contiguous(x1) || !etr_tensor_is_contiguous(x2) ||
      !etr_tensor_is_contiguous(out) || out->dim != x1->dim) {
    return false;
  }
  int32_t rank = x1->dim;
  size_t batch = 1;
  for (int32_t d = 0; d < rank - 2; ++d) {
    if (x1->sizes[d] != x2->sizes[d]) {
      return false;  // broadcast batch dims: left to the reference
    }
    batch *= (size_t)x1->sizes[d];
  }
  size_t rows1 = (size_t)x1->sizes[rank - 2];
  size_t rows2 = (size_t)x2->sizes[rank - 2];
  size_t columns = (size_t)x1->sizes[rank - 1];
  const etr_distance_kernels_t *k =
      etr_distance_kernels_for(etr_isa_active());
  const float *a = (const float *)x1->data;
  const float *b = (const float *)x2->data;
  float *y = (float *)out->data;
  // The blocked path: p = 2, 1 or inf, scratch for a batch's rows as
  // doubles (x2's transposed: n x ld; x1's: rows1 x n).
  size_t ld = padded_ld(rows2);
  double *bt = NULL;
  double *rows = NULL;
  if (k->pairs_block != NULL && scratch != NULL && columns > 0 &&
      rows1 > 0 && rows2 > 0 && (p == 2.0 || p == 1.0 || isinf(p)) &&
      columns <= SIZE_MAX / sizeof(double) / (ld + rows1)) {
    bt = etr_arena_alloc(scratch, columns * ld * sizeof(double), 64);
    rows = etr_arena_alloc(scratch, columns * rows1 * sizeof(double), 64);
  }
  if (bt != NULL && rows != NULL) {
    etr_distance_norm_t norm = p == 2.0   ? ETR_DISTANCE_P2
                               : p == 1.0 ? ETR_DISTANCE_P1
                                          : ETR_DISTANCE_INF;
    for (size_t n = 0; n < batch; ++n) {
      cdist_blocks(k, norm, rows1, rows2, columns, a + n * rows1 * columns,
                   b + n * rows2 * columns, bt, ld, rows,
                   y + n * rows1 * rows2);
    }
    return true;
  }
  for (size_t n = 0; n < batch; ++n) {
    for (size_t i = 0; i < rows1; ++i) {
      const float *row1 = a + (n * rows1 + i) * columns;
      float *out_row = y + (n * rows1 + i) * rows2;
      for (size_t j = 0; j < rows2; ++j) {
        const float *row2 = b + (n * rows2 + j) * columns;
        double distance = 0.0;
        if (p == 2.0) {
          distance = sqrt(k->sum_sq(columns, row1, row2));
        } else if (p == 1.0) {
          distance = k->sum_abs(columns, row1, row2);
        } else if (isinf(p)) {
          distance = k->max_abs(columns, row1, row2);
        } else {
          distance = general_distance(columns, row1, row2, p);
        }
        out_row[j] = (float)distance;
      }
    }
  }
  return true;
}

// The reference's pdist pair distance for p = 0, +-inf (NaN propagating,
// unlike cdist) and general p: sequential, bit-exact.
static double pdist_general(size_t n, const float *a, const float *b,
                            double p) {
  double total = 0.0;
  for (size_t i = 0; i < n; ++i) {
    double d = (double)a[i] - (double)b[i];
    double magnitude = fabs(d);
    if (p == 0.0) {
      total += isnan(d) ? NAN : (d != 0.0 ? 1.0 : 0.0);
    } else if (isinf(p)) {
      total = (isnan(magnitude) || magnitude > total) ? magnitude : total;
      if (isnan(total)) {
        break;
      }
    } else {
      total += pow(magnitude, p);
    }
  }
  return (p == 0.0 || isinf(p)) ? total : pow(total, 1.0 / p);
}

// pdist by the ISA's pairs_block: the rows as doubles (rows x n) and
// transposed (n x ld), then the blocks of 8 rows by 16 that hold a pair
// i < j, each into a tile whose pairs i < j are copied to their places
// in the out (row i's pairs start at i (2 rows - i - 1) / 2).
static void pdist_blocks(const etr_distance_kernels_t *k,
                         etr_distance_norm_t norm, size_t rows_count,
                         size_t n, const float *x, double *bt, size_t ld,
                         double *rows, float *y) {
  to_doubles(rows_count, n, x, rows, rows_count, x, bt, ld);
  float tile[8 * 16];
  for (size_t i0 = 0; i0 < rows_count; i0 += 8) {
    size_t block = rows_count - i0 < 8 ? rows_count - i0 : 8;
    for (size_t j0 = (i0 + 1) / 16 * 16; j0 < rows_count; j0 += 16) {
      size_t count = rows_count - j0 < 16 ? rows_count - j0 : 16;
      k->pairs_block(norm, block, count, n, rows + i0 * n, bt + j0, ld,
                     tile, 16);
      for (size_t r = 0; r < block; ++r) {
        size_t i = i0 + r;
        size_t first = i + 1 > j0 ? i + 1 : j0;
        size_t at = i * (2 * rows_count - i - 1) / 2;  // pair (i, i + 1)
        for (size_t j = first; j < j0 + count; ++j) {
          y[at + (j - i - 1)] = tile[r * 16 + (j - j0)];
        }
      }
    }
  }
}

bool etr_pdist_run(etr_arena_t *scratch, const etr_tensor_t *self, double p,
                   etr_tensor_t *out) {
  if (self->dtype != ETR_FLOAT || out->dtype != ETR_FLOAT ||
      self->dim != 2 || !etr_tensor_is_contiguous(self) || out->dim != 1 ||
      !etr_tensor_is_contiguous(out)) {
    return false;
  }
  size_t rows = (size_t)self->sizes[0];
  size_t columns = (size_t)self->sizes[1];
  const etr_distance_kernels_t *k =
      etr_distance_kernels_for(etr_isa_active());
  const float *x = (const float *)self->data;
  float *y = (float *)out->data;
  size_t ld = padded_ld(rows);
  double *bt = NULL;
  double *converted = NULL;
  if (k->pairs_block != NULL && scratch != NULL && columns > 0 &&
      rows > 1 && (p == 2.0 || p == 1.0) &&
      columns <= SIZE_MAX / sizeof(double) / (ld + rows)) {
    bt = etr_arena_alloc(scratch, columns * ld * sizeof(double), 64);
    converted = etr_arena_alloc(scratch, columns * rows * sizeof(double), 64);
  }
  if (bt != NULL && converted != NULL) {
    pdist_blocks(k, p == 2.0 ? ETR_DISTANCE_P2 : ETR_DISTANCE_P1, rows,
                 columns, x, bt, ld, converted, y);
    return true;
  }
  size_t at = 0;
  for (size_t i = 0; i < rows; ++i) {
    for (size_t j = i + 1; j < rows; ++j, ++at) {
      const float *a = x + i * columns;
      const float *b = x + j * columns;
      double distance = p == 2.0   ? sqrt(k->sum_sq(columns, a, b))
                        : p == 1.0 ? k->sum_abs(columns, a, b)
                                   : pdist_general(columns, a, b, p);
      y[at] = (float)distance;
    }
  }
  return true;
}
