// SPDX-License-Identifier: Apache-2.0
//
// aten::view_copy.out: out = self reshaped to `size` (row-major element
// order kept; a copy, not a view).
//
// One entry of `size` may be -1 and is inferred; the element counts must
// agree. InvalidArgument for a second -1, another negative size, a count
// mismatch ("shape '[2, 4]' is invalid for input of size 6") or a -1 that
// a zero-sized shape makes ambiguous. Any dtype; the out dtype must equal
// self's. Reads honour self's strides, so a non-contiguous self is
// reshaped by logical order.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/shape.h"

// PyTorch's infer_size: fills `sizes` from `requested`, resolving one -1.
static etr_error_t infer_size(etr_kernel_context_t *ctx,
                              const int64_t *requested, size_t count,
                              int64_t numel, int64_t *sizes) {
  int64_t known = 1;
  int inferred = -1;
  for (size_t i = 0; i < count; ++i) {
    if (requested[i] == -1) {
      ETR_CHECK(ctx->diag, inferred < 0, ETR_ERR_INVALID_ARGUMENT,
                "%s: only one dimension can be inferred", etr_op_name(ctx));
      inferred = (int)i;
      continue;
    }
    ETR_CHECK(ctx->diag, requested[i] >= 0, ETR_ERR_INVALID_ARGUMENT,
              "%s: invalid shape dimension %lld", etr_op_name(ctx),
              (long long)requested[i]);
    ETR_CHECK(ctx->diag, !__builtin_mul_overflow(known, requested[i], &known),
              ETR_ERR_INVALID_ARGUMENT, "%s: shape overflows",
              etr_op_name(ctx));
    sizes[i] = requested[i];
  }
  if (inferred >= 0) {
    ETR_CHECK(ctx->diag, known != 0, ETR_ERR_INVALID_ARGUMENT,
              "%s: cannot reshape tensor of %lld elements into a shape with "
              "a zero and a -1: the -1 is ambiguous",
              etr_op_name(ctx), (long long)numel);
    ETR_CHECK(ctx->diag, numel % known == 0, ETR_ERR_INVALID_ARGUMENT,
              "%s: shape is invalid for input of size %lld",
              etr_op_name(ctx), (long long)numel);
    sizes[inferred] = numel / known;
    known = numel;
  }
  ETR_CHECK(ctx->diag, known == numel, ETR_ERR_INVALID_ARGUMENT,
            "%s: shape of %lld elements is invalid for input of size %lld",
            etr_op_name(ctx), (long long)known, (long long)numel);
  return ETR_OK;
}

// aten::view_copy.out
etr_error_t etr_ref_view_copy_out(etr_kernel_context_t *ctx,
                                  etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = NULL;
  const int64_t *requested = NULL;
  size_t count = 0;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, 1, "size", &requested,
                           &count));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "out", &out));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  ETR_CHECK(ctx->diag, count <= ETR_MAX_DIMS, ETR_ERR_INVALID_ARGUMENT,
            "%s: size has %zu entries, more than %d", etr_op_name(ctx), count,
            ETR_MAX_DIMS);
  int64_t sizes[ETR_MAX_DIMS];
  ETR_TRY(infer_size(ctx, requested, count, etr_numel(self), sizes));
  ETR_TRY(etr_resize_out(ctx, out, (int32_t)count, sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  etr_copy_reshaped(out, self);
  return ETR_OK;
}
