// SPDX-License-Identifier: Apache-2.0
//
// aten::isinf.out: out[i] = true where self[i] is infinite (+inf or -inf).
//
// Every dtype PyTorch accepts: real, Bool, uint16/32/64 and complex (true
// when either part is infinite). Integral and Bool values are never
// infinite, so they give false. The out must be Bool (InvalidArgument
// otherwise, as ATen's "Expected out tensor to have dtype bool"). The loop
// and dtype rules are etr_unary_predicate_kernel.
#include <math.h>
#include <stdint.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/elementwise.h"
#include "ops_reference/support/unary_common.h"

static int64_t isinf_int(int64_t value, const void *state) {
  (void)value;
  (void)state;
  return 0;
}

static double isinf_double(double value, const void *state) {
  (void)state;
  return isinf(value) ? 1.0 : 0.0;
}

static etr_complex_t isinf_complex(etr_complex_t value, const void *state) {
  (void)state;
  etr_complex_t result = {isinf(value.real) || isinf(value.imag) ? 1.0 : 0.0,
                          0.0};
  return result;
}

static const etr_unary_fns_t kIsinfFns = {isinf_int, isinf_double,
                                          isinf_complex};

// aten::isinf.out
etr_error_t etr_ref_isinf_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                              size_t num_args) {
  return etr_unary_predicate_kernel(ctx, args, num_args, &kIsinfFns);
}
