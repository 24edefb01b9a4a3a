// SPDX-License-Identifier: Apache-2.0
//
// aten::bitwise_and.Tensor_out and aten::bitwise_and.Scalar_out:
// out = self & other, bit by bit, elementwise with broadcasting.
//
// Dtypes: the compute dtype is torch.result_type(self, other), a Scalar
// taking part as a Python number (so int8 & 1000 stays Int8, computed
// with 1000 wrapped to -24 as PyTorch casts it; a Bool tensor & True is
// Bool but & 2 is Long). It must be Bool or integral, uint16/32/64
// included (NotSupported for floating and complex: "bitwise_and_cpu not
// implemented for 'Float'"); the result may be written into any out dtype
// it can be cast to (InvalidArgument for a Bool out of an integral
// result). Integers compute on their two's-complement bits; Bool as
// logical and. See support/binary_pointwise.h.
#include "ops_reference/ops_reference.h"
#include "ops_reference/support/binary_pointwise.h"

// Operands are sign- or zero-extended to int64 from the compute dtype and
// the result is wrapped back to it, so the low bits are exact for every
// width (Bool operands are 0/1).
static int64_t bitwise_and_int(int64_t a, int64_t b, const void *state) {
  (void)state;
  return a & b;
}

static const etr_binary_pointwise_op_t kBitwiseAnd = {
    .compute_dtypes =
        ETR_DTYPES_BOOL | ETR_DTYPES_INTEGRAL | ETR_DTYPES_WIDE_UNSIGNED,
    .fns = {bitwise_and_int, NULL, NULL},
};

// aten::bitwise_and.Tensor_out
etr_error_t etr_ref_bitwise_and_tensor_out(etr_kernel_context_t *ctx,
                                           etr_evalue_t **args,
                                           size_t num_args) {
  return etr_binary_pointwise_kernel(ctx, args, num_args, false,
                                     &kBitwiseAnd, NULL);
}

// aten::bitwise_and.Scalar_out
etr_error_t etr_ref_bitwise_and_scalar_out(etr_kernel_context_t *ctx,
                                           etr_evalue_t **args,
                                           size_t num_args) {
  return etr_binary_pointwise_kernel(ctx, args, num_args, true,
                                     &kBitwiseAnd, NULL);
}
