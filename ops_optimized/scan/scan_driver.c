// SPDX-License-Identifier: Apache-2.0
//
// Drivers of the optimized cumsum and prod kernels (see scan.h): the
// [outer, r, inner] view of a dense input, fp32 work to the microkernels
// of the active ISA (Half and BFloat16 staged through fp32 in ctx->temp,
// reduce.h's etr_stage_through_f32), integer work, row scans and the
// 16-bit dtypes' float-accumulated scans in portable C.
#include <string.h>

#include "ops_optimized/reduce/reduce.h"
#include "ops_optimized/scan/scan.h"
#include "ops_reference/support/shape.h"

// The column scans here are written for the compiler to vectorize, which
// GCC 12 does at -O2 only for loops that need no scalar epilogue: ask for
// it (clang vectorizes at -O2 already).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize")
#endif

// self and out dense, with the same dim order (so the same strides).
static bool same_dense_layout(const etr_tensor_t *self,
                              const etr_tensor_t *out) {
  return etr_tensor_is_dense(self) && etr_tensor_is_dense(out) &&
         out->dim == self->dim &&
         memcmp(out->dim_order, self->dim_order, (size_t)self->dim) == 0;
}

// Row scans of fp32 in double, four rows at a time so the four
// dependency chains overlap (each row in the reference's order).
static void cumsum_rows_f32(size_t rows, size_t n, const float *x,
                            float *y) {
  size_t o = 0;
  for (; o + 4 <= rows; o += 4) {
    double a0 = 0.0, a1 = 0.0, a2 = 0.0, a3 = 0.0;
    const float *x0 = x + o * n;
    float *y0 = y + o * n;
    for (size_t i = 0; i < n; ++i) {
      a0 += (double)x0[i];
      a1 += (double)x0[n + i];
      a2 += (double)x0[2 * n + i];
      a3 += (double)x0[3 * n + i];
      y0[i] = (float)a0;
      y0[n + i] = (float)a1;
      y0[2 * n + i] = (float)a2;
      y0[3 * n + i] = (float)a3;
    }
  }
  for (; o < rows; ++o) {
    double acc = 0.0;
    for (size_t i = 0; i < n; ++i) {
      acc += (double)x[o * n + i];
      y[o * n + i] = (float)acc;
    }
  }
}

// Wrapping integer scans of [outer, r, inner] (4- or 8-byte elements).
static void cumsum_int(size_t element_size, size_t outer, size_t r,
                       size_t inner, const void *x, void *y) {
  for (size_t o = 0; o < outer; ++o) {
    for (size_t j = 0; j < r; ++j) {
      size_t at = (o * r + j) * inner;
      for (size_t i = 0; i < inner; ++i) {
        if (element_size == 8) {
          uint64_t previous =
              j == 0 ? 0 : ((const uint64_t *)y)[at - inner + i];
          ((uint64_t *)y)[at + i] =
              previous + ((const uint64_t *)x)[at + i];
        } else {
          uint32_t previous =
              j == 0 ? 0 : ((const uint32_t *)y)[at - inner + i];
          ((uint32_t *)y)[at + i] =
              previous + ((const uint32_t *)x)[at + i];
        }
      }
    }
  }
}

// The fp32 scans of [outer, r, inner].
static void cumsum_f32(size_t outer, size_t r, size_t inner, const float *x,
                       float *y) {
  if (inner == 1) {
    cumsum_rows_f32(outer, r, x, y);
    return;
  }
  const etr_scan_kernels_t *k = etr_scan_kernels_for(etr_isa_active());
  for (size_t o = 0; o < outer; ++o) {
    k->cumsum_cols(r, inner, inner, x + o * r * inner, y + o * r * inner);
  }
}

// The scans of staged Half or BFloat16 values of [outer, r, inner] summed
// in float, ATen's accumulation type for them (and the reference's): each
// partial sum rounded to float, then (by the stager) to the dtype. In the
// reference's order, so bit-exact; y may be x.
static void cumsum_f32_in_float(size_t outer, size_t r, size_t inner,
                                const float *x, float *y) {
  if (inner == 1) {
    for (size_t o = 0; o < outer; ++o) {
      float acc = 0.0f;
      for (size_t i = 0; i < r; ++i) {
        acc += x[o * r + i];
        y[o * r + i] = acc;
      }
    }
    return;
  }
  for (size_t o = 0; o < outer; ++o) {
    const float *xs = x + o * r * inner;
    float *ys = y + o * r * inner;
    for (size_t i = 0; i < inner; ++i) {
      ys[i] = 0.0f + xs[i];  // a -0.0 first element sums to +0.0
    }
    for (size_t j = 1; j < r; ++j) {
      for (size_t i = 0; i < inner; ++i) {
        ys[j * inner + i] = ys[(j - 1) * inner + i] + xs[j * inner + i];
      }
    }
  }
}

// The fp32 products of [outer, r, inner] over r into [outer, inner].
static void prod_f32(size_t outer, size_t r, size_t inner, const float *x,
                     float *y) {
  const etr_scan_kernels_t *k = etr_scan_kernels_for(etr_isa_active());
  enum { kBlock = 256 };
  double products[kBlock];
  if (inner == 1) {
    for (size_t o0 = 0; o0 < outer; o0 += kBlock) {
      size_t count = outer - o0 < kBlock ? outer - o0 : kBlock;
      k->prod_rows(count, r, x + o0 * r, products);
      for (size_t o = 0; o < count; ++o) {
        y[o0 + o] = (float)products[o];
      }
    }
    return;
  }
  for (size_t o = 0; o < outer; ++o) {
    for (size_t i0 = 0; i0 < inner; i0 += kBlock) {
      size_t count = inner - i0 < kBlock ? inner - i0 : kBlock;
      k->prod_cols(r, count, inner, x + o * r * inner + i0, products);
      for (size_t i = 0; i < count; ++i) {
        y[o * inner + i0 + i] = (float)products[i];
      }
    }
  }
}

// A Float scan or product of [outer, r, inner], or a Half/BFloat16 one
// staged through fp32 a chunk of outer slabs at a time (whose scans sum
// in float).
typedef struct scan_job {
  bool prod, float_sums;
  size_t r, inner;
} scan_job_t;

static bool scan_chunk(void *state, size_t first, size_t count,
                       const float *x, float *y) {
  (void)first;
  const scan_job_t *job = (const scan_job_t *)state;
  if (job->prod) {
    prod_f32(count, job->r, job->inner, x, y);
  } else if (job->float_sums) {
    cumsum_f32_in_float(count, job->r, job->inner, x, y);
  } else {
    cumsum_f32(count, job->r, job->inner, x, y);
  }
  return true;
}

static bool run_f32_like(etr_arena_t *temp, bool prod, size_t outer,
                         size_t r, size_t inner, const etr_tensor_t *self,
                         etr_tensor_t *out) {
  scan_job_t job = {prod, self->dtype != ETR_FLOAT, r, inner};
  if (self->dtype == ETR_FLOAT) {
    return scan_chunk(&job, 0, outer, self->data, out->data);
  }
  return etr_stage_through_f32(temp, self->dtype, outer, r * inner,
                               prod ? inner : r * inner, self->data,
                               out->data, scan_chunk, &job);
}

bool etr_cumsum_run(etr_arena_t *temp, const etr_tensor_t *self, int32_t dim,
                    etr_tensor_t *out) {
  bool supported = (etr_reduce_is_f32_like(self->dtype) ||
                    self->dtype == ETR_LONG || self->dtype == ETR_INT) &&
                   out->dtype == self->dtype;
  if (!supported || !same_dense_layout(self, out)) {
    return false;
  }
  size_t numel = (size_t)etr_numel(self);
  if (numel == 0) {
    return true;  // nothing to write
  }
  size_t r = self->dim > 0 ? (size_t)self->sizes[dim] : 1;
  size_t inner = self->dim > 0 ? (size_t)self->strides[dim] : 1;
  size_t outer = numel / (r * inner);
  if (!etr_reduce_is_f32_like(self->dtype)) {
    cumsum_int(etr_scalar_type_size(self->dtype), outer, r, inner,
               self->data, out->data);
    return true;
  }
  return run_f32_like(temp, false, outer, r, inner, self, out);
}

bool etr_prod_run(etr_arena_t *temp, const etr_tensor_t *self, uint32_t mask,
                  bool keepdim, etr_tensor_t *out) {
  bool supported = (etr_reduce_is_f32_like(self->dtype) ||
                    self->dtype == ETR_LONG) &&
                   out->dtype == self->dtype && self->dim > 0;
  etr_tensor_t *outs[1] = {out};
  etr_reduce_plan_t plan;
  if (!supported ||
      !etr_reduce_plan_init(self, mask, keepdim, outs, 1, true, &plan)) {
    return false;
  }
  size_t outer = (size_t)plan.outer;
  size_t r = (size_t)plan.r;
  size_t inner = (size_t)plan.inner;
  if (self->dtype == ETR_LONG) {
    const uint64_t *x = (const uint64_t *)self->data;
    uint64_t *y = (uint64_t *)out->data;
    for (size_t o = 0; o < outer; ++o) {
      for (size_t i = 0; i < inner; ++i) {
        y[o * inner + i] = 1;
      }
      for (size_t j = 0; j < r; ++j) {
        const uint64_t *row = x + (o * r + j) * inner;
        for (size_t i = 0; i < inner; ++i) {
          y[o * inner + i] *= row[i];
        }
      }
    }
    return true;
  }
  return run_f32_like(temp, true, outer, r, inner, self, out);
}
