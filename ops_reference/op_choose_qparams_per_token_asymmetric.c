// SPDX-License-Identifier: Apache-2.0
//
// quantized_decomposed::choose_qparams_per_token_asymmetric.out(input,
// ScalarType dtype, *, scale_out, zero_point_out): for every token (every
// index over all dims but the last) the affine parameters of its row's
// range for [-128, 127], as ExecuTorch's runtime computes them
// (support/quantize.h, etr_quant_choose_params; PyTorch's decomposition
// uses XNNPACK's formula instead, so its values differ). scale_out
// (Double) and zero_point_out (Long) are resized to input's sizes with the
// last one 1. A row's min and max are found from its first element
// (std::min_element's rule for NaN).
//
// Arguments, as ExecuTorch checks them (error codes instead of aborts):
// input Float of rank >= 1 (NotSupported / InvalidArgument), scale_out
// Double and zero_point_out Long (InvalidArgument); dtype is ignored, as
// ExecuTorch and PyTorch ignore it. Tokens of length 0 have no range
// (InvalidArgument), nor does a row whose range gives no finite scale (NaN
// or infinite values).
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/quantize.h"
#include "ops_reference/support/shape.h"

// Offset of the first element of token `token` (row-major over every dim
// but the last).
static int64_t token_offset(const etr_tensor_t *input, int64_t token) {
  int64_t offset = 0;
  for (int32_t d = input->dim - 2; d >= 0; --d) {
    offset += (token % input->sizes[d]) * input->strides[d];
    token /= input->sizes[d];
  }
  return offset;
}

// quantized_decomposed::choose_qparams_per_token_asymmetric.out
etr_error_t etr_ref_choose_qparams_per_token_asymmetric_out(
    etr_kernel_context_t *ctx, etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *input = NULL;
  etr_scalar_type_t dtype = ETR_CHAR;
  etr_tensor_t *scale_out = NULL;
  etr_tensor_t *zero_point_out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 5));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "input", &input));
  ETR_TRY(etr_quant_arg_scalar_type(ctx, args, num_args, 1, "dtype", &dtype));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "scale_out", &scale_out));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "zero_point_out",
                         &zero_point_out));
  (void)dtype;
  ETR_CHECK(ctx->diag, input->dtype == ETR_FLOAT, ETR_ERR_NOT_SUPPORTED,
            "%s: input has dtype %s; only Float is supported",
            etr_op_name(ctx), etr_scalar_type_name(input->dtype));
  int64_t tokens = 0;
  ETR_TRY(etr_quant_token_count(ctx, input, &tokens));
  int32_t last = input->dim - 1;
  int64_t length = input->sizes[last];
  ETR_CHECK(ctx->diag, tokens == 0 || length > 0, ETR_ERR_INVALID_ARGUMENT,
            "%s: tokens of length 0 have no range", etr_op_name(ctx));
  ETR_CHECK(ctx->diag, scale_out->dtype == ETR_DOUBLE,
            ETR_ERR_INVALID_ARGUMENT, "%s: scale_out has dtype %s, not Double",
            etr_op_name(ctx), etr_scalar_type_name(scale_out->dtype));
  ETR_CHECK(ctx->diag, zero_point_out->dtype == ETR_LONG,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: zero_point_out has dtype %s, not Long", etr_op_name(ctx),
            etr_scalar_type_name(zero_point_out->dtype));
  int64_t sizes[ETR_MAX_DIMS];
  for (int32_t d = 0; d < last; ++d) {
    sizes[d] = input->sizes[d];
  }
  sizes[last] = 1;
  ETR_TRY(etr_resize_out(ctx, scale_out, input->dim, sizes));
  ETR_TRY(etr_resize_out(ctx, zero_point_out, input->dim, sizes));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  for (int64_t t = 0; t < tokens; ++t) {
    int64_t base = token_offset(input, t);
    float min = 0.0f;
    float max = 0.0f;
    for (int64_t i = 0; i < length; ++i) {
      float value = (float)etr_load_double(
          ETR_FLOAT,
          etr_element_at(input, base + i * input->strides[last]));
      if (i == 0) {
        min = value;
        max = value;
      }
      min = value < min ? value : min;
      max = max < value ? value : max;
    }
    double scale = 0.0;
    int64_t zero_point = 0;
    ETR_TRY(etr_quant_choose_params(ctx, min, max, -128, 127, &scale,
                                    &zero_point));
    // The outs are [tokens..., 1]: token t is at the same leading index.
    etr_store_double(ETR_DOUBLE,
                     etr_element_at(scale_out, token_offset(scale_out, t)),
                     scale);
    etr_store_int64(
        ETR_LONG,
        etr_element_at(zero_point_out, token_offset(zero_point_out, t)),
        zero_point);
  }
  return ETR_OK;
}
