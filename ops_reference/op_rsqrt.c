// SPDX-License-Identifier: Apache-2.0
//
// aten::rsqrt.out: out = 1 / sqrt(self) (inf at 0, -inf at -0, nan below 0).
//
// Dtypes: every real dtype, Bool, complex and uint16/32/64; integral and
// Bool inputs compute in (and give) Float, as PyTorch promotes integer
// inputs of floating ops. The out dtype may be any the result can be cast to
// (InvalidArgument otherwise). Floating inputs are computed in double and
// rounded to the input dtype, so Half and BFloat16 round once as in ATen's
// float op-math. The loop and dtype rules are etr_floating_unary_kernel.
#include <complex.h>
#include <math.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/elementwise.h"

static double rsqrt_double(double x, const void *state) {
  (void)state;
  return 1.0 / sqrt(x);
}

static etr_complex_t rsqrt_complex(etr_complex_t value, const void *state) {
  (void)state;
  double _Complex z = ETR_TO_C99_COMPLEX(value);
  double _Complex result = 1.0 / csqrt(z);
  etr_complex_t out = {creal(result), cimag(result)};
  return out;
}

static const etr_unary_fns_t kRsqrtFns = {NULL, rsqrt_double, rsqrt_complex};

// aten::rsqrt.out
etr_error_t etr_ref_rsqrt_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                              size_t num_args) {
  return etr_floating_unary_kernel(ctx, args, num_args, &kRsqrtFns);
}
