// SPDX-License-Identifier: Apache-2.0
//
// The promoted pointwise kernels of the binary family (see
// binary_pointwise.h).
#include "ops_reference/support/binary_pointwise.h"

#include "ops_reference/support/element.h"
#include "ops_reference/support/iter.h"
#include "ops_reference/support/shape.h"

etr_error_t etr_check_integral_divisor(etr_kernel_context_t *ctx,
                                       const etr_tensor_t *divisor,
                                       etr_scalar_type_t compute) {
  const etr_tensor_t *operands[1] = {divisor};
  etr_strided_iter_t iter;
  etr_strided_iter_init(&iter, divisor->dim, divisor->sizes, operands, 1);
  for (; !etr_strided_iter_done(&iter); etr_strided_iter_next(&iter)) {
    int64_t value = etr_wrap_int64(
        compute, etr_load_int64(divisor->dtype,
                                etr_element_at(divisor, iter.offsets[0])));
    ETR_CHECK(ctx->diag, value != 0, ETR_ERR_INVALID_ARGUMENT,
              "%s: ZeroDivisionError (integer division by zero)",
              etr_op_name(ctx));
  }
  return ETR_OK;
}

// True when some size is 0 (checked directly: the product of huge sizes
// could overflow before the 0 is reached).
static bool shape_is_empty(int32_t dim, const int64_t *sizes) {
  for (int32_t i = 0; i < dim; ++i) {
    if (sizes[i] == 0) {
      return true;
    }
  }
  return false;
}

etr_error_t etr_binary_pointwise_run(etr_kernel_context_t *ctx,
                                     const etr_tensor_t *a,
                                     const etr_tensor_t *b,
                                     etr_scalar_type_t common,
                                     etr_tensor_t *out,
                                     const etr_binary_pointwise_op_t *op,
                                     const void *state) {
  int32_t dim = 0;
  int64_t sizes[ETR_MAX_DIMS];
  ETR_TRY(etr_broadcast_shapes(ctx, a->dim, a->sizes, b->dim, b->sizes, &dim,
                               sizes));
  etr_scalar_type_t compute =
      op->integral_to_float ? etr_to_floating(common) : common;
  etr_scalar_type_t result = op->bool_result ? ETR_BOOL : compute;
  if (!op->bool_result) {
    ETR_TRY(etr_check_can_cast(ctx, result, out->dtype));
  }
  ETR_TRY(etr_check_dtype(ctx, "the promoted dtype", compute,
                          op->compute_dtypes));
  etr_dtype_kind_t kind = etr_dtype_kind(compute);
  if (op->integral_zero_divisor_error && !ctx->dry_run &&
      (kind == ETR_KIND_INTEGRAL || kind == ETR_KIND_BOOL) &&
      !shape_is_empty(dim, sizes)) {
    ETR_TRY(etr_check_integral_divisor(ctx, b, compute));
  }
  etr_elementwise_spec_t spec = {compute, result, false};
  etr_binary_pointwise_call_t call = {state, compute};
  return etr_binary_elementwise(ctx, a, b, out, &spec, &op->fns, &call);
}

// NotSupported for a complex operand of an op that refuses them.
static etr_error_t refuse_complex(etr_kernel_context_t *ctx,
                                  const etr_binary_pointwise_op_t *op,
                                  const etr_tensor_t *operand) {
  ETR_CHECK(ctx->diag,
            !op->complex_operands_refused ||
                etr_dtype_kind(operand->dtype) != ETR_KIND_COMPLEX,
            ETR_ERR_NOT_SUPPORTED, "%s: not implemented for complex tensors",
            etr_op_name(ctx));
  return ETR_OK;
}

etr_error_t etr_binary_pointwise_kernel(etr_kernel_context_t *ctx,
                                        etr_evalue_t **args, size_t num_args,
                                        bool scalar_other,
                                        const etr_binary_pointwise_op_t *op,
                                        const void *state) {
  etr_tensor_t *self = NULL;
  etr_tensor_t *other = NULL;
  etr_tensor_t *out = NULL;
  etr_scalar_t scalar;
  etr_tensor_t scalar_tensor;
  uint64_t scalar_storage = 0;
  ETR_TRY(etr_check_num_args(ctx, num_args, 4));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  if (scalar_other) {
    ETR_TRY(etr_arg_scalar(ctx, args, num_args, 1, "other", &scalar));
    etr_scalar_to_tensor(&scalar, &scalar_tensor, &scalar_storage);
    other = &scalar_tensor;
  } else {
    ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "other", &other));
  }
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 2, "out", &out));
  // Dtypes etref cannot compute on at all (quantized, bit-packed, float8).
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_NUMERIC));
  ETR_TRY(etr_check_dtype(ctx, "other", other->dtype, ETR_DTYPES_NUMERIC));
  ETR_TRY(etr_check_dtype(ctx, "out", out->dtype, ETR_DTYPES_NUMERIC));
  // PyTorch's order: the op's own checks (maximum's complex refusal), the
  // broadcast shape, the promotion, the cast to out, the dtype dispatch.
  ETR_TRY(refuse_complex(ctx, op, self));
  ETR_TRY(refuse_complex(ctx, op, other));
  int32_t dim = 0;
  int64_t sizes[ETR_MAX_DIMS];
  ETR_TRY(etr_broadcast_shapes(ctx, self->dim, self->sizes, other->dim,
                               other->sizes, &dim, sizes));
  etr_scalar_type_t common;
  if (scalar_other) {
    ETR_TRY(etr_result_type_tensor_scalar(ctx, self, &scalar, &common));
  } else {
    ETR_TRY(etr_result_type_tensors(ctx, self, other, &common));
  }
  return etr_binary_pointwise_run(ctx, self, other, common, out, op, state);
}
