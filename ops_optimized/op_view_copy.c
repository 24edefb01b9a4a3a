// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::view_copy.out: self's elements in row-major order into
// out's (the reshape semantics of ops_reference/op_view_copy.c), moved by
// the movement engine: a dense self is one memcpy (or a transpose into a
// channels-last out); a strided self whose shape differs from out's only
// by size-1 dims, or any self going into a contiguous out, is a strided
// move. Every dtype; arguments are checked by the reference kernel's dry
// run. A strided self reshaped into a strided out, and an out overlapping
// self, go to the reference.
#include "ops_optimized/common/args.h"
#include "ops_optimized/common/dense.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"

// Moves self into out in row-major order of both; false when neither
// layout lets one side be read with the other's shape.
static bool move_reshaped(etr_tensor_t *out, const etr_tensor_t *self) {
  int64_t strides[ETR_MAX_DIMS];
  size_t element_size = etr_scalar_type_size(out->dtype);
  if (etr_move_reshape_strides(self, out->dim, out->sizes, strides)) {
    etr_move_strided(element_size, out->dim, out->sizes, out->data,
                     out->strides, self->data, strides);
    return true;
  }
  if (etr_move_reshape_strides(out, self->dim, self->sizes, strides)) {
    etr_move_strided(element_size, self->dim, self->sizes, out->data,
                     strides, self->data, self->strides);
    return true;
  }
  return false;
}

// The fast path: valid by construction when it returns true (a size list
// of out's exact sizes, no -1, as many elements as self;
// common/dense.h), then one memcpy. False leaves the call, untouched, to
// the general path.
// A vouched call repeats the first call's memcpy with no checks
// (etr_dense_copy_vouched).
static bool view_dense(etr_kernel_context_t *ctx, etr_evalue_t **args,
                       size_t num_args) {
  if (etr_dense_copy_vouched(ctx, args, 0, 2)) {
    return true;
  }
  if (num_args != 4) {
    return false;
  }
  etr_tensor_t *self = etr_dense_tensor_arg(args, 0);
  const etr_int_list_t *size = etr_dense_int_list_arg(args, 1);
  etr_tensor_t *out = etr_dense_tensor_arg(args, 2);
  if (self == NULL || size == NULL || out == NULL ||
      size->length != (size_t)out->dim) {
    return false;
  }
  for (size_t i = 0; i < size->length; ++i) {
    if (etr_dense_int_at(size, i) != out->sizes[i]) {
      return false;  // a -1 (sizes are never negative) or another shape
    }
  }
  return etr_dense_copy_reshaped(ctx, self, out);
}

// aten::view_copy.out
etr_error_t etr_opt_view_copy_out(etr_kernel_context_t *ctx,
                                  etr_evalue_t **args, size_t num_args) {
  if (view_dense(ctx, args, num_args)) {
    return ETR_OK;
  }
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 2);
  if (!etr_move_same_dtype(self, out) ||
      etr_opt_check(etr_ref_view_copy_out, ctx, args, num_args) != ETR_OK ||
      etr_move_overlaps(out, self) ||
      (!ctx->dry_run && !move_reshaped(out, self))) {
    return etr_opt_fallback(etr_ref_view_copy_out, ctx, args, num_args);
  }
  return ETR_OK;
}
