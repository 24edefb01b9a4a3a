// SPDX-License-Identifier: Apache-2.0
//
// Softmax and log-softmax along one dim (see softmax.h).
#include "ops_reference/support/softmax.h"

#include <math.h>

#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/shape.h"

etr_error_t etr_softmax_kernel(etr_kernel_context_t *ctx, etr_evalue_t **args,
                               size_t num_args, bool log_variant) {
  etr_tensor_t *self = NULL;
  int64_t dim_arg = 0;
  bool half_to_float = false;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 5));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "dim", &dim_arg));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 2, "half_to_float",
                       &half_to_float));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "out", &out));
  ETR_CHECK(ctx->diag, !half_to_float, ETR_ERR_NOT_SUPPORTED,
            "%s: softmax with half to float conversion is not supported on "
            "CPU",
            etr_op_name(ctx));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_FLOATING));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  int32_t dim = 0;
  ETR_TRY(etr_normalize_dim(ctx, dim_arg, self->dim, &dim));
  ETR_TRY(etr_resize_out_like(ctx, out, self));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }

  // A 0-dim self has no dim to split; its single row has one element.
  uint32_t mask = self->dim > 0 ? 1u << dim : 0u;
  const etr_tensor_t *operands[2] = {self, out};
  etr_dim_split_t split;
  etr_dim_split_init(&split, mask, operands, 2);
  etr_scalar_type_t dtype = self->dtype;
  for (int64_t row = 0; row < split.outer_count; ++row) {
    int64_t in_base = etr_dim_split_outer(&split, 0, row);
    int64_t out_base = etr_dim_split_outer(&split, 1, row);
    double max = -INFINITY;
    for (int64_t i = 0; i < split.inner_count; ++i) {
      double x = etr_load_double(
          dtype, etr_element_at(self, in_base +
                                          etr_dim_split_inner(&split, 0, i)));
      // NaN wins, as ATen's max does.
      max = (x > max || isnan(x)) ? x : max;
    }
    double sum = 0.0;
    for (int64_t i = 0; i < split.inner_count; ++i) {
      double x = etr_load_double(
          dtype, etr_element_at(self, in_base +
                                          etr_dim_split_inner(&split, 0, i)));
      sum += exp(x - max);
    }
    double log_sum = log(sum);
    for (int64_t i = 0; i < split.inner_count; ++i) {
      double x = etr_load_double(
          dtype, etr_element_at(self, in_base +
                                          etr_dim_split_inner(&split, 0, i)));
      double y = log_variant ? x - max - log_sum : exp(x - max) / sum;
      etr_store_double(
          dtype,
          etr_element_at(out, out_base + etr_dim_split_inner(&split, 1, i)),
          y);
    }
  }
  return ETR_OK;
}
