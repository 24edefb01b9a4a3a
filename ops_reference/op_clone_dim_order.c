// SPDX-License-Identifier: Apache-2.0
//
// dim_order_ops::_clone_dim_order.out: out = a copy of self laid out in
// `dim_order` (ExecuTorch's replacement for aten::clone with a memory
// format).
//
// Schema: (self, *, non_blocking=False, dim_order=None, out). Any dtype;
// the out dtype must equal self's. When dim_order is given it must be the
// out tensor's dim order (InvalidArgument otherwise); the copy is by
// logical position, so contiguous <-> channels-last conversions are plain
// copies here.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/shape.h"

// dim_order_ops::_clone_dim_order.out
etr_error_t etr_ref_clone_dim_order_out(etr_kernel_context_t *ctx,
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
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  ETR_TRY(etr_resize_out_like(ctx, out, self));
  ETR_TRY(etr_check_dim_order_arg(ctx, dim_order, length, has_dim_order,
                                  self->dim, out));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  etr_copy_strided(out, self);
  return ETR_OK;
}
