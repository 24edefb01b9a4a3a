// SPDX-License-Identifier: Apache-2.0
//
// aten::amin.out: out = the minimum of self over `dim` (an empty list
// means every dim), keeping reduced dims as size 1 when `keepdim`.
//
// Semantics of ATen's amin (measured on PyTorch 2.13): NaN propagates (any
// NaN in a slice gives NaN); ties keep the first element, so the sign of a
// zero result is that of the first zero; the result is the winning element
// itself (support/reduce_extrema.h). A reduction over a dim of size 0, or
// an empty self with no dim named, is refused (InvalidArgument); a 0-dim
// self accepts dim 0/-1. Bad or repeated dims and an out too small are
// InvalidArgument.
//
// Dtypes: every real dtype and Bool (not complex or uint16/32/64:
// NotSupported, as PyTorch's "min_values_cpu" not implemented); out must
// have self's dtype (InvalidArgument). Any layout in and out.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/reduce.h"
#include "ops_reference/support/reduce_extrema.h"

// aten::amin.out
etr_error_t etr_ref_amin_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                             size_t num_args) {
  etr_tensor_t *self = NULL;
  const int64_t *dims = NULL;
  size_t num_dims = 0;
  bool keepdim = false;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 5));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, 1, "dim", &dims, &num_dims));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 2, "keepdim", &keepdim));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "out", &out));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_REAL_AND_BOOL));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  uint32_t mask = 0;
  ETR_TRY(etr_reduction_prepare(ctx, self, dims, num_dims, true, keepdim, out,
                                &mask));
  ETR_TRY(etr_extremum_check_nonempty(ctx, "amin", self, mask, num_dims > 0));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  etr_extremum_reduce(self, mask, keepdim, false, out, NULL);
  return ETR_OK;
}
