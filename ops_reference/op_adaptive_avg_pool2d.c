// SPDX-License-Identifier: Apache-2.0
//
// aten::_adaptive_avg_pool2d.out: averages a [N, C, H, W] or [C, H, W]
// input into an output_size [OH, OW] grid, output cell (oh, ow) covering
// rows floor(oh * H / OH) .. ceil((oh + 1) * H / OH) - 1 (and likewise for
// columns), ATen's start_index/end_index.
//
// Checks in PyTorch 2.13's order: output_size must hold two sizes; self
// must be 3-D or 4-D with non-zero H and W (the batch and the channels
// may be 0: a [2, 0, 4, 4] input gives a [2, 0, OH, OW] out); the sizes
// must not be negative (all InvalidArgument; PyTorch fails on most
// negative sizes and makes tensors with a negative size from the others).
// Then the dtype: Half, BFloat16, Float, Double (NotSupported otherwise),
// but only when the out has elements, since ATen dispatches on the dtype
// only then (an Int, Bool or complex input with C = 0 is fine); out must
// have self's dtype (InvalidArgument). Sums accumulate in double.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/nn_pool.h"
#include "ops_reference/support/pool.h"
#include "ops_reference/support/shape.h"

// aten::_adaptive_avg_pool2d.out
etr_error_t etr_ref_adaptive_avg_pool2d_out(etr_kernel_context_t *ctx,
                                            etr_evalue_t **args,
                                            size_t num_args) {
  etr_tensor_t *self = NULL;
  const int64_t *output_size = NULL;
  size_t count = 0;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, 1, "output_size",
                           &output_size, &count));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "out", &out));
  ETR_CHECK(ctx->diag, count == 2, ETR_ERR_INVALID_ARGUMENT,
            "%s: output_size must be 2", etr_op_name(ctx));
  bool spatial_ok = self->dim == 3 || self->dim == 4;
  for (int32_t d = self->dim - 2; spatial_ok && d < self->dim; ++d) {
    spatial_ok = self->sizes[d] > 0;
  }
  ETR_CHECK(ctx->diag, spatial_ok, ETR_ERR_INVALID_ARGUMENT,
            "%s: expected a 3-D or 4-D input with non-zero H and W, got "
            "rank %d",
            etr_op_name(ctx), (int)self->dim);
  ETR_CHECK(ctx->diag, output_size[0] >= 0 && output_size[1] >= 0,
            ETR_ERR_INVALID_ARGUMENT, "%s: output_size must not be negative",
            etr_op_name(ctx));
  int64_t sizes[4];
  int64_t out_numel = 1;
  for (int32_t d = 0; d < self->dim - 2; ++d) {
    sizes[d] = self->sizes[d];
    out_numel = etr_saturating_mul(out_numel, sizes[d]);
  }
  sizes[self->dim - 2] = output_size[0];
  sizes[self->dim - 1] = output_size[1];
  out_numel = etr_saturating_mul(
      out_numel, etr_saturating_mul(output_size[0], output_size[1]));
  if (out_numel > 0) {
    ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_FLOATING));
  }
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  ETR_TRY(etr_resize_out(ctx, out, self->dim, sizes));
  if (ctx->dry_run || out_numel == 0) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }

  etr_tensor_t in;
  etr_tensor_t out_view;
  etr_pool2d_batched_view(self, &in);
  etr_pool2d_batched_view(out, &out_view);
  const etr_tensor_t *operands[1] = {&out_view};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, 4, out_view.sizes, operands, 1);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    const int64_t *index = iter.index;
    int64_t h0 = etr_nn_adaptive_start(index[2], output_size[0], in.sizes[2]);
    int64_t h1 = etr_nn_adaptive_end(index[2], output_size[0], in.sizes[2]);
    int64_t w0 = etr_nn_adaptive_start(index[3], output_size[1], in.sizes[3]);
    int64_t w1 = etr_nn_adaptive_end(index[3], output_size[1], in.sizes[3]);
    int64_t base = index[0] * in.strides[0] + index[1] * in.strides[1];
    double sum = 0.0;
    for (int64_t h = h0; h < h1; ++h) {
      for (int64_t w = w0; w < w1; ++w) {
        sum += etr_load_double(
            in.dtype,
            etr_element_at(&in, base + h * in.strides[2] + w * in.strides[3]));
      }
    }
    etr_store_double(out->dtype, etr_element_at(&out_view, iter.offsets[0]),
                     sum / (double)((h1 - h0) * (w1 - w0)));
  }
  return ETR_OK;
}
