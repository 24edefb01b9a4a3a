// SPDX-License-Identifier: Apache-2.0
//
// aten::avg_pool2d.out: the average of each window of a [N, C, H, W] or
// [C, H, W] input.
//
// Arguments: (self, kernel_size, stride, padding, ceil_mode,
// count_include_pad, divisor_override?, out). The divisor is ATen's: the
// override when given (it must not be 0, InvalidArgument); else, with
// count_include_pad, the window clipped to the padded input (ceil_mode
// windows that run past the padding count only what lies inside it);
// else the number of input positions in the window. Sums accumulate in
// double (int64 for Long, whose average truncates toward zero like ATen's
// integer division). Output sizes and parameter rules are
// support/pool.h's.
//
// Dtypes: Half, BFloat16, Float, Double and Long (PyTorch's CPU set;
// NotSupported otherwise); out has self's dtype (InvalidArgument).
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/pool.h"
#include "ops_reference/support/shape.h"

typedef struct avg_options {
  bool count_include_pad;
  bool has_divisor;
  int64_t divisor;
} avg_options_t;

static void average_one(const etr_tensor_t *in, const etr_pool2d_params_t *p,
                        const avg_options_t *options, const int64_t *index,
                        etr_tensor_t *out, int64_t out_offset) {
  int64_t height = in->sizes[2];
  int64_t width = in->sizes[3];
  int64_t h_start = index[2] * p->stride[0] - p->padding[0];
  int64_t w_start = index[3] * p->stride[1] - p->padding[1];
  int64_t h_end = h_start + p->kernel[0];
  int64_t w_end = w_start + p->kernel[1];
  h_end = h_end < height + p->padding[0] ? h_end : height + p->padding[0];
  w_end = w_end < width + p->padding[1] ? w_end : width + p->padding[1];
  int64_t padded_size = (h_end - h_start) * (w_end - w_start);
  h_start = h_start > 0 ? h_start : 0;
  w_start = w_start > 0 ? w_start : 0;
  h_end = h_end < height ? h_end : height;
  w_end = w_end < width ? w_end : width;

  bool floating = etr_dtype_kind(in->dtype) == ETR_KIND_FLOATING;
  void *target = etr_element_at(out, out_offset);
  if (h_start >= h_end || w_start >= w_end) {
    etr_store_int64(out->dtype, target, 0);
    return;
  }
  int64_t base = index[0] * in->strides[0] + index[1] * in->strides[1];
  double sum = 0.0;
  int64_t int_sum = 0;
  for (int64_t h = h_start; h < h_end; ++h) {
    for (int64_t w = w_start; w < w_end; ++w) {
      const void *element =
          etr_element_at(in, base + h * in->strides[2] + w * in->strides[3]);
      if (floating) {
        sum += etr_load_double(in->dtype, element);
      } else {
        int_sum = (int64_t)((uint64_t)int_sum +
                            (uint64_t)etr_load_int64(in->dtype, element));
      }
    }
  }
  int64_t divisor = options->has_divisor ? options->divisor
                    : options->count_include_pad
                        ? padded_size
                        : (h_end - h_start) * (w_end - w_start);
  if (floating) {
    etr_store_double(out->dtype, target, sum / (double)divisor);
  } else {
    etr_store_int64(out->dtype, target,
                    divisor == -1 ? (int64_t)(0 - (uint64_t)int_sum)
                                   : int_sum / divisor);
  }
}

// aten::avg_pool2d.out
etr_error_t etr_ref_avg_pool2d_out(etr_kernel_context_t *ctx,
                                   etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_pool2d_params_t p;
  avg_options_t options;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 9));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_pool2d_read_window(ctx, args, num_args, 1, p.kernel, p.stride,
                                 p.padding));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 4, "ceil_mode", &p.ceil_mode));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 5, "count_include_pad",
                       &options.count_include_pad));
  ETR_TRY(etr_arg_optional_int(ctx, args, num_args, 6, "divisor_override",
                               &options.has_divisor, &options.divisor));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 7, "out", &out));
  ETR_CHECK(ctx->diag, !options.has_divisor || options.divisor != 0,
            ETR_ERR_INVALID_ARGUMENT, "%s: divisor must be not zero",
            etr_op_name(ctx));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype,
                          ETR_DTYPES_FLOATING | ETR_DTYPE_BIT(ETR_LONG)));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  p.dilation[0] = 1;
  p.dilation[1] = 1;
  int64_t sizes[4];
  ETR_TRY(etr_pool2d_out_shape(ctx, self, &p, sizes));
  ETR_TRY(etr_resize_out(ctx, out, self->dim, sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }

  etr_tensor_t in_view;
  etr_tensor_t out_view;
  etr_pool2d_batched_view(self, &in_view);
  etr_pool2d_batched_view(out, &out_view);
  const etr_tensor_t *operands[1] = {&out_view};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, 4, out_view.sizes, operands, 1);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    average_one(&in_view, &p, &options, iter.index, &out_view,
                iter.offsets[0]);
  }
  return ETR_OK;
}
