// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::replication_pad2d.out: self padded on its last 2 dim(s) by
// replication of its edge elements, as boxes on the movement engine
// (movement/pad.c: the input range as whole rows, replicated edges by the
// fill microkernel of the active ISA, reflected ones element by element);
// any dtype and strides, bit-exact. The reference kernel
// (ops_reference/op_replication_pad2d.c) checks and resizes first (dry run); an
// out that overlaps self goes to it.
#include "ops_optimized/common/args.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"

// aten::replication_pad2d.out
etr_error_t etr_opt_replication_pad2d_out(etr_kernel_context_t *ctx,
                                           etr_evalue_t **args,
                                           size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 2);
  if (!etr_move_same_dtype(self, out) ||
      etr_opt_check(etr_ref_replication_pad2d_out, ctx, args,
                    num_args) != ETR_OK ||
      etr_move_overlaps(out, self)) {
    return etr_opt_fallback(etr_ref_replication_pad2d_out, ctx, args,
                            num_args);
  }
  if (ctx->dry_run) {
    return ETR_OK;
  }
  const int64_t *padding = NULL;
  size_t num_padding = 0;
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, 1, "padding", &padding,
                           &num_padding));
  if (!etr_move_pad(out, self, padding, 2, false)) {
    return etr_opt_fallback(etr_ref_replication_pad2d_out, ctx, args,
                            num_args);
  }
  return ETR_OK;
}
