// SPDX-License-Identifier: Apache-2.0
//
// Normalization dtype rules (see norm.h).
#include "ops_reference/support/norm.h"

#include "ops_reference/support/dtype.h"

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
