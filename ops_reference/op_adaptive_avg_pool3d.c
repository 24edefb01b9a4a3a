// SPDX-License-Identifier: Apache-2.0
//
// aten::_adaptive_avg_pool3d.out: averages a [N, C, D, H, W] or
// [C, D, H, W] input into an output_size [OD, OH, OW] grid; output cell
// (od, oh, ow) covers the bins floor(o * in / out) .. ceil((o + 1) * in /
// out) - 1 along each dim (ATen's start_index/end_index). Sums accumulate
// in double.
//
// Arguments: (self, output_size, out, return slot). output_size must hold
// three non-negative sizes (a 0 gives an empty out); self must be 4-D or
// 5-D with every dim after the first positive: as in ATen, a 4-D input
// may have C = 0 (InvalidArgument otherwise).
//
// Dtypes: Half, BFloat16, Float, Double (NotSupported otherwise); out has
// self's dtype (InvalidArgument). Any layout in and out.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/nn_pool.h"
#include "ops_reference/support/shape.h"

// aten::_adaptive_avg_pool3d.out
etr_error_t etr_ref_adaptive_avg_pool3d_out(etr_kernel_context_t *ctx,
                                            etr_evalue_t **args,
                                            size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_tensor_t *out = NULL;
  int64_t output_size[3];
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_nn_read_ints(ctx, args, num_args, 1, "output_size", 3, false,
                           NULL, output_size));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "out", &out));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_FLOATING));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  bool ok = self->dim == 4 || self->dim == 5;
  for (int32_t d = 1; ok && d < self->dim; ++d) {
    ok = self->sizes[d] > 0;
  }
  ETR_CHECK(ctx->diag, ok, ETR_ERR_INVALID_ARGUMENT,
            "%s: expected a 4D or 5D input with non-zero sizes after the "
            "first dim, got rank %d",
            etr_op_name(ctx), (int)self->dim);
  int64_t sizes[5];
  for (int32_t d = 0; d < self->dim; ++d) {
    sizes[d] = self->sizes[d];
  }
  for (int32_t s = 0; s < 3; ++s) {
    ETR_CHECK(ctx->diag, output_size[s] >= 0, ETR_ERR_INVALID_ARGUMENT,
              "%s: elements of output_size must be non-negative, got %lld",
              etr_op_name(ctx), (long long)output_size[s]);
    sizes[self->dim - 3 + s] = output_size[s];
  }
  ETR_TRY(etr_resize_out(ctx, out, self->dim, sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }

  etr_tensor_t in_view;
  etr_tensor_t out_view;
  etr_nn_batched_view(self, 5, &in_view);
  etr_nn_batched_view(out, 5, &out_view);
  etr_nn_adaptive_avg_pool(&in_view, &out_view);
  return ETR_OK;
}
