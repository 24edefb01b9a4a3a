// SPDX-License-Identifier: Apache-2.0
//
// logical_and/or/xor of Float, Half, BFloat16 and integer tensors (see
// bitwise.h): each operand's truth (x != 0: NaN is true, -0.0 false) as 0/1
// bytes by the comparison microkernels of ../binary/binary.h, a chunk at a time
// (Half and BFloat16 staged through fp32, exactly; uint8 and int8..int64 by
// typed loops), then the bytewise op into the Bool out. An operand constant
// along a run is one truth byte, used as the pattern.
#include <string.h>

#include "ops_optimized/binary/binary.h"
#include "ops_optimized/binary/elementwise.h"
#include "ops_optimized/binary/integer.h"
#include "ops_optimized/binary/plan.h"
#include "ops_optimized/bitwise/bitwise.h"
#include "ops_reference/support/shape.h"

// The typed loops here are written for the compiler to vectorize, which
// GCC 12 does at -O2 only for loops that need no scalar epilogue: ask for
// it (clang vectorizes at -O2 already).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize")
#endif

// Truth bytes of m integers of type T.
#define INT_TRUTH(T)                                                  \
  static void truth_##T(size_t m, const T *x, uint8_t *y) {           \
    for (size_t i = 0; i < m; ++i) {                                  \
      y[i] = x[i] != 0;                                               \
    }                                                                 \
  }
INT_TRUTH(uint8_t)
INT_TRUTH(uint16_t)
INT_TRUTH(uint32_t)
INT_TRUTH(uint64_t)
#undef INT_TRUTH

// Truth bytes of m elements of a Float/Half/BFloat16 or integer array.
static void truth(const etr_f32_binary_kernels_t *k, etr_scalar_type_t dtype,
                  size_t m, const void *x, float *staging, uint8_t *y) {
  if (etr_int_dtype(dtype)) {  // (signedness does not change x != 0)
    switch (etr_scalar_type_size(dtype)) {
      case 1:
        truth_uint8_t(m, x, y);
        return;
      case 2:
        truth_uint16_t(m, x, y);
        return;
      case 4:
        truth_uint32_t(m, x, y);
        return;
      default:
        truth_uint64_t(m, x, y);
        return;
    }
  }
  const float *values = (const float *)x;
  if (dtype != ETR_FLOAT) {
    etr_ew_to_f32(dtype, m, x, staging);
    values = staging;
  }
  k->compare_vs[ETR_COMPARE_OP_NE](m, values, 0.0f, y);
}

etr_error_t etr_logical_execute(etr_kernel_context_t *ctx,
                                      etr_bytes_op_t op,
                                      const etr_tensor_t *a,
                                      const etr_tensor_t *b,
                                      etr_tensor_t *out, bool *handled) {
  int32_t dim = 0;
  int64_t sizes[ETR_MAX_DIMS];
  *handled = false;
  if (!(etr_ew_is_float_like(a->dtype) || etr_int_dtype(a->dtype)) ||
      b->dtype != a->dtype ||
      out->dtype != ETR_BOOL ||
      !etr_plan_broadcast_shape(a->dim, a->sizes, b->dim, b->sizes, &dim,
                                sizes)) {
    return ETR_OK;
  }
  *handled = true;
  ETR_TRY(etr_resize_out(ctx, out, dim, sizes));
  if (ctx->dry_run || etr_tensor_numel(out) == 0) {
    return ETR_OK;
  }
  const etr_tensor_t *inputs[2] = {a, b};
  etr_plan_t plan;
  if (!etr_plan_init(&plan, out, inputs, 2)) {
    *handled = false;
    return ETR_OK;
  }
  const etr_f32_binary_kernels_t *compare =
      etr_f32_binary_for(etr_isa_active());
  const etr_bytes_kernels_t *bytes = etr_bytes_for(etr_isa_active());
  size_t size = etr_scalar_type_size(a->dtype);
  size_t n = (size_t)plan.run;
  float staging[ETR_EW_CHUNK];
  uint8_t truth_a[ETR_EW_CHUNK];
  uint8_t truth_b[ETR_EW_CHUNK];
  uint8_t pattern[ETR_BYTES_PATTERN];
  etr_plan_cursor_t cursor;
  etr_plan_cursor_init(&cursor);
  for (int64_t r = 0; r < plan.runs; ++r) {
    uint8_t *y = (uint8_t *)out->data + (size_t)cursor.offsets[0];
    const uint8_t *x = (const uint8_t *)a->data +
                       (size_t)cursor.offsets[1] * size;
    const uint8_t *z = (const uint8_t *)b->data +
                       (size_t)cursor.offsets[2] * size;
    // A constant operand (the ops commute): its truth as the pattern.
    const uint8_t *constant = plan.run_broadcast[1]   ? x
                              : plan.run_broadcast[2] ? z
                                                      : NULL;
    const uint8_t *vector = plan.run_broadcast[1] ? z : x;
    if (constant != NULL) {
      uint8_t one;
      truth(compare, a->dtype, 1, constant, staging, &one);
      memset(pattern, one, sizeof(pattern));
    }
    for (size_t done = 0; done < n; done += ETR_EW_CHUNK) {
      size_t m = n - done < ETR_EW_CHUNK ? n - done : ETR_EW_CHUNK;
      truth(compare, a->dtype, m, vector + done * size, staging, truth_a);
      if (constant != NULL) {
        bytes->vp[op](m, truth_a, pattern, y + done);
      } else {
        truth(compare, a->dtype, m, z + done * size, staging, truth_b);
        bytes->vv[op](m, truth_a, truth_b, y + done);
      }
    }
    etr_plan_cursor_next(&cursor, &plan);
  }
  return ETR_OK;
}
