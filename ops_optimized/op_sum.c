// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::sum.IntList_out: a dense Float, Half or BFloat16 self
// summed into an out of its own dtype (or Float for a Half/BFloat16 self)
// over dims that form one run in memory order (innermost rows, middle or
// outer columns, every dim) runs the reduction driver (reduce/reduce.h):
// fp32 loads accumulated in double, rounded once to the out dtype, as the
// reference. A uint8 or int8..int64 self summed into an integer out runs
// the driver's integer loops (reduce/integer.c: a wrapping int64 sum
// wrapped to the out dtype, the reference's result). Everything else
// (Bool and complex sums, integers into floating outs and the reverse,
// non-dense or empty inputs, scattered dims) goes to the
// reference kernel (ops_reference/op_sum.c), which also reports argument
// errors; the reference's dry run checks and resizes before we compute.
// Tiny Float sums over one dim into an out already of the reduced shape
// skip all of that (sum_dense).
#include "ops_optimized/binary/integer.h"
#include "ops_optimized/common/args.h"
#include "ops_optimized/common/dense.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// The fast path of sum.IntList_out for tiny calls: valid by construction
// when it returns true (a dense Float self of at most kSumDenseMax
// elements, one Int dim in range or an empty list (every dim, as the
// reference reads it), a Bool keepdim, no dtype, a dense Float
// out already of the reduced shape and not overlapping self;
// common/dense.h). Each output sums its inputs in index order in double
// and rounds once, exactly as the reference does. False leaves the call,
// untouched, to the general path (the SIMD driver for larger inputs).
enum { kSumDenseMax = 1024 };

static bool sum_dense(etr_evalue_t **args, size_t num_args, bool dry_run) {
  if (num_args != 6 || args[2] == NULL || args[2]->tag != ETR_TAG_BOOL ||
      args[3] == NULL || args[3]->tag != ETR_TAG_NONE) {
    return false;
  }
  const etr_tensor_t *self = etr_dense_tensor_arg(args, 0);
  const etr_int_list_t *dims = etr_dense_int_list_arg(args, 1);
  etr_tensor_t *out = etr_dense_tensor_arg(args, 4);
  bool keepdim = args[2]->u.as_bool;
  int64_t n = 0;
  int64_t out_numel = 0;
  if (self == NULL || dims == NULL || out == NULL || dims->length > 1 ||
      self->dtype != ETR_FLOAT || out->dtype != ETR_FLOAT ||
      !etr_dense_row_major(self, &n) || n > kSumDenseMax ||
      !etr_dense_row_major(out, &out_numel)) {
    return false;
  }
  // The reduced dims: `dim` alone, or (an empty list) all of them.
  int32_t dim = 0;
  uint32_t mask = dims->length == 0 ? ~0u : 0u;
  if (dims->length == 1) {
    if (!etr_dense_dim(etr_dense_int_at(dims, 0), self->dim, &dim)) {
      return false;
    }
    mask = 1u << dim;
  }
  int32_t kept = 0;
  for (int32_t d = 0; d < self->dim; ++d) {
    bool reduced = (mask >> d) & 1u;
    if (reduced && !keepdim) {
      continue;
    }
    if (kept >= out->dim ||
        out->sizes[kept++] != (reduced ? 1 : self->sizes[d])) {
      return false;
    }
  }
  if (kept != out->dim) {
    return false;
  }
  if (!etr_dense_disjoint(self->data, (size_t)n * sizeof(float), out->data,
                          (size_t)out_numel * sizeof(float))) {
    return false;
  }
  if (dry_run) {
    return true;
  }
  bool all = dims->length == 0;
  int64_t outer = all ? 1 : etr_dense_product(self->sizes, 0, dim);
  int64_t along = all ? n : self->sizes[dim];
  int64_t inner =
      all ? 1 : etr_dense_product(self->sizes, dim + 1, self->dim);
  const float *x = self->data;
  float *y = out->data;
  for (int64_t o = 0; o < outer; ++o) {
    for (int64_t j = 0; j < inner; ++j) {
      double sum = 0.0;
      for (int64_t i = 0; i < along; ++i) {
        sum += (double)x[(o * along + i) * inner + j];
      }
      y[o * inner + j] = (float)sum;
    }
  }
  return true;
}

// aten::sum.IntList_out
etr_error_t etr_opt_sum_intlist_out(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 4);
  if (etr_reduce_memo_run(ctx, self, out, NULL)) {
    return ETR_OK;
  }
  if (sum_dense(args, num_args, ctx->dry_run)) {
    return ETR_OK;
  }
  bool integer = self != NULL && out != NULL &&
                 etr_int_dtype(self->dtype) &&
                 etr_int_dtype(out->dtype);
  if (num_args != 6 || self == NULL || out == NULL ||
      (!integer &&
       (!etr_reduce_is_f32_like(self->dtype) ||
        !(out->dtype == self->dtype || out->dtype == ETR_FLOAT)))) {
    return etr_opt_fallback(etr_ref_sum_intlist_out, ctx, args, num_args);
  }
  ETR_TRY(etr_opt_check(etr_ref_sum_intlist_out, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  bool has_dims = false;
  const int64_t *dims = NULL;
  size_t num_dims = 0;
  bool keepdim = false;
  uint32_t mask = 0;
  ETR_TRY(etr_arg_optional_int_list(ctx, args, num_args, 1, "dim", &has_dims,
                                    &dims, &num_dims));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 2, "keepdim", &keepdim));
  ETR_TRY(etr_dim_list_mask(ctx, dims, num_dims, has_dims, self->dim, &mask));
  etr_reduce_request_t request = {.op = ETR_REDUCE_SUM, .self = self,
                                  .mask = mask, .keepdim = keepdim,
                                  .values = out};
  if (!etr_reduce_run(ctx, &request)) {
    return etr_opt_fallback(etr_ref_sum_intlist_out, ctx, args, num_args);
  }
  return ETR_OK;
}
