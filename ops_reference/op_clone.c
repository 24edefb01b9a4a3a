// SPDX-License-Identifier: Apache-2.0
//
// aten::clone.out: out = a copy of self.
//
// Any dtype; the out dtype must equal self's (InvalidArgument). The out
// tensor's layout is the one memory planning gave it, so `memory_format`
// only has to be a valid c10::MemoryFormat (0 contiguous, 1 preserve,
// 2 channels-last, 3 channels-last-3d) or None; values are copied by
// logical position whatever the two layouts are.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/shape.h"

// aten::clone.out
etr_error_t etr_ref_clone_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                              size_t num_args) {
  etr_tensor_t *self = NULL;
  bool has_format = false;
  int64_t memory_format = 0;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_optional_int(ctx, args, num_args, 1, "memory_format",
                               &has_format, &memory_format));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "out", &out));
  ETR_CHECK(ctx->diag,
            !has_format || (memory_format >= 0 && memory_format <= 3),
            ETR_ERR_INVALID_ARGUMENT, "%s: %lld is not a memory format",
            etr_op_name(ctx), (long long)memory_format);
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  ETR_TRY(etr_resize_out_like(ctx, out, self));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  etr_copy_strided(out, self);
  return ETR_OK;
}
