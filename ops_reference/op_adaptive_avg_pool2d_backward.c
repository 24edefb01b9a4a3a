// SPDX-License-Identifier: Apache-2.0
//
// aten::_adaptive_avg_pool2d_backward.out: the gradient of
// _adaptive_avg_pool2d with respect to its [N, C, H, W] or [C, H, W]
// input `self`. Output cell (oh, ow) averaged the bin rows
// floor(oh * H / OH) .. ceil((oh + 1) * H / OH) - 1 (columns likewise), so
// each input element receives grad_output / (bin height * bin width) from
// every cell whose bin holds it:
//
//   out[h, w] = sum over cells (oh, ow) with h in rows(oh), w in cols(ow)
//               of grad_output[oh, ow] / (|rows(oh)| * |cols(ow)|)
//
// computed by gathering (no scratch) in double and rounded once.
//
// Arguments: (grad_output, self, out, return slot); self's values are not
// read. InvalidArgument unless self is 3-D or 4-D with positive H and W,
// grad_output has self's rank and leading dims with every dim after the
// first positive (PyTorch reads out of bounds, or crashes, on mismatched
// leading dims or an empty self; here they are errors), and the dtypes
// agree (grad_output, self and out share one dtype).
//
// Dtypes: Half, BFloat16, Float, Double (NotSupported otherwise).
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/nn_pool.h"
#include "ops_reference/support/shape.h"

static etr_error_t check_args(etr_kernel_context_t *ctx,
                              const etr_tensor_t *grad_output,
                              const etr_tensor_t *self) {
  int32_t rank = self->dim;
  ETR_CHECK(ctx->diag,
            (rank == 3 || rank == 4) && self->sizes[rank - 2] > 0 &&
                self->sizes[rank - 1] > 0,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: expected a 3D or 4D self with non-empty H and W, got rank "
            "%d",
            etr_op_name(ctx), (int)rank);
  bool ok = grad_output->dim == rank;
  for (int32_t d = 0; ok && d < rank; ++d) {
    ok = (d >= rank - 2 || grad_output->sizes[d] == self->sizes[d]) &&
         (d == 0 || grad_output->sizes[d] > 0);
  }
  ETR_CHECK(ctx->diag, ok, ETR_ERR_INVALID_ARGUMENT,
            "%s: grad_output must have self's rank and leading dims, with "
            "non-zero sizes for non-batch dims",
            etr_op_name(ctx));
  return ETR_OK;
}

// The gradient reaching input row `h` of `in` rows from an `out`-cell
// adaptive pooling, summed over the cells whose bin holds h (bins of
// consecutive cells are ordered, so they form one run starting at
// floor(h * out / in)).
static double gather_plane(const etr_tensor_t *grad, int64_t base, int64_t h,
                           int64_t w, int64_t in_h, int64_t in_w) {
  int64_t out_h = grad->sizes[2];
  int64_t out_w = grad->sizes[3];
  double sum = 0.0;
  for (int64_t oh = etr_nn_adaptive_start(h, in_h, out_h);
       oh < out_h && etr_nn_adaptive_start(oh, out_h, in_h) <= h; ++oh) {
    int64_t rows = etr_nn_adaptive_end(oh, out_h, in_h) -
                   etr_nn_adaptive_start(oh, out_h, in_h);
    if (etr_nn_adaptive_end(oh, out_h, in_h) <= h) {
      continue;
    }
    for (int64_t ow = etr_nn_adaptive_start(w, in_w, out_w);
         ow < out_w && etr_nn_adaptive_start(ow, out_w, in_w) <= w; ++ow) {
      if (etr_nn_adaptive_end(ow, out_w, in_w) <= w) {
        continue;
      }
      int64_t cols = etr_nn_adaptive_end(ow, out_w, in_w) -
                     etr_nn_adaptive_start(ow, out_w, in_w);
      double g = etr_load_double(
          grad->dtype, etr_element_at(grad, base + oh * grad->strides[2] +
                                                ow * grad->strides[3]));
      sum += g / (double)(rows * cols);
    }
  }
  return sum;
}

// aten::_adaptive_avg_pool2d_backward.out
etr_error_t etr_ref_adaptive_avg_pool2d_backward_out(
    etr_kernel_context_t *ctx, etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *grad_output = NULL;
  etr_tensor_t *self = NULL;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "grad_output",
                         &grad_output));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "self", &self));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "out", &out));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_FLOATING));
  ETR_TRY(etr_check_dtype_equal(ctx, "grad_output", grad_output->dtype,
                                self->dtype));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  ETR_TRY(check_args(ctx, grad_output, self));
  ETR_TRY(etr_resize_out_like(ctx, out, self));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }

  etr_tensor_t grad_view;
  etr_tensor_t out_view;
  etr_nn_batched_view(grad_output, 4, &grad_view);
  etr_nn_batched_view(out, 4, &out_view);
  const etr_tensor_t *operands[1] = {&out_view};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, 4, out_view.sizes, operands, 1);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    const int64_t *index = iter.index;
    int64_t base = index[0] * grad_view.strides[0] +
                   index[1] * grad_view.strides[1];
    double value = gather_plane(&grad_view, base, index[2], index[3],
                                out_view.sizes[2], out_view.sizes[3]);
    etr_store_double(out->dtype, etr_element_at(&out_view, iter.offsets[0]),
                     value);
  }
  return ETR_OK;
}
