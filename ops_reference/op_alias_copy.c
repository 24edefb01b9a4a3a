// SPDX-License-Identifier: Apache-2.0
//
// aten::alias_copy.out: out = a copy of self (alias() returns a view
// sharing self's memory; the _copy variant materializes it).
//
// Any dtype, including uint16/32/64; the out dtype must equal self's
// (InvalidArgument, as PyTorch's "Expected out tensor to have dtype").
// Non-contiguous inputs are read through their strides and the out is
// written in its own layout.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/shape.h"

// aten::alias_copy.out
etr_error_t etr_ref_alias_copy_out(etr_kernel_context_t *ctx,
                                   etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 3));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "out", &out));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_NUMERIC));
  ETR_TRY(etr_resize_out_like(ctx, out, self));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  etr_copy_strided(out, self);
  return ETR_OK;
}
