// SPDX-License-Identifier: Apache-2.0
//
// aten::native_layer_norm.out: normalizes self over its trailing dims
// (those of normalized_shape):
//
//   mean = E[x], var = E[(x - mean)^2] (biased), rstd = 1 / sqrt(var + eps)
//   out0 = (x - mean) * rstd * weight + bias;  out1 = mean;  out2 = rstd
//
// out1/out2 have self's leading dims followed by 1s. Arguments: (input,
// normalized_shape, weight?, bias?, eps, out0, out1, out2, return slot: a
// TensorList of the three). Statistics are computed in double and
// rounded; an empty row gives mean 0 and rstd NaN, as PyTorch's CPU
// kernel does.
//
// Dtypes: floating input (NotSupported otherwise); out0 has the input's
// dtype; weight/bias and out1/out2 have the parameter dtype of
// support/norm.h (the input's, or Float for a Half/BFloat16 input with
// Float parameters). InvalidArgument for a normalized_shape that is empty
// or is not self's trailing shape, weight/bias of another shape, and
// other dtypes.
#include <math.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/norm.h"
#include "ops_reference/support/reduce.h"
#include "ops_reference/support/shape.h"

// Checks weight/bias (if present) have exactly the normalized shape.
static etr_error_t check_param_shape(etr_kernel_context_t *ctx,
                                     const char *what,
                                     const etr_tensor_t *param,
                                     const int64_t *shape, size_t count) {
  if (param == NULL) {
    return ETR_OK;
  }
  bool same = param->dim == (int32_t)count;
  for (size_t i = 0; same && i < count; ++i) {
    same = param->sizes[i] == shape[i];
  }
  ETR_CHECK(ctx->diag, same, ETR_ERR_INVALID_ARGUMENT,
            "%s: expected %s to be of same shape as normalized_shape",
            etr_op_name(ctx), what);
  return ETR_OK;
}

// aten::native_layer_norm.out
etr_error_t etr_ref_native_layer_norm_out(etr_kernel_context_t *ctx,
                                          etr_evalue_t **args,
                                          size_t num_args) {
  etr_tensor_t *input = NULL;
  const int64_t *shape = NULL;
  size_t count = 0;
  etr_tensor_t *weight = NULL;
  etr_tensor_t *bias = NULL;
  double eps = 0.0;
  etr_tensor_t *outs[3] = {NULL, NULL, NULL};
  ETR_TRY(etr_check_num_args(ctx, num_args, 9));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "input", &input));
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, 1, "normalized_shape", &shape,
                           &count));
  ETR_TRY(etr_arg_optional_tensor(ctx, args, num_args, 2, "weight", &weight));
  ETR_TRY(etr_arg_optional_tensor(ctx, args, num_args, 3, "bias", &bias));
  ETR_TRY(etr_arg_double(ctx, args, num_args, 4, "eps", &eps));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 5, "out0", &outs[0]));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 6, "out1", &outs[1]));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 7, "out2", &outs[2]));

  const etr_tensor_t *params[2] = {weight, bias};
  etr_scalar_type_t param_dtype;
  ETR_TRY(etr_norm_param_dtype(ctx, input, params, 2, &param_dtype));
  ETR_TRY(etr_check_dtype_equal(ctx, "out0", outs[0]->dtype, input->dtype));
  ETR_TRY(etr_check_dtype_equal(ctx, "out1", outs[1]->dtype, param_dtype));
  ETR_TRY(etr_check_dtype_equal(ctx, "out2", outs[2]->dtype, param_dtype));
  int32_t axis = input->dim - (int32_t)count;
  bool matches = count >= 1 && axis >= 0;
  for (size_t i = 0; matches && i < count; ++i) {
    matches = input->sizes[axis + (int32_t)i] == shape[i];
  }
  ETR_CHECK(ctx->diag, matches, ETR_ERR_INVALID_ARGUMENT,
            "%s: normalized_shape (%zu dims) must be non-empty and equal "
            "the input's trailing sizes",
            etr_op_name(ctx), count);
  ETR_TRY(check_param_shape(ctx, "weight", weight, shape, count));
  ETR_TRY(check_param_shape(ctx, "bias", bias, shape, count));

  uint32_t mask = 0;
  for (int32_t d = axis; d < input->dim; ++d) {
    mask |= 1u << d;
  }
  int32_t stat_dim = 0;
  int64_t stat_sizes[ETR_MAX_DIMS];
  etr_reduction_shape(input, mask, true, &stat_dim, stat_sizes);
  ETR_TRY(etr_resize_out_like(ctx, outs[0], input));
  ETR_TRY(etr_resize_out(ctx, outs[1], stat_dim, stat_sizes));
  ETR_TRY(etr_resize_out(ctx, outs[2], stat_dim, stat_sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }

  // Operands: input, out0, mean and rstd seen in input's shape, weight and
  // bias broadcast to it (absent ones stand in as the input, unread).
  etr_tensor_t views[4];
  etr_reduction_out_view(input, mask, true, outs[1], &views[0]);
  etr_reduction_out_view(input, mask, true, outs[2], &views[1]);
  for (int i = 0; i < 2; ++i) {
    const etr_tensor_t *param = params[i] != NULL ? params[i] : input;
    ETR_TRY(etr_broadcast_view(ctx, param, input->dim, input->sizes,
                               &views[2 + i]));
  }
  const etr_tensor_t *operands[6] = {input,     outs[0],   &views[0],
                                     &views[1], &views[2], &views[3]};
  etr_dim_split_t split;
  etr_dim_split_init(&split, mask, operands, 6);
  int64_t n = split.inner_count;
  for (int64_t row = 0; row < split.outer_count; ++row) {
    int64_t base = etr_dim_split_outer(&split, 0, row);
    double sum = 0.0;
    for (int64_t i = 0; i < n; ++i) {
      sum += etr_load_double(
          input->dtype,
          etr_element_at(input, base + etr_dim_split_inner(&split, 0, i)));
    }
    double mean = n > 0 ? sum / (double)n : 0.0;
    double squares = 0.0;
    for (int64_t i = 0; i < n; ++i) {
      double x = etr_load_double(
          input->dtype,
          etr_element_at(input, base + etr_dim_split_inner(&split, 0, i)));
      squares += (x - mean) * (x - mean);
    }
    double rstd = n > 0 ? 1.0 / sqrt(squares / (double)n + eps) : NAN;
    for (int64_t i = 0; i < n; ++i) {
      int64_t offsets[6];
      for (size_t k = 0; k < 6; ++k) {
        offsets[k] = etr_dim_split_outer(&split, k, row) +
                     etr_dim_split_inner(&split, k, i);
      }
      double x = etr_load_double(input->dtype,
                                 etr_element_at(input, offsets[0]));
      double y = (x - mean) * rstd;
      if (weight != NULL) {
        y *= etr_load_double(weight->dtype,
                             etr_element_at(&views[2], offsets[4]));
      }
      if (bias != NULL) {
        y += etr_load_double(bias->dtype,
                             etr_element_at(&views[3], offsets[5]));
      }
      etr_store_double(outs[0]->dtype, etr_element_at(outs[0], offsets[1]),
                       y);
    }
    int64_t mean_offset = etr_dim_split_outer(&split, 2, row);
    int64_t rstd_offset = etr_dim_split_outer(&split, 3, row);
    etr_store_double(param_dtype, etr_element_at(outs[1], mean_offset), mean);
    etr_store_double(param_dtype, etr_element_at(outs[2], rstd_offset), rstd);
  }
  return ETR_OK;
}
