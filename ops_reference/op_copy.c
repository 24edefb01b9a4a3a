// SPDX-License-Identifier: Apache-2.0
//
// aten::copy.out and aten::copy_: a tensor of self's shape and dtype
// holding src broadcast to that shape and converted to self's dtype.
//
// copy.out(self, src, non_blocking, out) writes it into out (whose dtype
// must equal self's); copy_(self, src, non_blocking) writes it into self,
// the form ExecuTorch emits to write back a mutated buffer, and makes the
// return slot refer to self, as ExecuTorch's boxed in-place kernels do.
// src may have any dtype (converted with c10's casts) and any shape that
// broadcasts to self's (InvalidArgument otherwise). non_blocking has no
// effect on a CPU.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/shape.h"

// Writes src, broadcast to target's shape, into target.
static etr_error_t copy_broadcast(etr_kernel_context_t *ctx,
                                  etr_tensor_t *target,
                                  const etr_tensor_t *src) {
  ETR_TRY(etr_check_dtype(ctx, "src", src->dtype, ETR_DTYPES_NUMERIC));
  ETR_TRY(etr_check_dtype(ctx, "self", target->dtype, ETR_DTYPES_NUMERIC));
  etr_tensor_t view;
  ETR_TRY(etr_broadcast_view(ctx, src, target->dim, target->sizes, &view));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  etr_copy_strided(target, &view);
  return ETR_OK;
}

// aten::copy.out
etr_error_t etr_ref_copy_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                             size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_tensor_t *src = NULL;
  bool non_blocking = false;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 5));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "src", &src));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 2, "non_blocking",
                       &non_blocking));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "out", &out));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  ETR_TRY(etr_resize_out_like(ctx, out, self));
  return copy_broadcast(ctx, out, src);
}

// aten::copy_
etr_error_t etr_ref_copy_inplace(etr_kernel_context_t *ctx,
                                 etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_tensor_t *src = NULL;
  bool non_blocking = false;
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "src", &src));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 2, "non_blocking",
                       &non_blocking));
  ETR_CHECK(ctx->diag, args[3] != NULL, ETR_ERR_INVALID_PROGRAM,
            "%s: the return slot is missing", etr_op_name(ctx));
  ETR_TRY(copy_broadcast(ctx, self, src));
  args[3]->tag = ETR_TAG_TENSOR;
  args[3]->u.as_tensor = self;
  return ETR_OK;
}
