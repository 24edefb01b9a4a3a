// SPDX-License-Identifier: Apache-2.0
//
// 2-D pooling shapes and parameters (see pool.h).
#include "ops_reference/support/pool.h"

#include "ops_reference/support/dtype.h"
#include "ops_reference/support/shape.h"

etr_error_t etr_pool2d_read_pair(etr_kernel_context_t *ctx,
                                 etr_evalue_t **args, size_t num_args,
                                 size_t index, const char *what,
                                 const int64_t *fallback, int64_t *out) {
  const int64_t *items = NULL;
  size_t count = 0;
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, index, what, &items, &count));
  if (count == 0 && fallback != NULL) {
    out[0] = fallback[0];
    out[1] = fallback[1];
    return ETR_OK;
  }
  ETR_CHECK(ctx->diag, count == 1 || count == 2, ETR_ERR_INVALID_ARGUMENT,
            "%s: %s must either be a single int, or a tuple of two ints",
            etr_op_name(ctx), what);
  out[0] = items[0];
  out[1] = items[count == 1 ? 0 : 1];
  return ETR_OK;
}

etr_error_t etr_pool2d_read_window(etr_kernel_context_t *ctx,
                                   etr_evalue_t **args, size_t num_args,
                                   size_t first, int64_t *kernel,
                                   int64_t *stride, int64_t *padding) {
  ETR_TRY(etr_pool2d_read_pair(ctx, args, num_args, first, "kernel_size",
                               NULL, kernel));
  ETR_TRY(etr_pool2d_read_pair(ctx, args, num_args, first + 1, "stride",
                               kernel, stride));
  return etr_pool2d_read_pair(ctx, args, num_args, first + 2, "padding", NULL,
                              padding);
}

etr_error_t etr_pool2d_check_input(etr_kernel_context_t *ctx,
                                   const etr_tensor_t *input) {
  bool ok = input->dim == 3 || input->dim == 4;
  for (int32_t d = input->dim - 3; ok && d < input->dim; ++d) {
    ok = input->sizes[d] > 0;
  }
  ETR_CHECK(ctx->diag, ok, ETR_ERR_INVALID_ARGUMENT,
            "%s: expected 3D or 4D (batch mode) tensor with optional 0 dim "
            "batch size for input, got rank %d",
            etr_op_name(ctx), (int)input->dim);
  return ETR_OK;
}

// Floor division for a positive divisor.
static int64_t floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && a < 0) ? q - 1 : q;
}

bool etr_pool_output_size(int64_t input, int64_t kernel, int64_t padding,
                          int64_t stride, int64_t dilation, bool ceil_mode,
                          int64_t *size_out) {
  // input + 2 padding - dilation (kernel - 1) - 1 + (ceil ? stride - 1 : 0)
  int64_t span = 0;
  int64_t padded = 0;
  int64_t numerator = 0;
  bool ok = etr_checked_mul(dilation, kernel - 1, &span) &&
            etr_checked_add(input, padding, &padded) &&
            etr_checked_add(padded, padding, &padded) &&
            etr_checked_add(padded, -span, &numerator) &&
            etr_checked_add(numerator, ceil_mode ? stride - 2 : -1,
                            &numerator);
  if (!ok) {
    return false;
  }
  int64_t size = floor_div(numerator, stride) + 1;
  // In ceil mode the last window must start inside the input or the left
  // padding. For size > 1, (size - 1) * stride <= numerator: no overflow.
  if (ceil_mode && size > 1 && (size - 1) * stride >= input + padding) {
    --size;
  }
  *size_out = size;
  return true;
}

etr_error_t etr_pool2d_out_shape(etr_kernel_context_t *ctx,
                                 const etr_tensor_t *input,
                                 const etr_pool2d_params_t *params,
                                 int64_t *sizes_out) {
  ETR_TRY(etr_pool2d_check_input(ctx, input));
  int32_t h = input->dim - 2;
  for (int32_t d = 0; d < input->dim; ++d) {
    sizes_out[d] = input->sizes[d];
  }
  for (int s = 0; s < 2; ++s) {
    ETR_CHECK(ctx->diag, params->kernel[s] > 0, ETR_ERR_INVALID_ARGUMENT,
              "%s: kernel size should be greater than zero",
              etr_op_name(ctx));
    ETR_CHECK(ctx->diag, params->stride[s] > 0, ETR_ERR_INVALID_ARGUMENT,
              "%s: stride should be greater than zero", etr_op_name(ctx));
    ETR_CHECK(ctx->diag, params->dilation[s] > 0, ETR_ERR_INVALID_ARGUMENT,
              "%s: dilation should be greater than zero", etr_op_name(ctx));
    ETR_CHECK(ctx->diag,
              params->padding[s] >= 0 &&
                  params->padding[s] <= params->kernel[s] / 2,
              ETR_ERR_INVALID_ARGUMENT,
              "%s: pad should be at least 0 and at most half of kernel size",
              etr_op_name(ctx));
    int64_t size = 0;
    ETR_CHECK(ctx->diag,
              etr_pool_output_size(input->sizes[h + s], params->kernel[s],
                                   params->padding[s], params->stride[s],
                                   params->dilation[s], params->ceil_mode,
                                   &size),
              ETR_ERR_INVALID_ARGUMENT,
              "%s: pooling parameters overflow int64", etr_op_name(ctx));
    ETR_CHECK(ctx->diag, size >= 1, ETR_ERR_INVALID_ARGUMENT,
              "%s: calculated output size %lld is too small",
              etr_op_name(ctx), (long long)size);
    sizes_out[h + s] = size;
  }
  return ETR_OK;
}

void etr_pool2d_batched_view(const etr_tensor_t *tensor, etr_tensor_t *view) {
  if (tensor->dim == 4) {
    etr_make_view(tensor, 0, 4, tensor->sizes, tensor->strides, view);
    return;
  }
  int64_t sizes[4] = {1, tensor->sizes[0], tensor->sizes[1], tensor->sizes[2]};
  int64_t strides[4] = {0, tensor->strides[0], tensor->strides[1],
                        tensor->strides[2]};
  etr_make_view(tensor, 0, 4, sizes, strides, view);
}
