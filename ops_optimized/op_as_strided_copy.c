// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::as_strided_copy.out: the reference's view of self's
// memory (sizes, strides and storage offset as given) moved into out by
// the movement engine, which merges the view's contiguous dims into
// memcpy runs and turns a transposing view into transpose tiles. Every
// dtype; arguments, including the storage bounds, are checked by the
// reference kernel's dry run (ops_reference/op_as_strided_copy.c), and an
// out overlapping the view goes to it.
#include "ops_optimized/common/args.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/shape.h"

// The view as_strided reads (the arguments are valid).
static void strided_view(const etr_tensor_t *self, etr_evalue_t **args,
                         size_t num_args, etr_kernel_context_t *ctx,
                         etr_tensor_t *view) {
  const int64_t *sizes = NULL;
  size_t count = 0;
  const int64_t *strides = NULL;
  size_t num_strides = 0;
  bool has_offset = false;
  int64_t offset = 0;
  etr_arg_int_list(ctx, args, num_args, 1, "size", &sizes, &count);
  etr_arg_int_list(ctx, args, num_args, 2, "stride", &strides, &num_strides);
  etr_arg_optional_int(ctx, args, num_args, 3, "storage_offset", &has_offset,
                       &offset);
  bool empty = false;
  for (size_t i = 0; i < count; ++i) {
    empty = empty || sizes[i] == 0;
  }
  etr_make_view(self, has_offset && !empty ? offset : 0, (int32_t)count,
                sizes, strides, view);
}

// aten::as_strided_copy.out
etr_error_t etr_opt_as_strided_copy_out(etr_kernel_context_t *ctx,
                                        etr_evalue_t **args,
                                        size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 4);
  etr_tensor_t view;
  if (!etr_move_same_dtype(self, out) ||
      etr_opt_check(etr_ref_as_strided_copy_out, ctx, args, num_args) !=
          ETR_OK) {
    return etr_opt_fallback(etr_ref_as_strided_copy_out, ctx, args,
                            num_args);
  }
  strided_view(self, args, num_args, ctx, &view);
  if (etr_move_overlaps(out, &view)) {
    return etr_opt_fallback(etr_ref_as_strided_copy_out, ctx, args,
                            num_args);
  }
  if (!ctx->dry_run) {
    etr_move_tensor(out, &view);
  }
  return ETR_OK;
}
