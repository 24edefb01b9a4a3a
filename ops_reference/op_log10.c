// SPDX-License-Identifier: Apache-2.0
//
// aten::log10.out: out = log10(self).
//
// Dtypes: every real dtype, Bool, uint16/32/64 and complex; integral and
// Bool inputs compute in (and give) Float, as PyTorch promotes integer
// inputs of floating ops. The out dtype may be any the result can be cast to
// (InvalidArgument otherwise: a Float result into an int out, a complex
// result into a real out). Values are computed in double and rounded once to
// the result dtype; PyTorch computes Float in float (SLEEF, within an ulp or
// two) and Half/BFloat16 in float, so results agree within torch.testing's
// tolerances. The loop and dtype rules are etr_floating_unary_kernel.
//
// Complex values are clog(z) divided part by part by ln(10), as
// ATen's vectorized complex log10 does (so log10(0) is -inf + 0i).
#include <complex.h>
#include <math.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/elementwise.h"
#include "ops_reference/support/unary_common.h"

static double log10_double(double x, const void *state) {
  (void)state;
  return log10(x);
}

static etr_complex_t log10_complex(etr_complex_t value, const void *state) {
  (void)state;
  etr_complex_t result =
      etr_unary_from_c99(clog(etr_unary_to_c99(value)));
  double ln_base = log(10.0);
  result.real /= ln_base;
  result.imag /= ln_base;
  return result;
}

static const etr_unary_fns_t kLog10Fns = {NULL, log10_double, log10_complex};

// aten::log10.out
etr_error_t etr_ref_log10_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                              size_t num_args) {
  return etr_floating_unary_kernel(ctx, args, num_args, &kLog10Fns);
}
