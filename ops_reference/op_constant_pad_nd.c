// SPDX-License-Identifier: Apache-2.0
//
// aten::constant_pad_nd.out: out = self padded with `value` (or cropped,
// for negative pads) on its trailing dims.
//
// `pad` lists (before, after) pairs starting from the last dim: [l, r]
// pads the last dim, [l, r, t, b] the last two, and so on. Its length must
// be even and at most 2 * rank (InvalidArgument otherwise). A negative pad
// removes that many elements from that side: cropping more than a dim holds
// is InvalidArgument (PyTorch's narrow() errors), a dim may crop to 0.
// Every size and sum is computed without int64 overflow (InvalidArgument
// on overflow).
//
// `value` is converted to self's dtype with PyTorch's checked conversion
// (support/movement_util.h), but only when some pad is positive: when
// every pad is <= 0 PyTorch returns a narrowed copy and never converts
// the value. Any dtype (including uint16/32/64 and complex); the out dtype
// must equal self's.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/movement_util.h"
#include "ops_reference/support/shape.h"

// aten::constant_pad_nd.out
etr_error_t etr_ref_constant_pad_nd_out(etr_kernel_context_t *ctx,
                                        etr_evalue_t **args,
                                        size_t num_args) {
  etr_tensor_t *self = NULL;
  const int64_t *pad = NULL;
  size_t num_pad = 0;
  etr_scalar_t value;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 5));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_int_list(ctx, args, num_args, 1, "pad", &pad, &num_pad));
  ETR_TRY(etr_arg_scalar(ctx, args, num_args, 2, "value", &value));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "out", &out));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, self->dtype));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_NUMERIC));
  ETR_CHECK(ctx->diag, num_pad % 2 == 0, ETR_ERR_INVALID_ARGUMENT,
            "%s: length of pad must be even but instead it equals %zu",
            etr_op_name(ctx), num_pad);
  ETR_CHECK(ctx->diag, num_pad / 2 <= (size_t)self->dim,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: length of pad should be no more than twice the number of "
            "dimensions of the input (pad length %zu, rank %d)",
            etr_op_name(ctx), num_pad, (int)self->dim);

  // Per dim: the first input index copied, how many, and where they land.
  int64_t sizes[ETR_MAX_DIMS];
  int64_t in_start[ETR_MAX_DIMS];
  int64_t out_start[ETR_MAX_DIMS];
  int64_t kept[ETR_MAX_DIMS];
  bool any_positive = false;
  for (int32_t d = 0; d < self->dim; ++d) {
    int64_t size = self->sizes[d];
    int64_t before = 0;
    int64_t after = 0;
    size_t pair = (size_t)(self->dim - 1 - d);  // pad pairs from the last dim
    if (2 * pair + 1 < num_pad) {
      before = pad[2 * pair];
      after = pad[2 * pair + 1];
    }
    any_positive = any_positive || before > 0 || after > 0;
    // Cropping first, as PyTorch narrows the input before padding.
    int64_t crop_before = before < 0 ? before : 0;
    int64_t crop_after = after < 0 ? after : 0;
    int64_t remaining = 0;
    bool ok = etr_checked_add(size, crop_before, &remaining) &&
              remaining >= 0 &&
              etr_checked_add(remaining, crop_after, &remaining) &&
              remaining >= 0;
    ETR_CHECK(ctx->diag, ok, ETR_ERR_INVALID_ARGUMENT,
              "%s: the negative padding (%lld, %lld) of dim %d removes more "
              "than its %lld elements",
              etr_op_name(ctx), (long long)before, (long long)after, (int)d,
              (long long)size);
    int64_t total = remaining;
    ok = etr_checked_add(total, before > 0 ? before : 0, &total) &&
         etr_checked_add(total, after > 0 ? after : 0, &total);
    ETR_CHECK(ctx->diag, ok, ETR_ERR_INVALID_ARGUMENT,
              "%s: the padded size of dim %d overflows", etr_op_name(ctx),
              (int)d);
    sizes[d] = total;
    in_start[d] = -crop_before;
    out_start[d] = before > 0 ? before : 0;
    kept[d] = remaining;
  }
  int64_t out_numel = 1;
  for (int32_t d = 0; d < self->dim; ++d) {
    out_numel = etr_saturating_mul(out_numel, sizes[d]);
  }
  if (any_positive) {
    ETR_TRY(etr_movement_check_fill_value(ctx, "value", &value, self->dtype,
                                          out_numel));
  }
  ETR_TRY(etr_resize_out(ctx, out, self->dim, sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  if (any_positive) {
    uint8_t element[16];
    etr_movement_store_scalar(out->dtype, element, &value);
    etr_movement_fill(out, element);
  }
  // The kept part of self goes to the kept part of out.
  bool empty = false;
  for (int32_t d = 0; d < self->dim; ++d) {
    empty = empty || kept[d] == 0;
  }
  if (empty) {
    return ETR_OK;
  }
  int64_t in_offset = 0;
  int64_t out_offset = 0;
  for (int32_t d = 0; d < self->dim; ++d) {
    in_offset += in_start[d] * self->strides[d];
    out_offset += out_start[d] * out->strides[d];
  }
  etr_tensor_t source;
  etr_tensor_t target;
  etr_make_view(self, in_offset, self->dim, kept, self->strides, &source);
  etr_make_view(out, out_offset, out->dim, kept, out->strides, &target);
  etr_copy_strided(&target, &source);
  return ETR_OK;
}
