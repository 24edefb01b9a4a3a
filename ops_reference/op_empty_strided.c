// SPDX-License-Identifier: Apache-2.0
//
// aten::empty_strided.out: resizes out to `size`. PyTorch's out variant
// makes a tensor with the given strides and copies it into out, so out
// keeps its own layout and only its shape follows `size`; the contents are
// uninitialized there and zero-filled here (every byte 0) for determinism.
//
// InvalidArgument: size and stride of different lengths, a negative size,
// a negative stride (PyTorch: "Storage size calculation overflowed"), more
// than ETR_MAX_DIMS dims, or a storage size (1 + sum(stride * (size - 1))
// elements) that overflows int64. The out keeps its dtype (any).
#include <string.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/movement_util.h"
#include "ops_reference/support/shape.h"

// aten::empty_strided.out
etr_error_t etr_ref_empty_strided_out(etr_kernel_context_t *ctx,
                                      etr_evalue_t **args, size_t num_args) {
  const int64_t *sizes = NULL;
  size_t dim = 0;
  const int64_t *strides = NULL;
  size_t num_strides = 0;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, 0, "size", &sizes, &dim));
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, 1, "stride", &strides,
                           &num_strides));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "out", &out));
  ETR_CHECK(ctx->diag, dim == num_strides, ETR_ERR_INVALID_ARGUMENT,
            "%s: dimensionality of sizes (%zu) must match dimensionality of "
            "strides (%zu)",
            etr_op_name(ctx), dim, num_strides);
  ETR_TRY(etr_movement_check_sizes(ctx, "size", sizes, dim));
  int64_t storage = 1;
  bool ok = true;
  bool empty = false;
  for (size_t i = 0; i < dim; ++i) {
    ETR_CHECK(ctx->diag, strides[i] >= 0, ETR_ERR_INVALID_ARGUMENT,
              "%s: stride[%zu] is negative (%lld)", etr_op_name(ctx), i,
              (long long)strides[i]);
    int64_t step = 0;
    empty = empty || sizes[i] == 0;
    ok = ok && (sizes[i] == 0 ||
                (etr_checked_mul(strides[i], sizes[i] - 1, &step) &&
                 etr_checked_add(storage, step, &storage)));
  }
  ETR_CHECK(ctx->diag, empty || ok, ETR_ERR_INVALID_ARGUMENT,
            "%s: storage size calculation overflowed", etr_op_name(ctx));
  ETR_TRY(etr_resize_out(ctx, out, (int32_t)dim, sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  uint8_t zero[16];
  memset(zero, 0, sizeof(zero));
  etr_movement_fill(out, zero);
  return ETR_OK;
}
