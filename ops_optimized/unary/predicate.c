// SPDX-License-Identifier: Apache-2.0
//
// Unary predicates with a Bool out (see predicate.h).
#include "ops_optimized/unary/predicate.h"

#include <math.h>
#include <string.h>

#include "ops_optimized/binary/binary.h"
#include "ops_optimized/binary/elementwise.h"
#include "ops_optimized/binary/plan.h"
#include "ops_optimized/bitwise/bitwise.h"
#include "ops_optimized/unary/unary.h"
#include "ops_reference/support/shape.h"

// n fp32 values (in `buffer` when staged, which the abs may overwrite).
static void predicate_run(etr_predicate_t predicate,
                          const etr_f32_binary_kernels_t *k, size_t n,
                          const float *x, float *scratch, uint8_t *y) {
  switch (predicate) {
    case ETR_PREDICATE_ISNAN:
      k->compare_vv[ETR_COMPARE_OP_NE](n, x, x, y);
      break;
    case ETR_PREDICATE_ISINF:
      etr_f32_unary_op_for(ETR_UNARY_ABS, etr_isa_active())(n, x, scratch,
                                                            NULL);
      k->compare_vs[ETR_COMPARE_OP_EQ](n, scratch, INFINITY, y);
      break;
    default:
      k->compare_vs[ETR_COMPARE_OP_EQ](n, x, 0.0f, y);
      break;
  }
}

etr_error_t etr_predicate_execute(etr_kernel_context_t *ctx,
                                  etr_predicate_t predicate,
                                  const etr_tensor_t *self,
                                  etr_tensor_t *out, bool *handled) {
  *handled = false;
  bool floating = etr_ew_is_float_like(self->dtype);
  if (out->dtype != ETR_BOOL ||
      !(floating || (predicate != ETR_PREDICATE_IS_ZERO &&
                     etr_bytes_dtype(self->dtype)))) {
    return ETR_OK;
  }
  *handled = true;
  ETR_TRY(etr_resize_out_like(ctx, out, self));
  if (ctx->dry_run || etr_tensor_numel(out) == 0) {
    return ETR_OK;
  }
  etr_plan_t plan;
  const etr_tensor_t *inputs[1] = {self};
  if (!etr_plan_init(&plan, out, inputs, 1)) {
    *handled = false;
    return ETR_OK;
  }
  if (!floating) {  // out is dense (planned): all false
    memset(out->data, 0, (size_t)etr_tensor_numel(out));
    return ETR_OK;
  }
  const etr_f32_binary_kernels_t *k = etr_f32_binary_for(etr_isa_active());
  size_t element = etr_scalar_type_size(self->dtype);
  size_t n = (size_t)plan.run;
  float buffer[ETR_EW_CHUNK];
  float scratch[ETR_EW_CHUNK];
  etr_plan_cursor_t cursor;
  etr_plan_cursor_init(&cursor);
  for (int64_t r = 0; r < plan.runs; ++r) {
    const uint8_t *x = (const uint8_t *)self->data +
                       (size_t)cursor.offsets[1] * element;
    uint8_t *y = (uint8_t *)out->data + (size_t)cursor.offsets[0];
    for (size_t done = 0; done < n; done += ETR_EW_CHUNK) {
      size_t m = n - done < ETR_EW_CHUNK ? n - done : ETR_EW_CHUNK;
      const float *values = (const float *)x + done;
      if (self->dtype != ETR_FLOAT) {
        etr_ew_to_f32(self->dtype, m, x + done * element, buffer);
        values = buffer;
      }
      predicate_run(predicate, k, m, values, scratch, y + done);
    }
    etr_plan_cursor_next(&cursor, &plan);
  }
  return ETR_OK;
}
