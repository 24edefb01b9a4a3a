// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::any.all_out, aten::any.dims_out and aten::any.out: a
// dense Float, Half, BFloat16, Bool or integer (uint8, int8..int64)
// self reduced into a Bool out over dims forming one run in memory order
// runs the reduction driver (reduce/reduce.h; Half and BFloat16 converted
// to fp32, exactly; integers in reduce/integer.c): a float element counts
// when it is not +-0 (NaN counts), a Bool byte or an integer when it is
// not 0; float rows stop at their first hit. Other dtypes (and the uint8
// out, which ATen reduces through uint8 conversions), layouts, empty
// inputs and argument errors go to the reference kernel
// (ops_reference/op_any.c), whose dry run checks and resizes first.
// any.all_out on a dense Float, Half, BFloat16 or Bool self into an out
// that is already a 0-dim Bool tensor skips the driver and the dry run
// (any_all_dense; a Half or BFloat16 element counts when a bit other than
// its sign is set).
#include "ops_optimized/binary/integer.h"
#include "ops_optimized/common/args.h"
#include "ops_optimized/common/dense.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

static bool specialized_dtypes(const etr_tensor_t *self,
                               const etr_tensor_t *out) {
  return self != NULL && out != NULL &&
         (etr_reduce_is_f32_like(self->dtype) || self->dtype == ETR_BOOL ||
          etr_int_dtype(self->dtype)) &&
         out->dtype == ETR_BOOL;
}

static bool run(etr_kernel_context_t *ctx, etr_tensor_t *self, uint32_t mask,
                bool keepdim, etr_tensor_t *out) {
  etr_reduce_request_t request = {.op = ETR_REDUCE_ANY, .self = self,
                                  .mask = mask, .keepdim = keepdim,
                                  .values = out};
  return etr_reduce_run(ctx, &request);
}

// True when some element of x[0..n) is not +-0 (NaN counts), 64
// elements per check so the compiler vectorizes the block.
static bool any_float(const float *x, int64_t n) {
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    int hits = 0;
    for (int k = 0; k < 64; ++k) {
      hits |= x[i + k] != 0.0f;
    }
    if (hits) {
      return true;
    }
  }
  for (; i < n; ++i) {
    if (x[i] != 0.0f) {
      return true;
    }
  }
  return false;
}

// True when some 16-bit float of x[0..n) is not +-0 (NaN counts).
static bool any_16(const uint16_t *x, int64_t n) {
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    int hits = 0;
    for (int k = 0; k < 64; ++k) {
      hits |= (x[i + k] & 0x7fffu) != 0;
    }
    if (hits) {
      return true;
    }
  }
  for (; i < n; ++i) {
    if ((x[i] & 0x7fffu) != 0) {
      return true;
    }
  }
  return false;
}

// True when some byte of x[0..n) is not 0.
static bool any_byte(const uint8_t *x, int64_t n) {
  int64_t i = 0;
  for (; i + 64 <= n; i += 64) {
    int hits = 0;
    for (int k = 0; k < 64; ++k) {
      hits |= x[i + k] != 0;
    }
    if (hits) {
      return true;
    }
  }
  for (; i < n; ++i) {
    if (x[i] != 0) {
      return true;
    }
  }
  return false;
}

// The fast path of any.all_out: valid by construction when it returns
// true (a non-empty dense Float, Half, BFloat16 or Bool self, an out that
// is a 0-dim Bool tensor already; common/dense.h). False leaves the call,
// untouched, to the general path.
static bool any_all_dense(etr_evalue_t **args, size_t num_args,
                          bool dry_run) {
  if (num_args != 3) {
    return false;
  }
  const etr_tensor_t *self = etr_dense_tensor_arg(args, 0);
  etr_tensor_t *out = etr_dense_tensor_arg(args, 1);
  int64_t n = 0;
  if (self == NULL || out == NULL || out->dtype != ETR_BOOL ||
      out->dim != 0 || out->data == NULL ||
      (!etr_reduce_is_f32_like(self->dtype) && self->dtype != ETR_BOOL) ||
      !etr_dense_row_major(self, &n)) {
    return false;
  }
  if (!dry_run) {
    bool any = self->dtype == ETR_FLOAT  ? any_float(self->data, n)
               : self->dtype == ETR_BOOL ? any_byte(self->data, n)
                                         : any_16(self->data, n);
    *(uint8_t *)out->data = any ? 1 : 0;
  }
  return true;
}

// aten::any.all_out
etr_error_t etr_opt_any_all_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                                size_t num_args) {
  if (any_all_dense(args, num_args, ctx->dry_run)) {
    return ETR_OK;
  }
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 1);
  if (num_args != 3 || !specialized_dtypes(self, out)) {
    return etr_opt_fallback(etr_ref_any_all_out, ctx, args, num_args);
  }
  ETR_TRY(etr_opt_check(etr_ref_any_all_out, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  uint32_t mask = self->dim > 0 ? (uint32_t)((1ull << self->dim) - 1u) : 0u;
  return run(ctx, self, mask, false, out)
             ? ETR_OK
             : etr_opt_fallback(etr_ref_any_all_out, ctx, args, num_args);
}

// aten::any.dims_out
etr_error_t etr_opt_any_dims_out(etr_kernel_context_t *ctx,
                                 etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 3);
  if (num_args != 5 || !specialized_dtypes(self, out)) {
    return etr_opt_fallback(etr_ref_any_dims_out, ctx, args, num_args);
  }
  ETR_TRY(etr_opt_check(etr_ref_any_dims_out, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  bool has_dims = false;
  const int64_t *dims = NULL;
  size_t num_dims = 0;
  bool keepdim = false;
  uint32_t mask = 0;  // an empty list reduces nothing
  ETR_TRY(etr_arg_optional_int_list(ctx, args, num_args, 1, "dim", &has_dims,
                                    &dims, &num_dims));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 2, "keepdim", &keepdim));
  if (!has_dims || num_dims > 0) {
    ETR_TRY(etr_dim_list_mask(ctx, dims, num_dims, has_dims, self->dim,
                              &mask));
  }
  return run(ctx, self, mask, keepdim, out)
             ? ETR_OK
             : etr_opt_fallback(etr_ref_any_dims_out, ctx, args, num_args);
}

// aten::any.out
etr_error_t etr_opt_any_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                            size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 3);
  if (num_args != 5 || !specialized_dtypes(self, out)) {
    return etr_opt_fallback(etr_ref_any_out, ctx, args, num_args);
  }
  ETR_TRY(etr_opt_check(etr_ref_any_out, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  int64_t dim = 0;
  bool keepdim = false;
  uint32_t mask = 0;
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "dim", &dim));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 2, "keepdim", &keepdim));
  ETR_TRY(etr_dim_list_mask(ctx, &dim, 1, true, self->dim, &mask));
  return run(ctx, self, mask, keepdim, out)
             ? ETR_OK
             : etr_opt_fallback(etr_ref_any_out, ctx, args, num_args);
}
