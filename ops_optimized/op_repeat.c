// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::repeat.out: out dim d of size repeats[d] * size(d) is
// read as two dims, (repeat, position), whose source strides are
// (0, self's stride), and the 2 * rank box is moved by the movement
// engine: each tile is a memcpy of self's rows (or a fill when the
// innermost dim is repeated single elements). Every dtype; arguments are
// checked by the reference kernel's dry run (ops_reference/op_repeat.c),
// and an out overlapping self goes to it.
#include "ops_optimized/common/args.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// aten::repeat.out
etr_error_t etr_opt_repeat_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                               size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 2);
  if (!etr_move_same_dtype(self, out) ||
      etr_opt_check(etr_ref_repeat_out, ctx, args, num_args) != ETR_OK ||
      etr_move_overlaps(out, self)) {
    return etr_opt_fallback(etr_ref_repeat_out, ctx, args, num_args);
  }
  if (ctx->dry_run || etr_numel(out) == 0) {
    return ETR_OK;
  }
  int32_t lead = out->dim - self->dim;
  int64_t sizes[2 * ETR_MAX_DIMS];
  int64_t dst_strides[2 * ETR_MAX_DIMS];
  int64_t src_strides[2 * ETR_MAX_DIMS];
  for (int32_t d = 0; d < out->dim; ++d) {
    int64_t size = d < lead ? 1 : self->sizes[d - lead];
    sizes[2 * d] = out->sizes[d] / size;  // the repeat count
    dst_strides[2 * d] = out->strides[d] * size;
    src_strides[2 * d] = 0;
    sizes[2 * d + 1] = size;
    dst_strides[2 * d + 1] = out->strides[d];
    src_strides[2 * d + 1] = d < lead ? 0 : self->strides[d - lead];
  }
  etr_move_strided(etr_scalar_type_size(out->dtype), 2 * out->dim, sizes,
                   out->data, dst_strides, self->data, src_strides);
  return ETR_OK;
}
