// SPDX-License-Identifier: Apache-2.0
//
// dim_order_ops::_to_dim_order_copy.out: out = self converted to out's
// dtype and laid out in `dim_order` (ExecuTorch's replacement for
// aten::_to_copy with a memory format).
//
// Schema: (self, *, non_blocking=False, dim_order=None, out). Any dtype
// to any dtype with c10's conversions. When dim_order is given it must be
// the out tensor's dim order (InvalidArgument otherwise); the copy is by
// logical position, so any input layout may go into any out layout.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/shape.h"

// dim_order_ops::_to_dim_order_copy.out
etr_error_t etr_ref_to_dim_order_copy_out(etr_kernel_context_t *ctx,
                                          etr_evalue_t **args,
                                          size_t num_args) {
  etr_tensor_t *self = NULL;
  bool non_blocking = false;
  bool has_dim_order = false;
  const int64_t *dim_order = NULL;
  size_t length = 0;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 5));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 1, "non_blocking",
                       &non_blocking));
  ETR_TRY(etr_arg_optional_int_list(ctx, args, num_args, 2, "dim_order",
                                    &has_dim_order, &dim_order, &length));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "out", &out));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_NUMERIC));
  ETR_TRY(etr_check_dtype(ctx, "out", out->dtype, ETR_DTYPES_NUMERIC));
  ETR_TRY(etr_resize_out_like(ctx, out, self));
  ETR_TRY(etr_check_dim_order_arg(ctx, dim_order, length, has_dim_order,
                                  self->dim, out));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  etr_copy_strided(out, self);
  return ETR_OK;
}
