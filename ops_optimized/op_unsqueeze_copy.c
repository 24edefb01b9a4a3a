// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::unsqueeze_copy.out: out has self's elements with a
// size-1 dim inserted, so self is read with out's shape (the size-1 dim
// never steps) and moved by the movement engine (one memcpy when both are
// dense). Every dtype; arguments are checked by the reference kernel's dry
// run (ops_reference/op_unsqueeze_copy.c), and an out overlapping self goes
// to it.
#include "ops_optimized/common/args.h"
#include "ops_optimized/common/dense.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"

// The fast path: valid by construction when it returns true (dim in
// range, out already of the result's shape; common/dense.h), then one
// memcpy. False leaves the call, untouched, to the general path.
// A vouched call repeats the first call's memcpy with no checks
// (etr_dense_copy_vouched).
static bool unsqueeze_dense(etr_kernel_context_t *ctx, etr_evalue_t **args,
                            size_t num_args) {
  if (etr_dense_copy_vouched(ctx, args, 0, 2)) {
    return true;
  }
  if (num_args != 4) {
    return false;
  }
  etr_tensor_t *self = etr_dense_tensor_arg(args, 0);
  etr_tensor_t *out = etr_dense_tensor_arg(args, 2);
  int64_t dim_arg = 0;
  int32_t position = 0;
  if (self == NULL || out == NULL || self->dim >= ETR_MAX_DIMS ||
      !etr_dense_int_arg(args, 1, &dim_arg) ||
      !etr_dense_dim(dim_arg, self->dim + 1, &position) ||
      out->dim != self->dim + 1 || out->sizes[position] != 1) {
    return false;
  }
  for (int32_t i = 0, source = 0; i < out->dim; ++i) {
    if (i != position && out->sizes[i] != self->sizes[source++]) {
      return false;
    }
  }
  return etr_dense_copy_reshaped(ctx, self, out);
}

// aten::unsqueeze_copy.out
etr_error_t etr_opt_unsqueeze_copy_out(etr_kernel_context_t *ctx,
                                       etr_evalue_t **args,
                                       size_t num_args) {
  if (unsqueeze_dense(ctx, args, num_args)) {
    return ETR_OK;
  }
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 2);
  int64_t strides[ETR_MAX_DIMS];
  if (!etr_move_same_dtype(self, out) ||
      etr_opt_check(etr_ref_unsqueeze_copy_out, ctx, args, num_args) !=
          ETR_OK ||
      etr_move_overlaps(out, self) ||
      !etr_move_reshape_strides(self, out->dim, out->sizes, strides)) {
    return etr_opt_fallback(etr_ref_unsqueeze_copy_out, ctx, args,
                            num_args);
  }
  if (!ctx->dry_run) {
    etr_move_strided(etr_scalar_type_size(out->dtype), out->dim, out->sizes,
                     out->data, out->strides, self->data, strides);
  }
  return ETR_OK;
}
