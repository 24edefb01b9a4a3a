// SPDX-License-Identifier: Apache-2.0
//
// aten::scatter_reduce.two_out: out = self, then every out element named by
// index is reduced with the src values scattered to it (and with its own
// value when include_self), by "sum", "prod", "mean", "amax" or "amin".
//
// Shapes, index dtype (int64 or int32) and bounds as aten::scatter.src_out
// (support/movement_scatter.h), all InvalidArgument; src must have self's
// dtype. Elements no index names keep self's value. With include_self
// false the reduction starts from its identity (0, 1, -inf / the dtype's
// lowest, +inf / its highest). Arithmetic follows ATen's CPU kernel:
// op-math accumulation in index order (float for Half, BFloat16 and
// Float, double for Double, wrapping int64 for integers, "or"/"and" for
// Bool); amax/amin propagate NaN; "mean" rounds the sum to the dtype and
// divides it by the count (converted to the dtype, as ATen keeps it in a
// tensor of self's dtype), with floor division for integers.
//
// "max" and "min" are accepted as "amax" and "amin" (as PyTorch 2.13
// does); any other reduce string is InvalidArgument. Dtypes, as PyTorch:
// sum/prod: real, Bool and complex; mean: real and complex (not Bool);
// amax/amin: real and Bool (not complex); uint16/32/64 never
// (NotSupported). The out dtype must equal self's.
#include <string.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/movement_scatter.h"
#include "ops_reference/support/shape.h"

// aten::scatter_reduce.two_out
etr_error_t etr_ref_scatter_reduce_two_out(etr_kernel_context_t *ctx,
                                           etr_evalue_t **args,
                                           size_t num_args) {
  etr_tensor_t *self = NULL;
  int64_t dim_arg = 0;
  etr_tensor_t *index = NULL;
  etr_tensor_t *src = NULL;
  const char *reduce_name = NULL;
  bool include_self = true;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 8));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "dim", &dim_arg));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "index", &index));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "src", &src));
  ETR_TRY(etr_arg_string(ctx, args, num_args, 4, "reduce", &reduce_name));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 5, "include_self",
                       &include_self));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 6, "out", &out));

  static const struct {
    const char *name;
    etr_movement_reduce_t reduce;
    etr_dtype_set_t dtypes;
  } kReductions[] = {
      {"sum", ETR_MOVEMENT_SUM, ETR_DTYPES_ALL},
      {"prod", ETR_MOVEMENT_PROD, ETR_DTYPES_ALL},
      {"mean", ETR_MOVEMENT_MEAN, ETR_DTYPES_REAL | ETR_DTYPES_COMPLEX},
      {"amax", ETR_MOVEMENT_AMAX, ETR_DTYPES_REAL_AND_BOOL},
      {"amin", ETR_MOVEMENT_AMIN, ETR_DTYPES_REAL_AND_BOOL},
      // PyTorch 2.13 also takes the legacy scatter_reduce_ names.
      {"max", ETR_MOVEMENT_AMAX, ETR_DTYPES_REAL_AND_BOOL},
      {"min", ETR_MOVEMENT_AMIN, ETR_DTYPES_REAL_AND_BOOL},
  };
  size_t which = sizeof(kReductions) / sizeof(kReductions[0]);
  for (size_t i = 0; i < sizeof(kReductions) / sizeof(kReductions[0]); ++i) {
    if (strcmp(reduce_name, kReductions[i].name) == 0) {
      which = i;
    }
  }
  ETR_CHECK(ctx->diag, which < sizeof(kReductions) / sizeof(kReductions[0]),
            ETR_ERR_INVALID_ARGUMENT,
            "%s: reduce argument must be either sum, prod, mean, amax or "
            "amin, got %s",
            etr_op_name(ctx), reduce_name);
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype,
                          kReductions[which].dtypes));
  int32_t dim = 0;
  ETR_TRY(etr_normalize_dim(ctx, dim_arg, self->dim, &dim));
  ETR_TRY(etr_movement_check_scatter(ctx, self, dim, index, src));
  ETR_TRY(etr_resize_out_like(ctx, out, self));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  etr_tensor_t self_view;
  etr_movement_nonempty_view(self, &self_view);
  ETR_TRY(etr_movement_check_index_bounds(ctx, index, dim,
                                          self_view.sizes[dim]));
  etr_movement_scatter(self, dim, index, src, NULL, kReductions[which].reduce,
                       include_self, out);
  return ETR_OK;
}
