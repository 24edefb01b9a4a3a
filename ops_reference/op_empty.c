// SPDX-License-Identifier: Apache-2.0
//
// aten::empty.out: resizes out to `size`. PyTorch leaves the contents
// uninitialized; this kernel zero-fills them (every byte 0, so a Float out
// holds +0.0) so runs are deterministic.
//
// This is the kernel ExecuTorch programs call for aten::empty.memory_format
// (datasets/ops/core_ops.json), so memory_format follows that op's rules:
// None, contiguous (0), channels-last (2, rank 4 only) or channels-last-3d
// (3, rank 5 only); preserve (1) and anything else are InvalidArgument
// ("unsupported memory format"). (PyTorch's own empty.out refuses every
// memory_format next to an out tensor; the golden cases, recorded from the
// functional op, pass contiguous.) The out keeps its dtype (any) and its
// own dim order, as the planner laid it out. A negative size or more than
// ETR_MAX_DIMS of them is InvalidArgument.
#include <string.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/movement_util.h"
#include "ops_reference/support/shape.h"

// aten::empty.out
etr_error_t etr_ref_empty_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                              size_t num_args) {
  const int64_t *sizes = NULL;
  size_t dim = 0;
  bool has_format = false;
  int64_t memory_format = 0;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, 0, "size", &sizes, &dim));
  ETR_TRY(etr_arg_optional_int(ctx, args, num_args, 1, "memory_format",
                               &has_format, &memory_format));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "out", &out));
  ETR_TRY(etr_movement_check_sizes(ctx, "size", sizes, dim));
  ETR_CHECK(ctx->diag,
            !has_format || memory_format == 0 ||
                (memory_format == 2 && dim == 4) ||
                (memory_format == 3 && dim == 5),
            ETR_ERR_INVALID_ARGUMENT,
            "%s: unsupported memory format %lld for %zu dims (channels-last "
            "needs rank 4, channels-last-3d rank 5, preserve is refused)",
            etr_op_name(ctx), (long long)memory_format, dim);
  ETR_TRY(etr_resize_out(ctx, out, (int32_t)dim, sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  uint8_t zero[16];
  memset(zero, 0, sizeof(zero));
  etr_movement_fill(out, zero);
  return ETR_OK;
}
