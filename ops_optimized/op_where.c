// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::where.self_out: out = condition ? self : other with the
// three inputs broadcast together (ternary/ternary_driver.c): a Bool or
// uint8 condition, self/other/out of one dtype of 1, 2, 4 or 8 bytes (a
// one-element self or other of another dtype is converted first, as the
// reference converts it), any layout binary/plan.h can express. Values are
// copied bit for bit (SIMD for 4-byte dtypes). Everything else, and
// argument errors, go to the reference kernel (ops_reference/op_where.c).
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/ternary/ternary.h"
#include "ops_reference/ops_reference.h"

// aten::where.self_out
etr_error_t etr_opt_where_self_out(etr_kernel_context_t *ctx,
                                   etr_evalue_t **args, size_t num_args) {
  bool handled = false;
  etr_error_t status = etr_where_execute(ctx, args, num_args, &handled);
  return handled ? status
                 : etr_opt_fallback(etr_ref_where_self_out, ctx, args,
                                    num_args);
}
