// SPDX-License-Identifier: Apache-2.0
//
// The bytewise driver and probe (see bitwise.h).
#include <string.h>

#include "ops_optimized/binary/elementwise.h"
#include "ops_optimized/binary/integer.h"
#include "ops_optimized/binary/plan.h"
#include "ops_optimized/bitwise/bitwise.h"
#include "ops_optimized/common/args.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/shape.h"

bool etr_bytes_dtype(etr_scalar_type_t dtype) {
  return dtype == ETR_BOOL || etr_int_dtype(dtype);
}

bool etr_bytes_binary_probe(const etr_kernel_context_t *ctx,
                            etr_evalue_t **args, size_t num_args,
                            bool scalar_other, bool logical,
                            etr_bytes_call_t *call) {
  memset(call, 0, sizeof(*call));
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  call->out = etr_opt_tensor_arg(args, num_args, 2);
  if (num_args != 4 || self == NULL || call->out == NULL ||
      call->out->dtype != self->dtype ||
      !(logical ? self->dtype == ETR_BOOL : etr_bytes_dtype(self->dtype))) {
    return false;
  }
  call->a = self;
  if (!scalar_other) {
    call->b = etr_opt_tensor_arg(args, num_args, 1);
    return call->b != NULL && call->b->dtype == self->dtype;
  }
  etr_scalar_t scalar;
  etr_scalar_type_t result;
  etr_kernel_context_t probe = etr_ew_probe_context(ctx);
  if (!etr_ew_scalar_arg(ctx, args, num_args, 1, &scalar) ||
      scalar.kind == ETR_SCALAR_DOUBLE ||
      etr_result_type_tensor_scalar(&probe, self, &scalar, &result) !=
          ETR_OK ||
      result != self->dtype) {
    return false;
  }
  // Little-endian: the low bytes of the wrapped int64 are the element.
  int64_t wrapped = etr_wrap_int64(result, scalar.as_int);
  memcpy(call->value, &wrapped, sizeof(call->value));
  return true;
}

// `element` (size bytes) repeated over a pattern.
static void fill_pattern(uint8_t *pattern, const uint8_t *element,
                         size_t size) {
  for (size_t i = 0; i < ETR_BYTES_PATTERN; i += size) {
    memcpy(pattern + i, element, size);
  }
}

etr_error_t etr_bytes_execute(etr_kernel_context_t *ctx,
                              const etr_bytes_call_t *call, bool *handled) {
  const etr_tensor_t *a = call->a;
  const etr_tensor_t *b = call->b;
  etr_tensor_t *out = call->out;
  int32_t dim = a->dim;
  int64_t sizes[ETR_MAX_DIMS];
  *handled = false;
  if (b != NULL) {
    if (!etr_plan_broadcast_shape(a->dim, a->sizes, b->dim, b->sizes, &dim,
                                  sizes)) {
      return ETR_OK;
    }
  } else {
    memcpy(sizes, a->sizes, (size_t)a->dim * sizeof(int64_t));
  }
  *handled = true;
  ETR_TRY(etr_resize_out(ctx, out, dim, sizes));
  if (ctx->dry_run || etr_tensor_numel(out) == 0) {
    return ETR_OK;
  }
  const etr_tensor_t *inputs[2] = {a, b};
  etr_plan_t plan;
  if (!etr_plan_init(&plan, out, inputs, b != NULL ? 2 : 1)) {
    *handled = false;
    return ETR_OK;
  }
  const etr_bytes_kernels_t *k = etr_bytes_for(etr_isa_active());
  size_t size = etr_scalar_type_size(a->dtype);
  size_t n = (size_t)plan.run * size;
  uint8_t pattern[ETR_BYTES_PATTERN];
  if (b == NULL) {
    fill_pattern(pattern, call->value, size);
  }
  etr_plan_cursor_t cursor;
  etr_plan_cursor_init(&cursor);
  for (int64_t r = 0; r < plan.runs; ++r) {
    uint8_t *y = (uint8_t *)out->data + (size_t)cursor.offsets[0] * size;
    const uint8_t *x = (const uint8_t *)a->data +
                       (size_t)cursor.offsets[1] * size;
    if (b == NULL) {
      k->vp[call->op](n, x, pattern, y);
    } else {
      const uint8_t *z = (const uint8_t *)b->data +
                         (size_t)cursor.offsets[2] * size;
      // The ops commute: a broadcast operand becomes the pattern.
      if (plan.run_broadcast[1]) {
        fill_pattern(pattern, x, size);
        k->vp[call->op](n, z, pattern, y);
      } else if (plan.run_broadcast[2]) {
        fill_pattern(pattern, z, size);
        k->vp[call->op](n, x, pattern, y);
      } else {
        k->vv[call->op](n, x, z, y);
      }
    }
    etr_plan_cursor_next(&cursor, &plan);
  }
  return ETR_OK;
}

etr_error_t etr_bytes_binary_op(etr_kernel_context_t *ctx,
                                etr_evalue_t **args, size_t num_args,
                                etr_bytes_op_t op, etr_bytes_form_t form,
                                bool *handled) {
  *handled = false;
  const bool logical = form == ETR_BYTES_LOGICAL;
  etr_bytes_call_t call;
  if (etr_bytes_binary_probe(ctx, args, num_args, form == ETR_BYTES_SCALAR,
                             logical, &call)) {
    call.op = op;
    return etr_bytes_execute(ctx, &call, handled);
  }
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *other = etr_opt_tensor_arg(args, num_args, 1);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 2);
  if (!logical || num_args != 4 || self == NULL || other == NULL ||
      out == NULL) {
    return ETR_OK;
  }
  return etr_logical_execute(ctx, op, self, other, out, handled);
}
