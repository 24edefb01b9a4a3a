// SPDX-License-Identifier: Apache-2.0
//
// aten::expand_copy.out: out = self broadcast to `size` (a copy).
//
// `size` has at least self's rank; new leading dims are added, and each
// existing dim keeps its size (-1 or the same size) or, when it is 1,
// grows to the requested size. InvalidArgument otherwise, and for -1 in a
// new leading dim. `implicit` does not change the result. Any dtype; the
// out dtype must equal self's.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/shape.h"

// aten::expand_copy.out
etr_error_t etr_ref_expand_copy_out(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = NULL;
  const int64_t *requested = NULL;
  size_t count = 0;
  bool implicit = false;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 5));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, 1, "size", &requested,
                           &count));
  ETR_TRY(etr_arg_bool(ctx, args, num_args, 2, "implicit", &implicit));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "out", &out));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  ETR_CHECK(ctx->diag,
            count >= (size_t)self->dim && count <= ETR_MAX_DIMS,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: the number of sizes provided (%zu) must be at least the "
            "number of dimensions in the tensor (%d)",
            etr_op_name(ctx), count, (int)self->dim);
  int32_t dim = (int32_t)count;
  int32_t leading = dim - self->dim;
  int64_t sizes[ETR_MAX_DIMS];
  for (int32_t i = 0; i < dim; ++i) {
    int64_t want = requested[i];
    if (i < leading) {
      ETR_CHECK(ctx->diag, want >= 0, ETR_ERR_INVALID_ARGUMENT,
                "%s: the expanded size of the tensor (%lld) isn't allowed "
                "in a leading, non-existing dimension %d",
                etr_op_name(ctx), (long long)want, (int)i);
      sizes[i] = want;
      continue;
    }
    int64_t have = self->sizes[i - leading];
    ETR_CHECK(ctx->diag, want == -1 || want == have || (have == 1 && want >= 0),
              ETR_ERR_INVALID_ARGUMENT,
              "%s: the expanded size of the tensor (%lld) must match the "
              "existing size (%lld) at non-singleton dimension %d",
              etr_op_name(ctx), (long long)want, (long long)have, (int)i);
    sizes[i] = want == -1 ? have : want;
  }
  etr_tensor_t view;
  ETR_TRY(etr_broadcast_view(ctx, self, dim, sizes, &view));
  ETR_TRY(etr_resize_out(ctx, out, dim, sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  etr_copy_strided(out, &view);
  return ETR_OK;
}
