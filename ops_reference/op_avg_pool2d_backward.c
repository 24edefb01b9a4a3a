// SPDX-License-Identifier: Apache-2.0
//
// aten::avg_pool2d_backward.grad_input: the gradient of avg_pool2d with
// respect to its [N, C, H, W] or [C, H, W] input `self`. Every output
// cell spreads grad_output / divisor over the input positions of its
// window (clipped to the input), with avg_pool2d's divisor (the override,
// or the padded window count with count_include_pad, or the positions
// inside); the kernel gathers, for each input position, the cells whose
// window holds it:
//
//   grad_input[h, w] = sum over (oh, ow) with h in window(oh) and w in
//                      window(ow) of grad_output[oh, ow] / divisor(oh, ow)
//
// Floating dtypes sum in double and round once; Long divides each term
// with truncation toward zero before summing (ATen's integer kernel:
// [[7, -7], [3, 4]] over 2x2 windows gives 1, -1, 0, 1 per window).
//
// Arguments: (grad_output, self, kernel_size, stride, padding, ceil_mode,
// count_include_pad, divisor_override?, grad_input, return slot); self's
// values are not read. The parameter and shape rules are avg_pool2d's
// (support/pool.h), divisor_override must not be 0, and grad_output must
// have exactly the shape avg_pool2d gives self (InvalidArgument).
//
// Dtypes: Half, BFloat16, Float, Double and Long (NotSupported
// otherwise); grad_output and grad_input have self's dtype
// (InvalidArgument).
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/nn_pool.h"
#include "ops_reference/support/pool.h"
#include "ops_reference/support/shape.h"

typedef struct backward_args {
  etr_nn_pool_t pool;
  etr_nn_avg_options_t options;
} backward_args_t;

// The range of output cells along spatial dim s whose window holds input
// position `i`: [*lo, *hi).
static void cells_holding(const etr_nn_pool_t *pool, int32_t s, int64_t i,
                          int64_t out_size, int64_t *lo, int64_t *hi) {
  int64_t shifted = i + pool->padding[s];  // o * stride <= shifted
  int64_t first =
      etr_nn_floor_div(shifted - pool->kernel[s], pool->stride[s]) + 1;
  int64_t last = etr_nn_floor_div(shifted, pool->stride[s]);
  *lo = first > 0 ? first : 0;
  *hi = last + 1 < out_size ? last + 1 : out_size;
}

static void gather_one(const etr_tensor_t *grad, const etr_tensor_t *in,
                       const backward_args_t *a, const int64_t *index,
                       etr_tensor_t *out, int64_t out_offset) {
  bool floating = etr_dtype_kind(grad->dtype) == ETR_KIND_FLOATING;
  int64_t lo[2];
  int64_t hi[2];
  for (int32_t s = 0; s < 2; ++s) {
    cells_holding(&a->pool, s, index[2 + s], grad->sizes[2 + s], &lo[s],
                  &hi[s]);
  }
  int64_t base = index[0] * grad->strides[0] + index[1] * grad->strides[1];
  double sum = 0.0;
  uint64_t int_sum = 0;
  for (int64_t oh = lo[0]; oh < hi[0]; ++oh) {
    for (int64_t ow = lo[1]; ow < hi[1]; ++ow) {
      int64_t divisor = 1;
      int64_t padded = 1;
      int64_t cell[2] = {oh, ow};
      for (int32_t s = 0; s < 2; ++s) {
        int64_t start = 0;
        int64_t end = 0;
        int64_t count = 0;
        etr_nn_avg_window(&a->pool, s, cell[s], in->sizes[2 + s], &start,
                          &end, &count);
        divisor *= end - start;  // <= the input plane
        padded = etr_saturating_mul(padded, count);
      }
      if (a->options.has_divisor) {
        divisor = a->options.divisor;
      } else if (a->options.count_include_pad) {
        divisor = padded;
      }
      const void *element = etr_element_at(
          grad, base + oh * grad->strides[2] + ow * grad->strides[3]);
      if (floating) {
        sum += etr_load_double(grad->dtype, element) / (double)divisor;
      } else {
        int_sum += (uint64_t)etr_nn_trunc_div(
            etr_load_int64(grad->dtype, element), divisor);
      }
    }
  }
  void *target = etr_element_at(out, out_offset);
  if (floating) {
    etr_store_double(out->dtype, target, sum);
  } else {
    etr_store_int64(out->dtype, target, (int64_t)int_sum);
  }
}

// aten::avg_pool2d_backward.grad_input
etr_error_t etr_ref_avg_pool2d_backward_grad_input(etr_kernel_context_t *ctx,
                                                   etr_evalue_t **args,
                                                   size_t num_args) {
  etr_tensor_t *grad_output = NULL;
  etr_tensor_t *self = NULL;
  etr_tensor_t *grad_input = NULL;
  etr_pool2d_params_t p;
  backward_args_t a = {.pool = {.spatial = 2, .dilation = {1, 1}}};
  ETR_TRY(etr_check_num_args(ctx, num_args, 10));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "grad_output",
                         &grad_output));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "self", &self));
  ETR_TRY(etr_pool2d_read_window(ctx, args, num_args, 2, p.kernel, p.stride,
                                 p.padding));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 5, "ceil_mode", &p.ceil_mode));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 6, "count_include_pad",
                       &a.options.count_include_pad));
  ETR_TRY(etr_arg_optional_int(ctx, args, num_args, 7, "divisor_override",
                               &a.options.has_divisor, &a.options.divisor));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 8, "grad_input", &grad_input));
  ETR_CHECK(ctx->diag, !a.options.has_divisor || a.options.divisor != 0,
            ETR_ERR_INVALID_ARGUMENT, "%s: divisor must be not zero",
            etr_op_name(ctx));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype,
                          ETR_DTYPES_FLOATING | ETR_DTYPE_BIT(ETR_LONG)));
  ETR_TRY(etr_check_dtype_equal(ctx, "grad_output", grad_output->dtype,
                                self->dtype));
  ETR_TRY(etr_check_dtype_equal(ctx, "grad_input", grad_input->dtype,
                                self->dtype));
  p.dilation[0] = 1;
  p.dilation[1] = 1;
  int64_t sizes[4];
  ETR_TRY(etr_pool2d_out_shape(ctx, self, &p, sizes));
  ETR_TRY(etr_nn_check_shape(ctx, "grad_output", grad_output, self->dim,
                             sizes));
  ETR_TRY(etr_resize_out_like(ctx, grad_input, self));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }

  for (int s = 0; s < 2; ++s) {
    a.pool.kernel[s] = p.kernel[s];
    a.pool.stride[s] = p.stride[s];
    a.pool.padding[s] = p.padding[s];
  }
  a.pool.ceil_mode = p.ceil_mode;
  etr_tensor_t grad_view;
  etr_tensor_t self_view;
  etr_tensor_t out_view;
  etr_nn_batched_view(grad_output, 4, &grad_view);
  etr_nn_batched_view(self, 4, &self_view);
  etr_nn_batched_view(grad_input, 4, &out_view);
  const etr_tensor_t *operands[1] = {&out_view};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, 4, out_view.sizes, operands, 1);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    gather_one(&grad_view, &self_view, &a, iter.index, &out_view,
               iter.offsets[0]);
  }
  return ETR_OK;
}
