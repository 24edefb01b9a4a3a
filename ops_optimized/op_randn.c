// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::randn.out: a contiguous Float or Double out filled with
// standard normal values in pairs by the polar method, each attempt the
// reference's own etr_reduce_rng_polar on the same two draws
// (random/random.h). The SplitMix64 stream is counter-based, so the
// active ISA's kernel computes blocks of draws in parallel lanes; values,
// their order and the generator's final state are exactly the
// reference's for every seed. Other dtypes and layouts and argument
// errors go to the reference kernel (ops_reference/op_randn.c), whose
// dry run checks and resizes first.
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/random/random.h"
#include "ops_optimized/reduce/reduce.h"
#include "ops_reference/ops_reference.h"

// aten::randn.out
etr_error_t etr_opt_randn_out(etr_kernel_context_t *ctx,
                              etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 1);
  if (num_args != 3 || out == NULL ||
      (out->dtype != ETR_FLOAT && out->dtype != ETR_DOUBLE)) {
    return etr_opt_fallback(etr_ref_randn_out, ctx, args, num_args);
  }
  ETR_TRY(
      etr_opt_check(etr_ref_randn_out, ctx, args, num_args));
  if (ctx->dry_run) {
    return ETR_OK;
  }
  if (!etr_random_normal_run(ctx, out)) {
    return etr_opt_fallback(etr_ref_randn_out, ctx, args, num_args);
  }
  return ETR_OK;
}
