// SPDX-License-Identifier: Apache-2.0
//
// aten::adaptive_avg_pool1d.out: averages a [N, C, L] or [C, L] input into
// output_size[0] cells; cell o covers floor(o * L / out) .. ceil((o + 1)
// * L / out) - 1 (ATen's start_index/end_index). Sums accumulate in
// double.
//
// ATen computes it as adaptive_avg_pool2d over a [.., 1, L] view, which
// only requires the spatial dims to be non-empty: L must be positive
// while C and N may be 0 (an empty out). Arguments: (self, output_size,
// out, return slot); output_size holds exactly one non-negative size and
// self is 2-D or 3-D (InvalidArgument otherwise).
//
// Dtypes: Half, BFloat16, Float, Double (NotSupported otherwise), checked
// only when the out has elements (ATen's 2-D kernel dispatches on the
// dtype only then: an Int input with C = 0 or output_size 0 is fine in
// PyTorch 2.13); out has self's dtype (InvalidArgument), checked after.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/nn_pool.h"
#include "ops_reference/support/shape.h"

// aten::adaptive_avg_pool1d.out
etr_error_t etr_ref_adaptive_avg_pool1d_out(etr_kernel_context_t *ctx,
                                            etr_evalue_t **args,
                                            size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_tensor_t *out = NULL;
  int64_t output_size = 0;
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 1, "output_size", 1, false,
                           NULL, &output_size));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "out", &out));
  ETR_CHECK(ctx->diag,
            (self->dim == 2 || self->dim == 3) &&
                self->sizes[self->dim - 1] > 0,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: expected a 2D or 3D input with a non-empty last dim, got "
            "rank %d",
            etr_op_name(ctx), (int)self->dim);
  ETR_CHECK(ctx->diag, output_size >= 0, ETR_ERR_INVALID_ARGUMENT,
            "%s: output_size must be non-negative, got %lld",
            etr_op_name(ctx), (long long)output_size);
  int64_t sizes[3];
  for (int32_t d = 0; d < self->dim; ++d) {
    sizes[d] = self->sizes[d];
  }
  sizes[self->dim - 1] = output_size;
  int64_t out_numel = 1;
  for (int32_t d = 0; d < self->dim; ++d) {
    out_numel = etr_saturating_mul(out_numel, sizes[d]);
  }
  if (out_numel > 0) {
    ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_FLOATING));
  }
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  ETR_TRY(etr_resize_out(ctx, out, self->dim, sizes));
  if (ctx->dry_run || out_numel == 0) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }

  etr_tensor_t in_view;
  etr_tensor_t out_view;
  etr_nn_batched_view(self, 3, &in_view);
  etr_nn_batched_view(out, 3, &out_view);
  etr_nn_adaptive_avg_pool(&in_view, &out_view);
  return ETR_OK;
}
