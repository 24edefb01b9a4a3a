// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::nonzero.out: a contiguous Float, Double, Half, BFloat16,
// Long, Int, Byte or Bool self, typed: one counting pass (a flat
// compare-and-add loop the compiler vectorizes; NaN counts, -0.0 does not,
// as in the reference: a Half or BFloat16 element counts when a bit other
// than its sign is set), the out resized to [count, rank] exactly as the
// reference resizes it, then one pass writing the row-major indices of the
// non-zero elements with an odometer, into an out of either dim order
// (row-major, or (1, 0) as ExecuTorch's exporter plans it): the
// reference's result, bit for bit, without its per-element dtype
// dispatch. Other dtypes and layouts and argument errors go to the
// reference kernel (ops_reference/op_nonzero.c), whose dry run checks and
// resizes first.
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// Whether element i of the contiguous buffer is non-zero.
static inline bool nonzero_at(etr_scalar_type_t dtype, const void *data,
                              int64_t i) {
  switch (dtype) {
    case ETR_FLOAT:
      return ((const float *)data)[i] != 0.0f;
    case ETR_DOUBLE:
      return ((const double *)data)[i] != 0.0;
    case ETR_LONG:
      return ((const int64_t *)data)[i] != 0;
    case ETR_INT:
      return ((const int32_t *)data)[i] != 0;
    case ETR_HALF:
    case ETR_BFLOAT16:  // not +-0 (NaN and denormals count)
      return (((const uint16_t *)data)[i] & 0x7fffu) != 0;
    default:  // Byte, Bool
      return ((const uint8_t *)data)[i] != 0;
  }
}

static int64_t count_nonzero(etr_scalar_type_t dtype, const void *data,
                             int64_t n) {
  int64_t count = 0;
  switch (dtype) {
    case ETR_FLOAT: {
      const float *x = (const float *)data;
      for (int64_t i = 0; i < n; ++i) {
        count += x[i] != 0.0f;
      }
      return count;
    }
    case ETR_LONG: {
      const int64_t *x = (const int64_t *)data;
      for (int64_t i = 0; i < n; ++i) {
        count += x[i] != 0;
      }
      return count;
    }
    case ETR_HALF:
    case ETR_BFLOAT16: {
      const uint16_t *x = (const uint16_t *)data;
      for (int64_t i = 0; i < n; ++i) {
        count += (x[i] & 0x7fffu) != 0;
      }
      return count;
    }
    default:
      for (int64_t i = 0; i < n; ++i) {
        count += nonzero_at(dtype, data, i);
      }
      return count;
  }
}

// aten::nonzero.out
etr_error_t etr_opt_nonzero_out(etr_kernel_context_t *ctx,
                                etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 1);
  bool typed = self != NULL &&
               (self->dtype == ETR_FLOAT || self->dtype == ETR_DOUBLE ||
                self->dtype == ETR_HALF || self->dtype == ETR_BFLOAT16 ||
                self->dtype == ETR_LONG || self->dtype == ETR_INT ||
                self->dtype == ETR_BYTE || self->dtype == ETR_BOOL);
  if (num_args != 3 || !typed || out == NULL ||
      !etr_tensor_is_contiguous(self)) {
    return etr_opt_fallback(etr_ref_nonzero_out, ctx, args, num_args);
  }
  ETR_TRY(
      etr_opt_check(etr_ref_nonzero_out, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  int64_t numel = etr_numel(self);
  int32_t rank = self->dim;
  int64_t sizes[2] = {count_nonzero(self->dtype, self->data, numel), rank};
  ETR_TRY(etr_resize_out(ctx, out, 2, sizes));
  // Row-major [count, rank], or dim order (1, 0), the layout ExecuTorch's
  // exporter plans for nonzero's result (ATen returns its transpose).
  int64_t *y = (int64_t *)out->data;
  int64_t row_step = out->strides[0];
  int64_t column_step = out->strides[1];
  int64_t index[ETR_MAX_DIMS] = {0};
  for (int64_t i = 0; i < numel; ++i) {
    if (nonzero_at(self->dtype, self->data, i)) {
      for (int32_t d = 0; d < rank; ++d) {
        y[d * column_step] = index[d];
      }
      y += row_step;
    }
    for (int32_t d = rank - 1; d >= 0; --d) {
      if (++index[d] < self->sizes[d]) {
        break;
      }
      index[d] = 0;
    }
  }
  return ETR_OK;
}
