// SPDX-License-Identifier: Apache-2.0
//
// aten::diagonal_copy.out: out = the diagonal of self over dims (dim1,
// dim2) with the given offset (above the main diagonal when positive),
// those two dims removed and the diagonal appended as the last dim.
//
// Dims wrap when negative; out of range or naming the same dim twice is
// InvalidArgument (a rank < 2 self has no valid pair). The diagonal holds
// max(0, min(size1, size2 - offset)) elements for offset >= 0 and
// max(0, min(size1 + offset, size2)) for offset < 0; an offset past
// either end (even INT64_MIN or INT64_MAX) gives an empty diagonal. Any
// dtype; the out dtype must equal self's.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/shape.h"

// aten::diagonal_copy.out
etr_error_t etr_ref_diagonal_copy_out(etr_kernel_context_t *ctx,
                                      etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = NULL;
  int64_t offset = 0;
  int64_t dim1_arg = 0;
  int64_t dim2_arg = 1;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 6));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 1, "offset", &offset));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 2, "dim1", &dim1_arg));
  ETR_TRY(etr_arg_int(ctx, args, num_args, 3, "dim2", &dim2_arg));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 4, "out", &out));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_NUMERIC));
  int32_t dim1 = 0;
  int32_t dim2 = 0;
  ETR_TRY(etr_normalize_dim(ctx, dim1_arg, self->dim, &dim1));
  ETR_TRY(etr_normalize_dim(ctx, dim2_arg, self->dim, &dim2));
  ETR_CHECK(ctx->diag, self->dim >= 2, ETR_ERR_INVALID_ARGUMENT,
            "%s: diagonal needs a tensor of rank >= 2, not %d",
            etr_op_name(ctx), (int)self->dim);
  ETR_CHECK(ctx->diag, dim1 != dim2, ETR_ERR_INVALID_ARGUMENT,
            "%s: diagonal dimensions cannot be identical %lld, %lld",
            etr_op_name(ctx), (long long)dim1_arg, (long long)dim2_arg);

  int64_t length = 0;
  int64_t first = 0;
  etr_diagonal_extent(self, offset, dim1, dim2, &length, &first);
  int64_t sizes[ETR_MAX_DIMS];
  int64_t strides[ETR_MAX_DIMS];
  int32_t dim = 0;
  for (int32_t i = 0; i < self->dim; ++i) {
    if (i != dim1 && i != dim2) {
      sizes[dim] = self->sizes[i];
      strides[dim] = self->strides[i];
      ++dim;
    }
  }
  sizes[dim] = length;
  strides[dim] = self->strides[dim1] + self->strides[dim2];
  ++dim;
  etr_tensor_t view;
  etr_make_view(self, etr_numel(self) == 0 ? 0 : first, dim, sizes, strides,
                &view);
  ETR_TRY(etr_resize_out(ctx, out, view.dim, view.sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  etr_copy_strided(out, &view);
  return ETR_OK;
}
