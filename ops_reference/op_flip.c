// SPDX-License-Identifier: Apache-2.0
//
// aten::flip.out: out = self with the order of elements reversed along each
// dim in `dims`.
//
// Dims wrap when negative; a dim out of range or named twice is
// InvalidArgument ("dim 0 appears multiple times in the list of dims").
// An empty list copies self; a 0-dim self accepts dim 0 / -1 and is
// copied. Any dtype; the out dtype must equal self's. The flip is a view
// of self with negated strides, copied into out.
//
// uint16/32/64: PyTorch 2.13 flips them only where its memcpy fast path
// applies (flipping a non-last dim of a contiguous tensor, or nothing to
// move); elsewhere its general kernel is not compiled for them ("flip_cpu"
// not implemented). That depends on memory layout, not on the values, so
// this kernel flips them in every case.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/shape.h"

// aten::flip.out
etr_error_t etr_ref_flip_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                             size_t num_args) {
  etr_tensor_t *self = NULL;
  const int64_t *dims = NULL;
  size_t num_dims = 0;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, 1, "dims", &dims, &num_dims));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "out", &out));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_NUMERIC));
  uint32_t mask = 0;
  if (num_dims > 0) {
    ETR_TRY(etr_dim_list_mask(ctx, dims, num_dims, true, self->dim, &mask));
  }
  ETR_TRY(etr_resize_out_like(ctx, out, self));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  // Start at the last element of every flipped dim and walk backwards.
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
  etr_tensor_t view;
  etr_make_view(self, offset, self->dim, self->sizes, strides, &view);
  etr_copy_strided(out, &view);
  return ETR_OK;
}
