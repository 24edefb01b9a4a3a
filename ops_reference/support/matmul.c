// SPDX-License-Identifier: Apache-2.0
//
// The reference matrix product (see matmul.h): a plain triple loop.
#include "ops_reference/support/matmul.h"

#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"

static const void *at2(const etr_tensor_t *t, int64_t i, int64_t j) {
  return etr_element_at(t, i * t->strides[0] + j * t->strides[1]);
}

static int64_t scalar_as_int(const etr_scalar_t *scalar) {
  return scalar->kind == ETR_SCALAR_DOUBLE
             ? etr_double_to_int64(scalar->as_double)
             : scalar->as_int;
}

void etr_matmul(etr_tensor_t *out, const etr_tensor_t *a,
                const etr_tensor_t *b, const etr_tensor_t *bias,
                const etr_scalar_t *alpha, const etr_scalar_t *beta) {
  etr_scalar_type_t dtype = out->dtype;
  etr_dtype_kind_t kind = etr_dtype_kind(dtype);
  int64_t rows = out->sizes[0];
  int64_t cols = out->sizes[1];
  int64_t inner = a->sizes[1];
  bool use_bias = bias != NULL && beta->as_double != 0.0;
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < cols; ++j) {
      void *target = etr_element_at(out, i * out->strides[0] +
                                             j * out->strides[1]);
      if (kind == ETR_KIND_COMPLEX) {
        etr_complex_t sum = {0.0, 0.0};
        for (int64_t k = 0; k < inner; ++k) {
          etr_complex_t x = etr_load_complex(dtype, at2(a, i, k));
          etr_complex_t y = etr_load_complex(dtype, at2(b, k, j));
          sum.real += x.real * y.real - x.imag * y.imag;
          sum.imag += x.real * y.imag + x.imag * y.real;
        }
        etr_complex_t result = {alpha->as_double * sum.real,
                                alpha->as_double * sum.imag};
        if (use_bias) {
          etr_complex_t c = etr_load_complex(dtype, at2(bias, i, j));
          result.real += beta->as_double * c.real;
          result.imag += beta->as_double * c.imag;
        }
        etr_store_complex(dtype, target, result);
      } else if (kind == ETR_KIND_FLOATING) {
        double sum = 0.0;
        for (int64_t k = 0; k < inner; ++k) {
          sum += etr_load_double(dtype, at2(a, i, k)) *
                 etr_load_double(dtype, at2(b, k, j));
        }
        double result = alpha->as_double * sum;
        if (use_bias) {
          result += beta->as_double * etr_load_double(dtype, at2(bias, i, j));
        }
        etr_store_double(dtype, target, result);
      } else {
        uint64_t sum = 0;
        for (int64_t k = 0; k < inner; ++k) {
          sum += (uint64_t)etr_load_int64(dtype, at2(a, i, k)) *
                 (uint64_t)etr_load_int64(dtype, at2(b, k, j));
        }
        uint64_t result = (uint64_t)scalar_as_int(alpha) * sum;
        if (use_bias) {
          result += (uint64_t)scalar_as_int(beta) *
                    (uint64_t)etr_load_int64(dtype, at2(bias, i, j));
        }
        etr_store_int64(dtype, target, (int64_t)result);
      }
    }
  }
}
