// SPDX-License-Identifier: Apache-2.0
//
// dim_order_ops::_empty_dim_order.out: ExecuTorch's replacement for
// aten::empty.memory_format; resizes out to `size` and zero-fills it (the
// contents are unspecified in ExecuTorch; zeros keep runs deterministic).
//
// `dim_order`, when given, must be the contiguous or channels-last order
// of rank len(size) and equal the out tensor's dim order (the planner lays
// out the out as asked); when absent the out must be contiguous, as
// ExecuTorch's check requires. A negative size or more than ETR_MAX_DIMS
// of them is InvalidArgument, as is any dim order mismatch. Any dtype.
#include <string.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/movement_util.h"
#include "ops_reference/support/shape.h"

// dim_order_ops::_empty_dim_order.out
etr_error_t etr_ref_empty_dim_order_out(etr_kernel_context_t *ctx,
                                        etr_evalue_t **args,
                                        size_t num_args) {
  const int64_t *sizes = NULL;
  size_t dim = 0;
  bool has_dim_order = false;
  const int64_t *dim_order = NULL;
  size_t order_length = 0;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, 0, "size", &sizes, &dim));
  ETR_TRY(etr_arg_optional_int_list(ctx, args, num_args, 1, "dim_order",
                                    &has_dim_order, &dim_order,
                                    &order_length));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "out", &out));
  ETR_TRY(etr_movement_check_sizes(ctx, "size", sizes, dim));
  if (has_dim_order) {
    uint8_t order[ETR_MAX_DIMS];
    bool in_range = order_length == dim;
    for (size_t i = 0; i < order_length && in_range; ++i) {
      in_range = dim_order[i] >= 0 && dim_order[i] < (int64_t)dim;
      order[i] = in_range ? (uint8_t)dim_order[i] : 0;
    }
    ETR_CHECK(ctx->diag,
              in_range && (etr_dim_order_is_contiguous(order, (int32_t)dim) ||
                           etr_dim_order_is_channels_last(order,
                                                          (int32_t)dim)),
              ETR_ERR_INVALID_ARGUMENT,
              "%s: dim_order must be the contiguous or channels-last order "
              "of rank %zu",
              etr_op_name(ctx), dim);
  } else {
    ETR_CHECK(ctx->diag,
              etr_dim_order_is_contiguous(out->dim_order, out->dim),
              ETR_ERR_INVALID_ARGUMENT,
              "%s: without a dim_order the out tensor must be contiguous",
              etr_op_name(ctx));
  }
  ETR_TRY(etr_resize_out(ctx, out, (int32_t)dim, sizes));
  ETR_TRY(etr_check_dim_order_arg(ctx, dim_order, order_length, has_dim_order,
                                  (int32_t)dim, out));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  uint8_t zero[16];
  memset(zero, 0, sizeof(zero));
  etr_movement_fill(out, zero);
  return ETR_OK;
}
