// SPDX-License-Identifier: Apache-2.0
//
// aten::logical_not.out: out = (self == 0), written as 0/1 in out's dtype.
//
// self may be any real dtype, Bool or complex (a complex value is zero
// when both parts are; NaN is non-zero, so logical_not(NaN) is false).
// The out may have any of those dtypes too, not just Bool (PyTorch writes
// 1/0 as the out's type: 1.0 in a Float out, 1 + 0i in a complex one).
// uint16/32/64 are NotSupported for self and for out ("logical_not_cpu"
// not implemented for 'UInt16': ATen dispatches on both dtypes).
#include <stdint.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/elementwise.h"
#include "ops_reference/support/unary_common.h"

static int64_t logical_not_int(int64_t value, const void *state) {
  (void)state;
  return value == 0;
}

static double logical_not_double(double value, const void *state) {
  (void)state;
  return value == 0.0 ? 1.0 : 0.0;
}

static etr_complex_t logical_not_complex(etr_complex_t value,
                                         const void *state) {
  (void)state;
  etr_complex_t result = {
      value.real == 0.0 && value.imag == 0.0 ? 1.0 : 0.0, 0.0};
  return result;
}

static const etr_unary_fns_t kLogicalNotFns = {
    logical_not_int, logical_not_double, logical_not_complex};

// aten::logical_not.out
etr_error_t etr_ref_logical_not_out(etr_kernel_context_t *ctx,
                                    etr_evalue_t **args, size_t num_args) {
  etr_tensor_t *self = NULL;
  etr_tensor_t *out = NULL;
  ETR_TRY(etr_check_num_args(ctx, num_args, 3));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 0, "self", &self));
  ETR_TRY(etr_arg_tensor(ctx, args, num_args, 1, "out", &out));
  ETR_TRY(etr_check_dtype(ctx, "self", self->dtype, ETR_DTYPES_ALL));
  ETR_TRY(etr_check_dtype(ctx, "out", out->dtype, ETR_DTYPES_ALL));
  etr_elementwise_spec_t spec = {self->dtype, ETR_BOOL, false};
  return etr_unary_elementwise(ctx, self, out, &spec, &kLogicalNotFns, NULL);
}
