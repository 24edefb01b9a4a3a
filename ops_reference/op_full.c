// SPDX-License-Identifier: Apache-2.0
//
// aten::full.out and aten::full_like.out: out = a tensor filled with
// fill_value.
//
// full.out(size, fill_value, out) resizes out to `size` (sizes must be
// non-negative); full_like.out(self, fill_value, memory_format, out) to
// self's shape. The dtype is the out tensor's (any real, Bool, complex or
// uint16/32/64 dtype). fill_value is converted with c10's checked conversion: a
// value the dtype cannot hold is InvalidArgument (300 or -2.5 into uint8, 1e40
// into Float, inf into Int; -1 wraps to 255), a float into an integral
// dtype truncates, and any value is fine for Bool. ATen's full is empty +
// fill_, so a one-element Half or BFloat16 out takes fill_'s unchecked
// scalar path (PyTorch 2.13: full([1], 1e40) in Half is inf; full([2],
// 1e40) is refused): support/movement_util.h.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/movement_util.h"
#include "ops_reference/support/shape.h"

// Fills every element of `out` (already resized) with `value`.
static etr_error_t fill(etr_kernel_context_t *ctx, const etr_scalar_t *value,
                        etr_tensor_t *out) {
  ETR_TRY(etr_check_dtype(ctx, "out", out->dtype, ETR_DTYPES_NUMERIC));
  ETR_TRY(etr_movement_check_fill_value(ctx, "fill_value", value, out->dtype,
                                        etr_numel(out)));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  uint8_t element[16];
  if (value->kind == ETR_SCALAR_DOUBLE) {
    etr_store_double(out->dtype, element, value->as_double);
  } else {
    etr_store_int64(out->dtype, element, value->as_int);
  }
  const etr_tensor_t *operands[1] = {out};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, out->dim, out->sizes, operands, 1);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    etr_convert_element(out->dtype, etr_element_at(out, iter.offsets[0]),
                        out->dtype, element);
  }
  return ETR_OK;
}

// aten::full.out
etr_error_t etr_ref_full_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                             size_t num_args) {
  const int64_t *sizes = NULL;
  size_t dim = 0;
  etr_scalar_t value;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, 0, "size", &sizes, &dim));
  ETR_TRY(etr_arg_scalar(ctx, args, num_args, 1, "fill_value", &value));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "out", &out));
  ETR_CHECK(ctx->diag, dim <= ETR_MAX_DIMS, ETR_ERR_INVALID_ARGUMENT,
            "%s: size has %zu entries, more than %d", etr_op_name(ctx), dim,
            ETR_MAX_DIMS);
  for (size_t i = 0; i < dim; ++i) {
    ETR_CHECK(ctx->diag, sizes[i] >= 0, ETR_ERR_INVALID_ARGUMENT,
              "%s: size[%zu] is negative (%lld)", etr_op_name(ctx), i,
              (long long)sizes[i]);
  }
  ETR_TRY(etr_resize_out(ctx, out, (int32_t)dim, sizes));
  return fill(ctx, &value, out);
}

// aten::full_like.out
etr_error_t etr_ref_full_like_out(etr_kernel_context_t *ctx,
                                  etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_scalar_t value;
  bool has_format = false;
  int64_t memory_format = 0;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 5));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_scalar(ctx, args, num_args, 1, "fill_value", &value));
  ETR_TRY(etr_arg_optional_int(ctx, args, num_args, 2, "memory_format",
                               &has_format, &memory_format));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "out", &out));
  ETR_CHECK(ctx->diag,
            !has_format || (memory_format >= 0 && memory_format <= 3),
            ETR_ERR_INVALID_ARGUMENT, "%s: %lld is not a memory format",
            etr_op_name(ctx), (long long)memory_format);
  ETR_TRY(etr_resize_out_like(ctx, out, self));
  return fill(ctx, &value, out);
}
