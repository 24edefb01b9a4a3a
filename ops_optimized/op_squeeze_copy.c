// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::squeeze_copy.dims_out and aten::squeeze_copy.dim_out:
// out has self's elements without some size-1 dims, so self is read with
// out's shape and moved by the movement engine (one memcpy when both are
// dense). Every dtype; arguments are checked by the reference kernels' dry
// run (ops_reference/op_squeeze_copy.c), and an out overlapping self goes
// to them.
#include "ops_optimized/common/args.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"

static etr_error_t squeeze(etr_kernel_fn reference, etr_kernel_context_t *ctx,
                           etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 2);
  int64_t strides[ETR_MAX_DIMS];
  if (!etr_move_same_dtype(self, out) ||
      etr_move_validate(reference, ctx, args, num_args) != ETR_OK ||
      etr_move_overlaps(out, self) ||
      !etr_move_reshape_strides(self, out->dim, out->sizes, strides)) {
    return etr_opt_fallback(reference, ctx, args, num_args);
  }
  if (!ctx->dry_run) {
    etr_move_strided(etr_scalar_type_size(out->dtype), out->dim, out->sizes,
                     out->data, out->strides, self->data, strides);
  }
  return ETR_OK;
}

// aten::squeeze_copy.dims_out
etr_error_t etr_opt_squeeze_copy_dims_out(etr_kernel_context_t *ctx,
                                          etr_evalue_t **args,
                                          size_t num_args) {
  return squeeze(etr_ref_squeeze_copy_dims_out, ctx, args, num_args);
}

// aten::squeeze_copy.dim_out
etr_error_t etr_opt_squeeze_copy_dim_out(etr_kernel_context_t *ctx,
                                         etr_evalue_t **args,
                                         size_t num_args) {
  return squeeze(etr_ref_squeeze_copy_dim_out, ctx, args, num_args);
}
