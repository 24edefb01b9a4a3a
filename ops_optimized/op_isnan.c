// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::isnan.out with a Bool out, for a Float, Half or BFloat16
// self (the comparison microkernels through unary/predicate.h) and for an
// integer or Bool self (never NaN: the out is zeroed), in any layout
// binary/plan.h takes. Exact. Everything else, and argument errors, go to
// the reference kernel (ops_reference/op_isnan.c).
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/unary/predicate.h"
#include "ops_reference/ops_reference.h"

// aten::isnan.out
etr_error_t etr_opt_isnan_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                             size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 1);
  bool handled = false;
  etr_error_t status = ETR_OK;
  if (num_args == 3 && self != NULL && out != NULL) {
    status = etr_predicate_execute(ctx, ETR_PREDICATE_ISNAN, self, out,
                                   &handled);
  }
  return handled ? status
                 : etr_opt_fallback(etr_ref_isnan_out, ctx, args, num_args);
}
