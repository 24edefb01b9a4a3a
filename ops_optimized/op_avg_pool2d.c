// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::avg_pool2d.out: a dense Float, Half or BFloat16 input,
// contiguous [N, C, H, W] / [C, H, W] or channels-last, into an out of its
// dtype laid out alike (Half and BFloat16 staged through fp32 in
// ctx->temp, rounded once more),
// runs the pooling driver (pool/pool.h): NCHW rows vectorized across
// output columns (stride 1 and 2), borders (padding, ceil_mode) with
// ATen's divisor rules, NHWC pixels across channels; window sums in fp32
// divided once (exact for integer data). Other dtypes and layouts and
// argument errors go to the reference kernel
// (ops_reference/op_avg_pool2d.c), whose dry run checks and resizes first
// (skipped for avg_pool2d(2) on an out already of the result's shape,
// where it could only pass and change nothing).
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/pool/pool.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/pool.h"

// The arguments after self, read as the reference reads them (which
// fails first on a bad one).
static etr_error_t read_params(etr_kernel_context_t *ctx,
                               etr_evalue_t **args, size_t num_args,
                               etr_pool_params_t *p) {
  ETR_TRY(etr_pool2d_read_window(ctx, args, num_args, 1, p->kernel, p->stride,
                                 p->padding));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 4, "ceil_mode", &p->ceil_mode));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 5, "count_include_pad",
                       &p->count_include_pad));
  return etr_arg_optional_int(ctx, args, num_args, 6, "divisor_override",
                              &p->has_divisor, &p->divisor);
}

// True for avg_pool2d(2) (2x2, stride 2, no padding, floor mode, no zero
// divisor) on a Float input whose last three dims are at least 1 x 2 x 2
// with a Float out already of the result's shape: every check of the
// reference's dry run passes there and its resize changes nothing, so the
// call skips it (as op_max_pool2d_with_indices.c does).
static bool settled_2x2s2(const etr_pool_params_t *p,
                          const etr_tensor_t *self, const etr_tensor_t *out) {
  return etr_pool_is_2x2s2(p) && !p->ceil_mode &&
         !(p->has_divisor && p->divisor == 0) && out->dtype == ETR_FLOAT &&
         etr_pool_halves(self, out);
}

// aten::avg_pool2d.out
etr_error_t etr_opt_avg_pool2d_out(etr_kernel_context_t *ctx,
                                   etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 7);
  if (num_args != 9 || self == NULL || out == NULL ||
      !etr_reduce_is_f32_like(self->dtype)) {
    return etr_opt_fallback(etr_ref_avg_pool2d_out, ctx, args, num_args);
  }
  etr_pool_params_t p = {.dilation = {1, 1}};
  bool read = read_params(ctx, args, num_args, &p) == ETR_OK;
  if (!read || ctx->dry_run || !settled_2x2s2(&p, self, out)) {
    ETR_TRY(etr_opt_check(etr_ref_avg_pool2d_out, ctx, args, num_args));
    if (ctx->dry_run) {
      return ETR_OK;
    }
    if (!read) {
      ETR_TRY(read_params(ctx, args, num_args, &p));
    }
  }
  if (!etr_avg_pool2d_run(ctx->temp, self, &p, out)) {
    return etr_opt_fallback(etr_ref_avg_pool2d_out, ctx, args, num_args);
  }
  return ETR_OK;
}
