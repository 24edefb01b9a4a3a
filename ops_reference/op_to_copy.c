// SPDX-License-Identifier: Apache-2.0
//
// aten::_to_copy.out: out = self converted to out's dtype (the dtype the
// exporter asked for is the out tensor's).
//
// Any dtype to any dtype, with c10's conversions (support/element.h:
// floats truncate toward zero into integers, anything non-zero is True,
// complex to real keeps the real part). memory_format must be None or a
// valid c10::MemoryFormat (0..3); the out layout is the planned one and
// values are copied by logical position. InvalidArgument for a bad
// memory_format or an out too small.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/shape.h"

// aten::_to_copy.out
etr_error_t etr_ref_to_copy_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                                size_t num_args) {
  etr_tensor_t *self = NULL;
  bool non_blocking = false;
  bool has_format = false;
  int64_t memory_format = 0;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 5));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 1, "non_blocking",
                       &non_blocking));
  ETR_TRY(etr_arg_optional_int(ctx, args, num_args, 2, "memory_format",
                               &has_format, &memory_format));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "out", &out));
  ETR_CHECK(ctx->diag,
            !has_format || (memory_format >= 0 && memory_format <= 3),
            ETR_ERR_INVALID_ARGUMENT, "%s: %lld is not a memory format",
            etr_op_name(ctx), (long long)memory_format);
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_NUMERIC));
  ETR_TRY(etr_check_dtype(ctx, "out", out->dtype, ETR_DTYPES_NUMERIC));
  ETR_TRY(etr_resize_out_like(ctx, out, self));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  etr_copy_strided(out, self);
  return ETR_OK;
}
