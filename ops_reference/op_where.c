// SPDX-License-Identifier: Apache-2.0
//
// aten::where.self_out: out = condition ? self : other, elementwise with
// the three inputs broadcast together.
//
// Dtypes: condition must be Bool (uint8 is accepted too, as PyTorch still
// does with a deprecation warning; any other dtype is InvalidArgument);
// self and other may be any dtype, promoted with torch.result_type (so an
// int tensor and a zero-dim Double give Double); the out dtype must equal
// that result (InvalidArgument, "Expected out type to be Float but got
// Double"). Values are converted to the result dtype, never computed on.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/shape.h"

// aten::where.self_out
etr_error_t etr_ref_where_self_out(etr_kernel_context_t *ctx,
                                   etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *condition = NULL;
  etr_tensor_t *self = NULL;
  etr_tensor_t *other = NULL;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 5));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "condition", &condition));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "self", &self));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "other", &other));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 3, "out", &out));
  ETR_CHECK(ctx->diag,
            condition->dtype == ETR_BOOL || condition->dtype == ETR_BYTE,
            ETR_ERR_INVALID_ARGUMENT,
            "%s: where expected condition to be a boolean tensor, but got a "
            "tensor with dtype %s",
            etr_op_name(ctx), etr_scalar_type_name(condition->dtype));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_NUMERIC));
  ETR_TRY(etr_check_dtype(ctx, "other", other->dtype, ETR_DTYPES_NUMERIC));
  etr_scalar_type_t result;
  ETR_TRY(etr_result_type_tensors(ctx, self, other, &result));
  ETR_TRY(etr_check_dtype_equal(ctx, "out", out->dtype, result));

  const etr_tensor_t *inputs[3] = {condition, self, other};
  int32_t dim = 0;
  int64_t sizes[ETR_MAX_DIMS];
  ETR_TRY(etr_broadcast_tensors_shape(ctx, inputs, 3, &dim, sizes));
  ETR_TRY(etr_resize_out(ctx, out, dim, sizes));
  if (ctx->dry_run) {
    return ETR_OK;  // shapes checked and outs resized; no data touched
  }
  etr_tensor_t views[3];
  for (int i = 0; i < 3; ++i) {
    ETR_TRY(etr_broadcast_view(ctx, inputs[i], dim, sizes, &views[i]));
  }
  const etr_tensor_t *operands[4] = {out, &views[0], &views[1], &views[2]};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, dim, sizes, operands, 4);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    bool take_self = etr_load_bool(
        condition->dtype, etr_element_at(&views[0], iter.offsets[1]));
    const etr_tensor_t *source = take_self ? &views[1] : &views[2];
    int64_t offset = take_self ? iter.offsets[2] : iter.offsets[3];
    etr_convert_element(out->dtype, etr_element_at(out, iter.offsets[0]),
                        source->dtype, etr_element_at(source, offset));
  }
  return ETR_OK;
}
