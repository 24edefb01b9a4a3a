// SPDX-License-Identifier: Apache-2.0
//
// The conversion driver (cast.h): checks that self and out can be walked
// as two flat arrays in the same order, then converts them with the
// active ISA's microkernel for the pair (the scalar one where that ISA has
// none).
#include "ops_optimized/cast/cast.h"
#include "ops_optimized/unary/unary.h"

static bool byte_ranges_overlap(const etr_tensor_t *a, const etr_tensor_t *b) {
  const uint8_t *a_begin = (const uint8_t *)a->data;
  const uint8_t *b_begin = (const uint8_t *)b->data;
  return a_begin < b_begin + etr_tensor_nbytes(b) &&
         b_begin < a_begin + etr_tensor_nbytes(a);
}

// Dense, same shape, the same strides wherever a stride matters.
static bool same_dense_layout(const etr_tensor_t *self,
                              const etr_tensor_t *out) {
  if (!etr_tensor_same_shape(self, out) || !etr_tensor_is_dense(self) ||
      !etr_tensor_is_dense(out)) {
    return false;
  }
  for (int32_t d = 0; d < self->dim; ++d) {
    if (self->sizes[d] > 1 && self->strides[d] != out->strides[d]) {
      return false;
    }
  }
  return true;
}

static void bool_to_f32(size_t n, const uint8_t *x, float *y) {
  for (size_t i = 0; i < n; ++i) {
    y[i] = x[i] != 0 ? 1.0f : 0.0f;
  }
}

static void f32_to_bool(size_t n, const float *x, uint8_t *y) {
  for (size_t i = 0; i < n; ++i) {
    y[i] = x[i] != 0.0f ? 1 : 0;  // NaN != 0: true, as the reference
  }
}

bool etr_cast_run(const etr_tensor_t *self, etr_tensor_t *out) {
  bool from_float = self->dtype == ETR_FLOAT;
  etr_scalar_type_t other = from_float ? out->dtype : self->dtype;
  if ((!from_float && out->dtype != ETR_FLOAT) || other == ETR_FLOAT ||
      (other != ETR_LONG && other != ETR_INT && other != ETR_BOOL &&
       other != ETR_HALF && other != ETR_BFLOAT16) ||
      !same_dense_layout(self, out)) {
    return false;
  }
  size_t n = (size_t)etr_tensor_numel(self);
  if (n == 0) {
    return true;
  }
  if (self->data == NULL || out->data == NULL ||
      byte_ranges_overlap(self, out)) {
    return false;
  }
  etr_isa_t isa = etr_isa_active();
  const etr_cast_kernels_t *k = etr_cast_kernels_for(isa);
  const etr_cast_kernels_t *portable = &etr_cast_kernels_scalar;
  const etr_f32_convert_kernels_t *half = etr_f32_convert_for(isa);
  const void *x = self->data;
  void *y = out->data;
  switch (other) {
    case ETR_LONG:
      if (from_float) {
        (k->f32_to_i64 ? k->f32_to_i64 : portable->f32_to_i64)(n, x, y);
      } else {
        (k->i64_to_f32 ? k->i64_to_f32 : portable->i64_to_f32)(n, x, y);
      }
      return true;
    case ETR_INT:
      if (from_float) {
        (k->f32_to_i32 ? k->f32_to_i32 : portable->f32_to_i32)(n, x, y);
      } else {
        (k->i32_to_f32 ? k->i32_to_f32 : portable->i32_to_f32)(n, x, y);
      }
      return true;
    case ETR_BOOL:
      if (from_float) {
        f32_to_bool(n, x, y);
      } else {
        bool_to_f32(n, x, y);
      }
      return true;
    case ETR_HALF:
      if (from_float) {
        half->to_f16(n, x, y);
      } else {
        half->from_f16(n, x, y);
      }
      return true;
    case ETR_BFLOAT16:
      if (from_float) {
        half->to_bf16(n, x, y);
      } else {
        half->from_bf16(n, x, y);
      }
      return true;
    default:
      return false;
  }
}
