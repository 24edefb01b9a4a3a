// SPDX-License-Identifier: Apache-2.0
//
// The unary driver (see unary_driver.h).
#include "ops_optimized/unary/unary_driver.h"

#include "ops_optimized/binary/elementwise.h"
#include "ops_optimized/binary/integer.h"
#include "ops_optimized/binary/plan.h"
#include "ops_optimized/bitwise/bitwise.h"
#include "ops_optimized/common/args.h"
#include "ops_optimized/common/dense.h"
#include "ops_optimized/common/memo.h"
#include "ops_reference/support/shape.h"

bool etr_unary_case(const etr_tensor_t *self, const etr_tensor_t *out) {
  return self != NULL && out != NULL && etr_ew_is_float_like(self->dtype) &&
         out->dtype == self->dtype;
}

// Whether self and out are Float, dense and row-major with `*numel`
// elements each (out resized like self: element i of one is element i of
// the other), in place or apart: one kernel call over the whole tensor.
static bool dense_f32(const etr_tensor_t *self, const etr_tensor_t *out,
                      int64_t *numel) {
  int64_t out_numel = 0;
  return self->dtype == ETR_FLOAT && etr_dense_row_major(self, numel) &&
         etr_dense_row_major(out, &out_numel) && *numel == out_numel &&
         (self->data == out->data ||
          etr_dense_disjoint(self->data, (size_t)*numel * sizeof(float),
                             out->data, (size_t)*numel * sizeof(float)));
}

etr_error_t etr_unary_execute(etr_kernel_context_t *ctx, etr_unary_op_t op,
                              const etr_unary_params_t *params,
                              const etr_tensor_t *self, etr_tensor_t *out,
                              bool *handled) {
  *handled = true;
  ETR_TRY(etr_resize_out_like(ctx, out, self));
  if (ctx->dry_run || etr_tensor_numel(out) == 0) {
    return ETR_OK;
  }
  // Dense Float: one kernel call, no plan (a 16-element clamp spent a
  // quarter of its ~120 ns planning).
  int64_t numel = 0;
  if (dense_f32(self, out, &numel)) {
    etr_f32_unary_op_for(op, etr_isa_active())(
        (size_t)numel, (const float *)self->data, (float *)out->data,
        params);
    return ETR_OK;
  }
  etr_plan_t plan;
  const etr_tensor_t *inputs[1] = {self};
  if (!etr_plan_init(&plan, out, inputs, 1)) {
    *handled = false;
    return ETR_OK;
  }
  etr_f32_unary_op_fn kernel = etr_f32_unary_op_for(op, etr_isa_active());
  size_t element = etr_scalar_type_size(self->dtype);
  size_t n = (size_t)plan.run;
  etr_plan_cursor_t cursor;
  etr_plan_cursor_init(&cursor);
  for (int64_t r = 0; r < plan.runs; ++r) {
    const uint8_t *x = (const uint8_t *)self->data +
                       (size_t)cursor.offsets[1] * element;
    uint8_t *y = (uint8_t *)out->data + (size_t)cursor.offsets[0] * element;
    if (self->dtype == ETR_FLOAT) {
      kernel(n, (const float *)x, (float *)y, params);
    } else {
      float buffer[ETR_EW_CHUNK];
      for (size_t done = 0; done < n; done += ETR_EW_CHUNK) {
        size_t m = n - done < ETR_EW_CHUNK ? n - done : ETR_EW_CHUNK;
        etr_ew_to_f32(self->dtype, m, x + done * element, buffer);
        kernel(m, buffer, buffer, params);
        etr_ew_from_f32(self->dtype, m, buffer, y + done * element);
      }
    }
    etr_plan_cursor_next(&cursor, &plan);
  }
  return ETR_OK;
}

// What etr_unary_execute_kept concluded on an instruction's fixed
// arguments, kept in ctx->memo: a dense Float call of `op` with these
// params (none for the ops etr_unary_simple runs) on `numel` elements. A
// vouched call (ctx->args_checked: the same tensors, shapes and data
// pointers) then makes that one kernel call and nothing else (a 16-element
// clamp spent about 20 of its 40 ns reading and checking its bounds on
// every call).
typedef struct unary_kept {
  uint32_t mark;  // UNARY_KEPT_MARK once written
  etr_unary_op_t op;
  bool has_params;
  etr_unary_params_t params;
  size_t numel;
} unary_kept_t;

enum { UNARY_KEPT_MARK = 0x756e6b32 };  // "unk2"

_Static_assert(sizeof(unary_kept_t) <= ETR_KERNEL_MEMO_BYTES,
               "unary_kept_t must fit a kernel memo");

etr_error_t etr_unary_execute_kept(etr_kernel_context_t *ctx,
                                   etr_unary_op_t op,
                                   const etr_unary_params_t *params,
                                   const etr_tensor_t *self, etr_tensor_t *out,
                                   bool *handled) {
  etr_error_t status = etr_unary_execute(ctx, op, params, self, out, handled);
  int64_t numel = 0;
  if (status == ETR_OK && *handled && ctx->memo != NULL && !ctx->dry_run &&
      dense_f32(self, out, &numel)) {
    unary_kept_t kept = {.mark = UNARY_KEPT_MARK,
                         .op = op,
                         .has_params = params != NULL,
                         .numel = (size_t)numel};
    if (params != NULL) {
      kept.params = *params;
    }
    *(unary_kept_t *)ctx->memo = kept;
  }
  return status;
}

bool etr_unary_kept_run(const etr_kernel_context_t *ctx, etr_evalue_t **args,
                        size_t self_index, size_t out_index) {
  const unary_kept_t *kept = etr_opt_vouched_memo(ctx, UNARY_KEPT_MARK);
  if (kept == NULL) {
    return false;
  }
  etr_f32_unary_op_for(kept->op, etr_isa_active())(
      kept->numel, (const float *)args[self_index]->u.as_tensor->data,
      (float *)args[out_index]->u.as_tensor->data,
      kept->has_params ? &kept->params : NULL);
  return true;
}

etr_error_t etr_unary_simple(etr_kernel_context_t *ctx, etr_evalue_t **args,
                             size_t num_args, etr_unary_op_t op,
                             bool *handled) {
  if (etr_unary_kept_run(ctx, args, 0, 1)) {
    *handled = true;
    return ETR_OK;
  }
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 1);
  *handled = false;
  if (num_args != 3 || !etr_unary_case(self, out)) {
    return ETR_OK;
  }
  return etr_unary_execute_kept(ctx, op, NULL, self, out, handled);
}

etr_error_t etr_unary_rounding(etr_kernel_context_t *ctx, etr_evalue_t **args,
                               size_t num_args, etr_unary_op_t op,
                               bool *handled) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 1);
  if (num_args == 3 && self != NULL && out != NULL &&
      out->dtype == self->dtype && etr_int_dtype(self->dtype)) {
    etr_bytes_call_t copy = {.op = ETR_BYTES_XOR, .a = self, .out = out};
    *handled = false;
    etr_error_t status = etr_bytes_execute(ctx, &copy, handled);
    if (*handled) {
      return status;
    }
  }
  return etr_unary_simple(ctx, args, num_args, op, handled);
}
