// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::flip.out: the reference's view of self with the flipped
// dims' strides negated (starting at their last element) moved into out by
// the movement engine: dims not flipped keep memcpy runs, a flipped
// innermost dim is a typed reverse loop. Every dtype; arguments are
// checked by the reference kernel's dry run (ops_reference/op_flip.c),
// and an out overlapping self goes to it.
#include "ops_optimized/common/args.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// aten::flip.out
etr_error_t etr_opt_flip_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                             size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 2);
  if (!etr_move_same_dtype(self, out) ||
      etr_opt_check(etr_ref_flip_out, ctx, args, num_args) != ETR_OK ||
      etr_move_overlaps(out, self)) {
    return etr_opt_fallback(etr_ref_flip_out, ctx, args, num_args);
  }
  if (ctx->dry_run) {
    return ETR_OK;
  }
  const int64_t *dims = NULL;
  size_t num_dims = 0;
  uint32_t mask = 0;
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, 1, "dims", &dims, &num_dims));
  if (num_dims > 0) {
    ETR_TRY(etr_dim_list_mask(ctx, dims, num_dims, true, self->dim, &mask));
  }
  int64_t offset = 0;
  int64_t strides[ETR_MAX_DIMS];
  bool empty = etr_numel(self) == 0;
  for (int32_t d = 0; d < self->dim; ++d) {
    strides[d] = self->strides[d];
    if ((mask >> d) & 1u) {
      offset += empty ? 0 : (self->sizes[d] - 1) * self->strides[d];
      strides[d] = -self->strides[d];
    }
  }
  size_t element_size = etr_scalar_type_size(self->dtype);
  etr_move_strided(element_size, out->dim, out->sizes, out->data,
                   out->strides,
                   (const char *)self->data + offset * (int64_t)element_size,
                   strides);
  return ETR_OK;
}
