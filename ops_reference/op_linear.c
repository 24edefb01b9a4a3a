// SPDX-License-Identifier: Apache-2.0
//
// aten::linear.out: out = input @ weight^T + bias.
//
// input [..., in_features] (any rank >= 1), weight [out_features,
// in_features] giving [..., out_features]; a 1-D weight [in_features]
// gives [...] (a dot product per row). bias is optional and must
// broadcast to the result. Dtypes as aten::mm: every real dtype except
// Bool, and complex, shared by input, weight, bias and out
// (InvalidArgument otherwise, as are mismatched feature sizes). The input
// is seen as a [rows, in_features] view when its leading dims allow it,
// else row by row; the weight is read transposed through its strides.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/matmul.h"
#include "ops_reference/support/shape.h"

// aten::linear.out
etr_error_t etr_ref_linear_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                               size_t num_args) {
  etr_tensor_t *input = NULL;
  etr_tensor_t *weight = NULL;
  etr_tensor_t *bias = NULL;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 5));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "input", &input));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "weight", &weight));
  ETR_TRY(etr_arg_optional_tensor(ctx, args, num_args, 2, "bias", &bias));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "out", &out));
  ETR_TRY(etr_check_dtype(ctx, "input", input->dtype,
                          ETR_DTYPES_REAL | ETR_DTYPES_COMPLEX));
  ETR_TRY(etr_check_dtype_equal(ctx, "weight", weight->dtype, input->dtype));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, input->dtype));
  if (bias != NULL) {
    ETR_TRY(etr_check_dtype_equal(ctx, "bias", bias->dtype, input->dtype));
  }
  ETR_CHECK(ctx->diag, input->dim >= 1, ETR_ERR_INVALID_ARGUMENT,
            "%s: input must have at least one dim", etr_op_name(ctx));
  ETR_CHECK(ctx->diag, weight->dim == 1 || weight->dim == 2,
            ETR_ERR_INVALID_ARGUMENT, "%s: weight must be 1-D or 2-D",
            etr_op_name(ctx));
  int64_t in_features = input->sizes[input->dim - 1];
  int64_t weight_in = weight->sizes[weight->dim - 1];
  ETR_CHECK(ctx->diag, in_features == weight_in, ETR_ERR_INVALID_ARGUMENT,
            "%s: input has %lld features but weight expects %lld",
            etr_op_name(ctx), (long long)in_features, (long long)weight_in);

  // Result shape: input's leading dims, then out_features (if 2-D weight).
  int64_t sizes[ETR_MAX_DIMS];
  int32_t dim = input->dim - 1;
  int64_t rows = 1;
  for (int32_t d = 0; d < dim; ++d) {
    sizes[d] = input->sizes[d];
    rows *= input->sizes[d];
  }
  int64_t out_features = weight->dim == 2 ? weight->sizes[0] : 1;
  if (weight->dim == 2) {
    sizes[dim++] = out_features;
  }
  etr_tensor_t bias_view;
  if (bias != NULL) {
    ETR_TRY(etr_broadcast_view(ctx, bias, dim, sizes, &bias_view));
  }
  ETR_TRY(etr_resize_out(ctx, out, dim, sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }

  // weight^T as a [in_features, out_features] view.
  int64_t wt_sizes[2] = {in_features, out_features};
  int64_t wt_strides[2] = {weight->strides[weight->dim - 1],
                           weight->dim == 2 ? weight->strides[0] : 0};
  etr_tensor_t weight_t;
  etr_make_view(weight, 0, 2, wt_sizes, wt_strides, &weight_t);
  etr_scalar_t one = {ETR_SCALAR_INT, 1, 1.0};

  // One row at a time: the leading dims of input, out and bias may have
  // any strides, so each row is a [1, features] view found by its index.
  int64_t index[ETR_MAX_DIMS] = {0};
  for (int64_t row = 0; row < rows; ++row) {
    int64_t in_offset = 0;
    int64_t out_offset = 0;
    int64_t bias_offset = 0;
    for (int32_t d = 0; d < input->dim - 1; ++d) {
      in_offset += index[d] * input->strides[d];
      out_offset += index[d] * out->strides[d];
      bias_offset += bias != NULL ? index[d] * bias_view.strides[d] : 0;
    }
    int64_t in_sizes[2] = {1, in_features};
    int64_t in_strides[2] = {0, input->strides[input->dim - 1]};
    int64_t row_sizes[2] = {1, out_features};
    int64_t out_strides[2] = {0, weight->dim == 2 ? out->strides[dim - 1] : 0};
    int64_t bias_strides[2] = {
        0, bias != NULL && weight->dim == 2 ? bias_view.strides[dim - 1] : 0};
    etr_tensor_t in_row;
    etr_tensor_t out_row;
    etr_tensor_t bias_row;
    etr_make_view(input, in_offset, 2, in_sizes, in_strides, &in_row);
    etr_make_view(out, out_offset, 2, row_sizes, out_strides, &out_row);
    if (bias != NULL) {
      etr_make_view(&bias_view, bias_offset, 2, row_sizes, bias_strides,
                    &bias_row);
    }
    etr_matmul(&out_row, &in_row, &weight_t, bias != NULL ? &bias_row : NULL,
               &one, &one);
    etr_index_next(index, input->sizes, input->dim - 1);
  }
  return ETR_OK;
}
