// SPDX-License-Identifier: Apache-2.0
//
// Normalization dtype rules (see norm.h).
#include "ops_reference/support/norm.h"

#include "ops_reference/support/dtype.h"
#include "ops_reference/support/shape.h"

etr_error_t etr_norm_param_dtype(etr_kernel_context_t *ctx,
                                 const etr_tensor_t *input,
                                 const etr_tensor_t *const *params,
                                 size_t count, etr_scalar_type_t *out) {
  ETR_TRY(etr_check_dtype(ctx, "input", input->dtype, ETR_DTYPES_FLOATING));
  etr_scalar_type_t dtype = input->dtype;
  bool reduced = dtype == ETR_HALF || dtype == ETR_BFLOAT16;
  for (size_t i = 0; i < count; ++i) {
    if (params[i] != NULL && reduced && params[i]->dtype == ETR_FLOAT) {
      dtype = ETR_FLOAT;  // mixed precision
      break;
    }
  }
  for (size_t i = 0; i < count; ++i) {
    ETR_CHECK(ctx->diag, params[i] == NULL || params[i]->dtype == dtype,
              ETR_ERR_INVALID_ARGUMENT,
              "%s: a parameter has dtype %s but %s is required for a %s "
              "input",
              etr_op_name(ctx), etr_scalar_type_name(params[i]->dtype),
              etr_scalar_type_name(dtype),
              etr_scalar_type_name(input->dtype));
  }
  *out = dtype;
  return ETR_OK;
}

etr_error_t etr_batch_norm_check_params(etr_kernel_context_t *ctx,
                                        const etr_tensor_t *input,
                                        const etr_tensor_t *const *params,
                                        bool training,
                                        etr_scalar_type_t *param_dtype_out) {
  static const char *const kNames[4] = {"weight", "bias", "running_mean",
                                        "running_var"};
  if (!training && etr_numel(input) == 0) {
    // ATen's is_mixed_type looks at the first present parameter only.
    size_t first = 0;
    while (first < 4 && params[first] == NULL) {
      ++first;
    }
    bool mixed = first < 4 && params[first]->dtype != input->dtype;
    return etr_norm_param_dtype(ctx, input, mixed ? params : params + first,
                                mixed ? 4 : (first < 4 ? 1 : 0),
                                param_dtype_out);
  }
  ETR_TRY(etr_norm_param_dtype(ctx, input, params, 4, param_dtype_out));
  ETR_CHECK(ctx->diag, input->dim >= 2, ETR_ERR_INVALID_ARGUMENT,
            "%s: input must have at least 2 dims (N, C, ...), has %d",
            etr_op_name(ctx), (int)input->dim);
  int64_t channels = input->sizes[1];
  for (int i = 0; i < 4; ++i) {
    ETR_CHECK(ctx->diag,
              params[i] == NULL ||
                  (params[i]->dim == 1 && params[i]->sizes[0] == channels),
              ETR_ERR_INVALID_ARGUMENT, "%s: %s should contain %lld elements",
              etr_op_name(ctx), kNames[i], (long long)channels);
  }
  return ETR_OK;
}
