// SPDX-License-Identifier: Apache-2.0
//
// quantized_decomposed::choose_qparams.Tensor_out(input, int quant_min,
// int quant_max, float eps, ScalarType dtype, *, scale_out,
// zero_point_out): the per-tensor affine parameters for `input`'s range,
// as ExecuTorch's runtime computes them (support/quantize.h,
// etr_quant_choose_params; not PyTorch's determine_qparams, whose scale is
// float32 and honours eps). min and max are found in row-major order from
// the first element (std::min_element's rule: a NaN first element is the
// result, a later NaN is skipped).
//
// Arguments, as ExecuTorch checks them (error codes instead of aborts):
// quant_min < quant_max, both fitting int32 (InvalidArgument); input Float
// (NotSupported; PyTorch also takes Half and BFloat16, ExecuTorch does
// not); scale_out a Double tensor and zero_point_out a Long tensor
// (InvalidArgument), each resized to [1] unless it holds one element;
// eps and dtype are ignored, as ExecuTorch ignores them. An empty input
// has no range: InvalidArgument (ExecuTorch reads past its end, PyTorch's
// aminmax raises); so is a range that gives no finite scale (NaN or
// infinite inputs).
#include <stdint.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/quantize.h"
#include "ops_reference/support/shape.h"

// An out that does not hold exactly one element is resized to [1] (the
// functional op's shape); one that does is kept as it is ([], [1], [1, 1]).
static etr_error_t resize_to_one(etr_kernel_context_t *ctx,
                                 etr_tensor_t *out) {
  if (etr_numel(out) == 1) {
    return ETR_OK;
  }
  const int64_t one = 1;
  return etr_resize_out(ctx, out, 1, &one);
}

// quantized_decomposed::choose_qparams.Tensor_out
etr_error_t etr_ref_choose_qparams_tensor_out(etr_kernel_context_t *ctx,
                                              etr_evalue_t **args,
                                              size_t num_args) {
  etr_tensor_t *input = NULL;
  int64_t quant_min = 0;
  int64_t quant_max = 0;
  double eps = 0.0;
  etr_scalar_type_t dtype = ETR_CHAR;
  etr_tensor_t *scale_out = NULL;
  etr_tensor_t *zero_point_out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 8));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "input", &input));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "quant_min", &quant_min));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 2, "quant_max", &quant_max));
  ETR_TRY(etr_arg_double(ctx, args, num_args, 3, "eps", &eps));
  ETR_TRY(etr_quant_arg_scalar_type(ctx, args, num_args, 4, "dtype", &dtype));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 5, "scale_out", &scale_out));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 6, "zero_point_out",
                         &zero_point_out));
  (void)eps;
  (void)dtype;
  ETR_CHECK(ctx->diag,
            quant_min >= INT32_MIN && quant_max <= INT32_MAX &&
                quant_min < quant_max,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: need quant_min < quant_max within int32, not [%lld, %lld]",
            etr_op_name(ctx), (long long)quant_min, (long long)quant_max);
  ETR_CHECK(ctx->diag, input->dtype == ETR_FLOAT, ETR_ERR_NOT_SUPPORTED,
            "%s: input has dtype %s; only Float is supported",
            etr_op_name(ctx), etr_scalar_type_name(input->dtype));
  ETR_TRY(resize_to_one(ctx, scale_out));
  ETR_TRY(resize_to_one(ctx, zero_point_out));
  ETR_TRY(etr_quant_check_param(ctx, "scale_out", scale_out, ETR_DOUBLE,
                                ETR_NUM_SCALAR_TYPES, 1));
  ETR_TRY(etr_quant_check_param(ctx, "zero_point_out", zero_point_out,
                                ETR_LONG, ETR_NUM_SCALAR_TYPES, 1));
  ETR_CHECK(ctx->diag, etr_numel(input) > 0, ETR_ERR_INVALID_ARGUMENT,
            "%s: an empty input has no range", etr_op_name(ctx));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  const etr_tensor_t *operands[1] = {input};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, input->dim, input->sizes, operands, 1);
  float first = (float)etr_load_double(ETR_FLOAT,
                                       etr_element_at(input, iter.offsets[0]));
  float min = first;
  float max = first;
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    float value = (float)etr_load_double(
        ETR_FLOAT, etr_element_at(input, iter.offsets[0]));
    min = value < min ? value : min;
    max = max < value ? value : max;
  }
  double scale = 0.0;
  int64_t zero_point = 0;
  ETR_TRY(etr_quant_choose_params(ctx, min, max, quant_min, quant_max, &scale,
                                  &zero_point));
  etr_store_double(ETR_DOUBLE, etr_element_at(scale_out, 0), scale);
  etr_store_int64(ETR_LONG, etr_element_at(zero_point_out, 0), zero_point);
  return ETR_OK;
}
