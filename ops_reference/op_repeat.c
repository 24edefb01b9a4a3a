// SPDX-License-Identifier: Apache-2.0
//
// aten::repeat.out: out = self tiled repeats[d] times along each dim d.
//
// `repeats` needs at least self's rank entries (InvalidArgument: "Number of
// dimensions of repeat dims can not be smaller than number of dimensions of
// tensor"); extra leading entries add dims, as if self had leading size-1
// dims. out.size(d) = repeats[d] * size(d); a negative repeat, more than
// ETR_MAX_DIMS entries or a size that overflows int64 is InvalidArgument.
// A zero repeat gives an empty out. Any dtype; the out dtype must equal
// self's.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/shape.h"

// aten::repeat.out
etr_error_t etr_ref_repeat_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                               size_t num_args) {
  etr_tensor_t *self = NULL;
  const int64_t *repeats = NULL;
  size_t num_repeats = 0;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, 1, "repeats", &repeats,
                           &num_repeats));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "out", &out));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_NUMERIC));
  ETR_CHECK(ctx->diag, num_repeats >= (size_t)self->dim,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: number of dimensions of repeat dims (%zu) can not be smaller "
            "than number of dimensions of tensor (%d)",
            etr_op_name(ctx), num_repeats, (int)self->dim);
  ETR_CHECK(ctx->diag, num_repeats <= ETR_MAX_DIMS, ETR_ERR_INVALID_ARGUMENT,
            "%s: %zu repeats is more than %d dims", etr_op_name(ctx),
            num_repeats, ETR_MAX_DIMS);
  int32_t dim = (int32_t)num_repeats;
  int32_t lead = dim - self->dim;
  int64_t sizes[ETR_MAX_DIMS];
  for (int32_t d = 0; d < dim; ++d) {
    int64_t size = d < lead ? 1 : self->sizes[d - lead];
    ETR_CHECK(ctx->diag, repeats[d] >= 0, ETR_ERR_INVALID_ARGUMENT,
              "%s: repeats[%d] is negative (%lld)", etr_op_name(ctx), (int)d,
              (long long)repeats[d]);
    ETR_CHECK(ctx->diag, etr_checked_mul(size, repeats[d], &sizes[d]),
              ETR_ERR_INVALID_ARGUMENT,
              "%s: repeating dim %d of size %lld %lld times overflows",
              etr_op_name(ctx), (int)d, (long long)size,
              (long long)repeats[d]);
  }
  ETR_TRY(etr_resize_out(ctx, out, dim, sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  const etr_tensor_t *operands[1] = {out};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, out->dim, out->sizes, operands, 1);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    int64_t source = 0;
    for (int32_t d = lead; d < dim; ++d) {
      source += (iter.index[d] % self->sizes[d - lead]) *
                self->strides[d - lead];
    }
    etr_convert_element(out->dtype, etr_element_at(out, iter.offsets[0]),
                        self->dtype, etr_element_at(self, source));
  }
  return ETR_OK;
}
