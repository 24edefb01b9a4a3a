// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::squeeze_copy.dims_out and aten::squeeze_copy.dim_out:
// out has self's elements without some size-1 dims, so self is read with
// out's shape and moved by the movement engine (one memcpy when both are
// dense). Every dtype; arguments are checked by the reference kernels' dry
// run (ops_reference/op_squeeze_copy.c), and an out overlapping self goes
// to them.
#include "ops_optimized/common/args.h"
#include "ops_optimized/common/dense.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"

// The fast path: valid by construction when it returns true (every dim in
// range and named once, out already of the result's shape;
// common/dense.h), then one memcpy. args[1] is the dim (dim_out, `list`
// false: an Int) or the list of dims (dims_out, `list` true: an int list;
// empty: none, as PyTorch); the other form is the reference's type error
// (the kernel_diff fuzzer found dims_out taking an Int here). False leaves
// the call, untouched, to the general path.
// A vouched call repeats the first call's memcpy with no checks
// (etr_dense_copy_vouched).
static bool squeeze_dense(etr_kernel_context_t *ctx, etr_evalue_t **args,
                          size_t num_args, bool list) {
  if (etr_dense_copy_vouched(ctx, args, 0, 2)) {
    return true;
  }
  if (num_args != 4) {
    return false;
  }
  etr_tensor_t *self = etr_dense_tensor_arg(args, 0);
  etr_tensor_t *out = etr_dense_tensor_arg(args, 2);
  if (self == NULL || out == NULL || self->dim <= 0 || args[1] == NULL) {
    return false;
  }
  uint32_t mask = 0;
  int32_t dim = 0;
  if (!list) {
    if (args[1]->tag != ETR_TAG_INT) {
      return false;
    }
    if (!etr_dense_dim(args[1]->u.as_int, self->dim, &dim)) {
      return false;
    }
    mask = 1u << dim;
  } else {
    const etr_int_list_t *dims = etr_dense_int_list_arg(args, 1);
    if (dims == NULL) {
      return false;
    }
    for (size_t i = 0; i < dims->length; ++i) {
      if (!etr_dense_dim(etr_dense_int_at(dims, i), self->dim, &dim) ||
          (mask & (1u << dim)) != 0) {
        return false;
      }
      mask |= 1u << dim;
    }
  }
  int32_t kept = 0;
  for (int32_t i = 0; i < self->dim; ++i) {
    if (((mask >> i) & 1u) && self->sizes[i] == 1) {
      continue;
    }
    if (kept >= out->dim || out->sizes[kept] != self->sizes[i]) {
      return false;
    }
    ++kept;
  }
  return kept == out->dim && etr_dense_copy_reshaped(ctx, self, out);
}

static etr_error_t squeeze(etr_kernel_fn reference, bool list,
                           etr_kernel_context_t *ctx, etr_evalue_t **args,
                           size_t num_args) {
  if (squeeze_dense(ctx, args, num_args, list)) {
    return ETR_OK;
  }
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 2);
  int64_t strides[ETR_MAX_DIMS];
  if (!etr_move_same_dtype(self, out) ||
      etr_opt_check(reference, ctx, args, num_args) != ETR_OK ||
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
  return squeeze(etr_ref_squeeze_copy_dims_out, true, ctx, args, num_args);
}

// aten::squeeze_copy.dim_out
etr_error_t etr_opt_squeeze_copy_dim_out(etr_kernel_context_t *ctx,
                                         etr_evalue_t **args,
                                         size_t num_args) {
  return squeeze(etr_ref_squeeze_copy_dim_out, false, ctx, args, num_args);
}
