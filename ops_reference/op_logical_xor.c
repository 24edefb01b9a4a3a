// SPDX-License-Identifier: Apache-2.0
//
// aten::logical_xor.out: out = True where exactly one is non-zero, elementwise
// with broadcasting.
//
// Both operands are first converted to torch.result_type(self, other),
// as PyTorch's comparison-style TensorIterator does, so that conversion
// decides truth: a zero-dim Double 1e-50 next to a Float tensor becomes
// 0.0f and is False, and a zero-dim Long 256 next to an Int8 tensor wraps
// to 0. A value is true when non-zero: NaN is true, a complex value is
// true when either part is non-zero. Every dtype PyTorch's CPU kernel
// takes: Bool, integral, floating and complex (uint16/32/64 are
// NotSupported: "logical_xor_cpu not implemented for 'UInt16'"; a
// refused promotion is InvalidArgument). The Bool result is stored in
// any out dtype (True as 1). See support/binary_pointwise.h.
#include <stdbool.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/binary_pointwise.h"

static bool logical_xor(bool a, bool b) { return a != b; }

static int64_t logical_xor_int(int64_t a, int64_t b, const void *state) {
  (void)state;
  return logical_xor(a != 0, b != 0);
}

static double logical_xor_double(double a, double b, const void *state) {
  (void)state;
  return logical_xor(a != 0.0, b != 0.0);
}

static etr_complex_t logical_xor_complex(etr_complex_t a, etr_complex_t b,
                                         const void *state) {
  (void)state;
  bool a_true = a.real != 0.0 || a.imag != 0.0;
  bool b_true = b.real != 0.0 || b.imag != 0.0;
  etr_complex_t result = {logical_xor(a_true, b_true), 0.0};
  return result;
}

static const etr_binary_pointwise_op_t kLogicalXor = {
    .compute_dtypes = ETR_DTYPES_ALL,
    .bool_result = true,
    .fns = {logical_xor_int, logical_xor_double, logical_xor_complex},
};

// aten::logical_xor.out
etr_error_t etr_ref_logical_xor_out(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args) {
  return etr_binary_pointwise_kernel(ctx, args, num_args, false,
                                     &kLogicalXor, NULL);
}
