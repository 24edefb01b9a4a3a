// SPDX-License-Identifier: Apache-2.0
//
// aten::max_pool2d_with_indices_backward.grad_input: the gradient of
// max_pool2d_with_indices with respect to its [N, C, H, W] or [C, H, W]
// input `self`: zeros, plus grad_output[n, c, oh, ow] added at flat
// position indices[n, c, oh, ow] (= h * W + w) of plane (n, c), in
// row-major output order. As in ATen's cpu_max_pool_backward, the sum is
// kept in the result dtype (a Half gradient rounds after every add, in
// the same order as PyTorch), and an index of -1 is skipped.
//
// Arguments: (grad_output, self, kernel_size, stride, padding, dilation,
// ceil_mode, indices, grad_input, return slot); self's values are not
// read. The parameter and shape rules are max_pool2d_with_indices'
// (support/pool.h); grad_output and indices must have exactly the pooled
// shape and indices must be Long (InvalidArgument). An index outside
// [0, H * W) other than -1 is InvalidArgument, found before anything is
// written: PyTorch writes outside the plane there (into the next plane's
// gradient, or out of bounds). The forward op itself produces such an
// index for a dilated window that misses the input entirely (see
// op_max_pool3d_with_indices.c); an in-plane index is used as the flat
// position it names, whatever window it came from, as in PyTorch.
//
// Dtypes: Half, BFloat16, Float, Double (PyTorch's CPU set; NotSupported
// otherwise); grad_output and grad_input have self's dtype
// (InvalidArgument).
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/nn_util.h"
#include "ops_reference/support/pool.h"
#include "ops_reference/support/shape.h"

static etr_error_t check_indices(etr_kernel_context_t *ctx,
                                 const etr_tensor_t *indices,
                                 int64_t plane) {
  const etr_tensor_t *operands[1] = {indices};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, indices->dim, indices->sizes, operands, 1);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    int64_t index =
        etr_load_int64(ETR_LONG, etr_element_at(indices, iter.offsets[0]));
    ETR_CHECK(ctx->diag, index == -1 || (index >= 0 && index < plane),
              ETR_ERR_INVALID_ARGUMENT,
              "%s: index %lld is out of range for an input plane of %lld "
              "elements",
              etr_op_name(ctx), (long long)index, (long long)plane);
  }
  return ETR_OK;
}

// aten::max_pool2d_with_indices_backward.grad_input
etr_error_t etr_ref_max_pool2d_with_indices_backward_grad_input(
    etr_kernel_context_t *ctx, etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *grad_output = NULL;
  etr_tensor_t *self = NULL;
  etr_tensor_t *indices = NULL;
  etr_tensor_t *grad_input = NULL;
  etr_pool2d_params_t p;
  ETR_TRY(etr_check_num_args(ctx, num_args, 10));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "grad_output",
                         &grad_output));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "self", &self));
  ETR_TRY(etr_pool2d_read_window(ctx, args, num_args, 2, p.kernel, p.stride,
                                 p.padding));
  ETR_TRY(etr_pool2d_read_pair(ctx, args, num_args, 5, "dilation", NULL,
                               p.dilation));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 6, "ceil_mode", &p.ceil_mode));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 7, "indices", &indices));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 8, "grad_input", &grad_input));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_FLOATING));
  ETR_TRY(etr_check_dtype_equal(ctx, "grad_output", grad_output->dtype,
                                self->dtype));
  ETR_TRY(etr_check_dtype_equal(ctx, "indices", indices->dtype, ETR_LONG));
  ETR_TRY(etr_check_dtype_equal(ctx, "grad_input", grad_input->dtype,
                                self->dtype));
  int64_t sizes[4];
  ETR_TRY(etr_pool2d_out_shape(ctx, self, &p, sizes));
  ETR_TRY(etr_nn_check_shape(ctx, "grad_output", grad_output, self->dim,
                             sizes));
  ETR_TRY(etr_nn_check_shape(ctx, "indices", indices, self->dim, sizes));
  ETR_TRY(etr_resize_out_like(ctx, grad_input, self));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }

  int64_t height = self->sizes[self->dim - 2];
  int64_t width = self->sizes[self->dim - 1];
  ETR_TRY(check_indices(ctx, indices, height * width));
  etr_tensor_t grad_view;
  etr_tensor_t indices_view;
  etr_tensor_t out_view;
  etr_nn_batched_view(grad_output, 4, &grad_view);
  etr_nn_batched_view(indices, 4, &indices_view);
  etr_nn_batched_view(grad_input, 4, &out_view);
  const etr_tensor_t *zero_operands[1] = {&out_view};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, 4, out_view.sizes, zero_operands, 1);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    etr_store_double(out_view.dtype,
                     etr_element_at(&out_view, iter.offsets[0]), 0.0);
  }
  const etr_tensor_t *operands[2] = {&grad_view, &indices_view};
  etr_strided_iter_init(&iter, 4, grad_view.sizes, operands, 2);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    int64_t index = etr_load_int64(
        ETR_LONG, etr_element_at(&indices_view, iter.offsets[1]));
    if (index == -1) {
      continue;
    }
    int64_t target = iter.index[0] * out_view.strides[0] +
                     iter.index[1] * out_view.strides[1] +
                     (index / width) * out_view.strides[2] +
                     (index % width) * out_view.strides[3];
    void *element = etr_element_at(&out_view, target);
    double g = etr_load_double(grad_view.dtype,
                               etr_element_at(&grad_view, iter.offsets[0]));
    etr_store_double(out_view.dtype, element,
                     etr_load_double(out_view.dtype, element) + g);
  }
  return ETR_OK;
}
