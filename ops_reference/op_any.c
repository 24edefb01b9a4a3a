// SPDX-License-Identifier: Apache-2.0
//
// aten::any.all_out: out (0-dim) = True when any element of self is
// non-zero (NaN counts as non-zero; an empty self gives False).
//
// Any real, Bool, complex or uint16/32/64 self. The out dtype must be Bool or uint8
// (PyTorch: "any only supports bool tensor for result"; InvalidArgument
// otherwise); uint8 holds 0/1.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/shape.h"

// aten::any.all_out
etr_error_t etr_ref_any_all_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                                size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 3));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "out", &out));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_NUMERIC));
  ETR_CHECK(ctx->diag, out->dtype == ETR_BOOL || out->dtype == ETR_BYTE,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: any only supports bool tensor for result, got: %s",
            etr_op_name(ctx), etr_scalar_type_name(out->dtype));
  ETR_TRY(etr_resize_out(ctx, out, 0, NULL));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  bool any = false;
  const etr_tensor_t *operands[1] = {self};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, self->dim, self->sizes, operands, 1);
  for (; !any && !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    any = etr_load_bool(self->dtype, etr_element_at(self, iter.offsets[0]));
  }
  etr_store_int64(out->dtype, out->data, any ? 1 : 0);
  return ETR_OK;
}
