// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::arange.start_out: a contiguous Float, Double or Long out
// filled by a flat loop (the compiler vectorizes it) with the reference's
// element rule: start + step * i in double rounded once to the dtype
// (Float, Double), or int64 wrapping from start and step as the reference
// truncates them (Long, integer Scalars only): bit-exact. Other dtypes and
// layouts, Double Scalars into Long and argument errors go to the
// reference kernel (ops_reference/op_arange.c), whose dry run checks and
// resizes first.
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// aten::arange.start_out
etr_error_t etr_opt_arange_start_out(etr_kernel_context_t *ctx,
                                     etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 3);
  if (num_args != 5 || out == NULL ||
      (out->dtype != ETR_FLOAT && out->dtype != ETR_DOUBLE &&
       out->dtype != ETR_LONG)) {
    return etr_opt_fallback(etr_ref_arange_start_out, ctx, args, num_args);
  }
  ETR_TRY(etr_opt_check(etr_ref_arange_start_out, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  etr_scalar_t start;
  etr_scalar_t step;
  ETR_TRY(etr_arg_scalar(ctx, args, num_args, 0, "start", &start));
  ETR_TRY(etr_arg_scalar(ctx, args, num_args, 2, "step", &step));
  bool integer_scalars =
      start.kind == ETR_SCALAR_INT && step.kind == ETR_SCALAR_INT;
  if (!etr_tensor_is_contiguous(out) ||
      (out->dtype == ETR_LONG && !integer_scalars)) {
    return etr_opt_fallback(etr_ref_arange_start_out, ctx, args, num_args);
  }
  int64_t count = etr_numel(out);
  if (out->dtype == ETR_LONG) {
    uint64_t first = (uint64_t)start.as_int;
    uint64_t stride = (uint64_t)step.as_int;
    int64_t *y = (int64_t *)out->data;
    for (int64_t i = 0; i < count; ++i) {
      y[i] = (int64_t)(first + stride * (uint64_t)i);
    }
  } else if (out->dtype == ETR_FLOAT) {
    float *y = (float *)out->data;
    for (int64_t i = 0; i < count; ++i) {
      y[i] = (float)(start.as_double + step.as_double * (double)i);
    }
  } else {
    double *y = (double *)out->data;
    for (int64_t i = 0; i < count; ++i) {
      y[i] = start.as_double + step.as_double * (double)i;
    }
  }
  return ETR_OK;
}
