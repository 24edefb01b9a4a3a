// SPDX-License-Identifier: Apache-2.0
//
// aten::scalar_tensor.out: out = a 0-dim tensor holding s, in out's dtype.
//
// Any dtype (uint16/32/64 and complex included). s is converted with
// PyTorch's checked conversion for a one-element fill
// (support/movement_util.h): an overflowing value is InvalidArgument (300
// into uint8, nan into Int), except for Half and BFloat16, which ATen
// fills unchecked (1e40 becomes inf). The out is resized to 0 dims.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/movement_util.h"
#include "ops_reference/support/shape.h"

// aten::scalar_tensor.out
etr_error_t etr_ref_scalar_tensor_out(etr_kernel_context_t *ctx,
                                      etr_evalue_t **args, size_t num_args) {
  etr_scalar_t s;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 3));
  ETR_TRY(etr_arg_scalar(ctx, args, num_args, 0, "s", &s));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "out", &out));
  ETR_TRY(etr_check_dtype(ctx, "out", out->dtype, ETR_DTYPES_NUMERIC));
  ETR_TRY(etr_movement_check_fill_value(ctx, "s", &s, out->dtype, 1));
  ETR_TRY(etr_resize_out(ctx, out, 0, NULL));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  etr_movement_store_scalar(out->dtype, out->data, &s);  // 0 dims: 1 element
  return ETR_OK;
}
