// SPDX-License-Identifier: Apache-2.0
//
// The driver of the optimized _cdist_forward kernel (see distance.h).
#include <math.h>
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

bool etr_cdist_run(const etr_tensor_t *x1, const etr_tensor_t *x2, double p,
                   etr_tensor_t *out) {
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

bool etr_pdist_run(const etr_tensor_t *self, double p, etr_tensor_t *out) {
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
