// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::constant_pad_nd.out: the kept part of self is moved into
// its box of out by the movement engine, and the rest of out is filled
// with the value, box by box, so every element of out is written exactly
// once: for each dim d, the positions inside the kept box on dims < d and
// before or after it on dim d (at most two boxes per dim). Every dtype;
// the value is converted as the reference does
// (etr_movement_store_scalar), and arguments, including its overflow
// check, are checked by the reference kernel's dry run
// (ops_reference/op_constant_pad_nd.c). An out overlapping self goes to it.
#include "ops_optimized/common/args.h"
#include "ops_optimized/movement/movement.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/movement_util.h"
#include "ops_reference/support/shape.h"

static const int64_t kZeroStrides[ETR_MAX_DIMS] = {0};

// Fills the box of out at `start` (per dim) of extent `sizes`.
static void fill_box(etr_tensor_t *out, const int64_t *start,
                     const int64_t *sizes, const void *element) {
  size_t element_size = etr_scalar_type_size(out->dtype);
  char *corner = (char *)out->data;
  for (int32_t d = 0; d < out->dim; ++d) {
    if (sizes[d] == 0) {
      return;
    }
    corner += start[d] * out->strides[d] * (int64_t)element_size;
  }
  etr_move_strided(element_size, out->dim, sizes, corner, out->strides,
                   element, kZeroStrides);
}

// aten::constant_pad_nd.out
etr_error_t etr_opt_constant_pad_nd_out(etr_kernel_context_t *ctx,
                                        etr_evalue_t **args,
                                        size_t num_args) {
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 3);
  if (!etr_move_same_dtype(self, out) ||
      etr_opt_check(etr_ref_constant_pad_nd_out, ctx, args, num_args) !=
          ETR_OK ||
      etr_move_overlaps(out, self)) {
    return etr_opt_fallback(etr_ref_constant_pad_nd_out, ctx, args,
                            num_args);
  }
  if (ctx->dry_run) {
    return ETR_OK;
  }
  const int64_t *pad = NULL;
  size_t num_pad = 0;
  etr_scalar_t value;
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, 1, "pad", &pad, &num_pad));
  ETR_TRY(etr_arg_scalar(ctx, args, num_args, 2, "value", &value));
  // Per dim (sizes already checked): the first input index kept, where it
  // lands in out, and how many are kept.
  int64_t in_start[ETR_MAX_DIMS];
  int64_t out_start[ETR_MAX_DIMS];
  int64_t kept[ETR_MAX_DIMS];
  bool any_positive = false;
  int64_t in_offset = 0;
  int64_t out_offset = 0;
  for (int32_t d = 0; d < self->dim; ++d) {
    size_t pair = (size_t)(self->dim - 1 - d);
    int64_t before = 2 * pair + 1 < num_pad ? pad[2 * pair] : 0;
    int64_t after = 2 * pair + 1 < num_pad ? pad[2 * pair + 1] : 0;
    any_positive = any_positive || before > 0 || after > 0;
    in_start[d] = before < 0 ? -before : 0;
    out_start[d] = before > 0 ? before : 0;
    kept[d] = self->sizes[d] - in_start[d] - (after < 0 ? -after : 0);
    in_offset += in_start[d] * self->strides[d];
    out_offset += out_start[d] * out->strides[d];
  }
  if (any_positive) {
    uint8_t element[16];
    etr_movement_store_scalar(out->dtype, element, &value);
    int64_t start[ETR_MAX_DIMS] = {0};
    int64_t sizes[ETR_MAX_DIMS];
    for (int32_t d = 0; d < out->dim; ++d) {
      sizes[d] = out->sizes[d];
    }
    for (int32_t d = 0; d < out->dim; ++d) {
      // Before the kept range on dim d, then after it.
      start[d] = 0;
      sizes[d] = out_start[d];
      fill_box(out, start, sizes, element);
      start[d] = out_start[d] + kept[d];
      sizes[d] = out->sizes[d] - start[d];
      fill_box(out, start, sizes, element);
      // Later dims only cover positions inside the kept range here.
      start[d] = out_start[d];
      sizes[d] = kept[d];
    }
  }
  size_t element_size = etr_scalar_type_size(out->dtype);
  etr_move_strided(element_size, self->dim, kept,
                   (char *)out->data + out_offset * (int64_t)element_size,
                   out->strides,
                   (const char *)self->data + in_offset * (int64_t)element_size,
                   self->strides);
  return ETR_OK;
}
