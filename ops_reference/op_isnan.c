// SPDX-License-Identifier: Apache-2.0
//
// aten::isnan.out: out[i] = true where self[i] is NaN.
//
// Every dtype PyTorch accepts: real, Bool, uint16/32/64 and complex (true
// when either part is NaN). Integral and Bool values are never NaN, so
// they give false. The out must be Bool (InvalidArgument otherwise, as
// ATen's "Expected out tensor to have dtype bool"). The loop and dtype
// rules are etr_unary_predicate_kernel.
#include <math.h>
#include <stdint.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/elementwise.h"
#include "ops_reference/support/unary_common.h"

static int64_t isnan_int(int64_t value, const void *state) {
  (void)value;
  (void)state;
  return 0;
}

static double isnan_double(double value, const void *state) {
  (void)state;
  return isnan(value) ? 1.0 : 0.0;
}

static etr_complex_t isnan_complex(etr_complex_t value, const void *state) {
  (void)state;
  etr_complex_t result = {isnan(value.real) || isnan(value.imag) ? 1.0 : 0.0,
                          0.0};
  return result;
}

static const etr_unary_fns_t kIsnanFns = {isnan_int, isnan_double,
                                          isnan_complex};

// aten::isnan.out
etr_error_t etr_ref_isnan_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                              size_t num_args) {
  return etr_unary_predicate_kernel(ctx, args, num_args, &kIsnanFns);
}
