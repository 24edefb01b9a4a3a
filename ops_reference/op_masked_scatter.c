// SPDX-License-Identifier: Apache-2.0
//
// aten::masked_scatter.out: out = self with the positions where `mask` is
// True replaced, in row-major order, by consecutive elements of `source`.
//
// PyTorch's functional masked_scatter broadcasts self and mask to a common
// shape (expand_outplace: either may be the smaller one, so a [3] self with
// a [2, 1] mask gives [2, 3]), clones self to that shape and scatters into
// it; the out variant then copies that result into `out`. So:
//   * `out` is resized to broadcast(self.shape, mask.shape) and must have
//     exactly self's dtype (InvalidArgument otherwise);
//   * `source` must have self's dtype (InvalidArgument, PyTorch's
//     "expected self and source to have same dtypes"); its shape does not
//     matter: its elements are consumed in its own row-major logical order,
//     whatever its strides, one per True position of the broadcast mask
//     taken in row-major order;
//   * `mask` must be Bool (InvalidArgument: PyTorch 2.13 also refuses uint8
//     masks, "masked_scatter_ only supports boolean masks");
//   * a source with fewer elements than the mask has True values is
//     InvalidArgument ("Number of elements of source < number of ones in
//     mask"), detected before anything is written (it depends on the
//     mask's values, so a dry run cannot see it); extra source elements
//     are ignored.
// Dtypes: every dtype PyTorch's CPU kernel takes: Bool, integral, floating
// and complex (uint16/32/64 are NotSupported: "masked_scatter" not
// implemented for 'UInt16'). Elements are copied, never converted.
#include <string.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/shape.h"

// Number of True positions of the (broadcast) mask view.
static int64_t count_true(const etr_tensor_t *mask_view) {
  const etr_tensor_t *operands[1] = {mask_view};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, mask_view->dim, mask_view->sizes, operands, 1);
  int64_t count = 0;
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    count += etr_load_bool(ETR_BOOL,
                           etr_element_at(mask_view, iter.offsets[0]));
  }
  return count;
}

// aten::masked_scatter.out
etr_error_t etr_ref_masked_scatter_out(etr_kernel_context_t *ctx,
                                       etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_tensor_t *mask = NULL;
  etr_tensor_t *source = NULL;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 5));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "mask", &mask));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "source", &source));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "out", &out));
  // PyTorch's order: broadcast, source dtype, mask dtype, self dtype (even
  // for empty tensors), then the out wrapper's dtype check.
  int32_t dim = 0;
  int64_t sizes[ETR_MAX_DIMS];
  ETR_TRY(etr_broadcast_shapes(ctx, self->dim, self->sizes, mask->dim,
                               mask->sizes, &dim, sizes));
  ETR_TRY(etr_check_dtype_equal(ctx, "source", source->dtype, self->dtype));
  ETR_CHECK(ctx->diag, mask->dtype == ETR_BOOL, ETR_ERR_INVALID_ARGUMENT,
            "%s: masked_scatter only supports boolean masks, but got mask "
            "with dtype %s",
            etr_op_name(ctx), etr_scalar_type_name(mask->dtype));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_ALL));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  ETR_TRY(etr_resize_out(ctx, out, dim, sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  etr_tensor_t self_view;
  etr_tensor_t mask_view;
  ETR_TRY(etr_broadcast_view(ctx, self, dim, sizes, &self_view));
  ETR_TRY(etr_broadcast_view(ctx, mask, dim, sizes, &mask_view));
  ETR_CHECK(ctx->diag, count_true(&mask_view) <= etr_numel(source),
            ETR_ERR_INVALID_ARGUMENT,
            "%s: Number of elements of source < number of ones in mask",
            etr_op_name(ctx));

  const etr_tensor_t *source_operands[1] = {source};
  etr_strided_iter_t source_iter;
  etr_strided_iter_init(&source_iter, source->dim, source->sizes,
                        source_operands, 1);
  const etr_tensor_t *operands[3] = {out, &self_view, &mask_view};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, dim, sizes, operands, 3);
  size_t element_size = etr_scalar_type_size(out->dtype);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    const void *from = etr_element_at(&self_view, iter.offsets[1]);
    if (etr_load_bool(ETR_BOOL, etr_element_at(&mask_view, iter.offsets[2]))) {
      // count_true() <= numel(source): the source iterator has one left.
      from = etr_element_at(source, source_iter.offsets[0]);
      etr_strided_iter_next(&source_iter);
    }
    memmove(etr_element_at(out, iter.offsets[0]), from, element_size);
  }
  return ETR_OK;
}
