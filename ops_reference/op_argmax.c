// SPDX-License-Identifier: Apache-2.0
//
// aten::argmax.out: out = the index of the maximum of self along `dim`,
// or in the flattened self when dim is None (the flat row-major index;
// with keepdim every dim becomes 1).
//
// Semantics of ATen's argmax (measured on PyTorch 2.13): the first NaN
// wins; ties give the first index (support/reduce_extrema.h). A dim of
// size 0, or an empty self with dim None, is refused (InvalidArgument); a
// 0-dim self gives 0. A bad dim and an out too small are InvalidArgument.
//
// Dtypes: every real dtype; Bool ("argmax(): does not support bool
// input"), complex and uint16/32/64 are NotSupported. The out must be Long
// (InvalidArgument). Any layout in and out.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/reduce.h"
#include "ops_reference/support/reduce_extrema.h"

// aten::argmax.out
etr_error_t etr_ref_argmax_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                               size_t num_args) {
  etr_tensor_t *self = NULL;
  bool has_dim = false;
  int64_t dim = 0;
  bool keepdim = false;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 5));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_optional_int(ctx, args, num_args, 1, "dim", &has_dim, &dim));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 2, "keepdim", &keepdim));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "out", &out));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_REAL));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, ETR_LONG));
  uint32_t mask = 0;
  ETR_TRY(etr_reduction_prepare(ctx, self, &dim, 1, has_dim, keepdim, out,
                                &mask));
  ETR_TRY(etr_extremum_check_nonempty(ctx, "argmax", self, mask, has_dim));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  etr_extremum_reduce(self, mask, keepdim, true, NULL, out);
  return ETR_OK;
}
