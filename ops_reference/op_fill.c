// SPDX-License-Identifier: Apache-2.0
//
// aten::fill.Scalar_out: out = a tensor of self's shape filled with value.
//
// Any dtype (uint16/32/64 and complex included); the out dtype must equal
// self's. value is converted to that dtype with PyTorch's checked
// conversion (support/movement_util.h): InvalidArgument when it overflows
// (300 into uint8, -2.5 into uint8, nan or inf into any integral dtype,
// 1e40 into Float), including for an empty self; a one-element Half or
// BFloat16 tensor takes ATen's unchecked path (1e40 gives inf). Double
// values truncate toward zero into integral dtypes; Int values wrap into
// unsigned ones (-1 into uint8 is 255). aten::fill.Tensor is not a Core
// ATen op and has no kernel here.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/movement_util.h"
#include "ops_reference/support/shape.h"

// aten::fill.Scalar_out
etr_error_t etr_ref_fill_scalar_out(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_scalar_t value;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_scalar(ctx, args, num_args, 1, "value", &value));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "out", &out));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_NUMERIC));
  ETR_TRY(etr_movement_check_fill_value(ctx, "value", &value, self->dtype,
                                        etr_numel(self)));
  ETR_TRY(etr_resize_out_like(ctx, out, self));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  uint8_t element[16];
  etr_movement_store_scalar(out->dtype, element, &value);
  etr_movement_fill(out, element);
  return ETR_OK;
}
