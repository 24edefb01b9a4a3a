// SPDX-License-Identifier: Apache-2.0
//
// aten::erf.out: out = erf(self).
//
// Dtypes: every real dtype, Bool, uint16/32/64; integral and Bool inputs
// compute in (and give) Float, as PyTorch promotes integer inputs of
// floating ops. The out dtype may be any the result can be cast to
// (InvalidArgument otherwise: a Float result into an int out, a complex
// result into a real out). Values are computed in double and rounded once to
// the result dtype; PyTorch computes Float in float (SLEEF, within an ulp or
// two) and Half/BFloat16 in float, so results agree within torch.testing's
// tolerances. The loop and dtype rules are etr_floating_unary_kernel.
//
// Complex self is NotSupported (PyTorch: "erf_vml_cpu" not
// implemented for 'ComplexFloat'), after the out dtype check.
#include <math.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/elementwise.h"

static double erf_double(double x, const void *state) {
  (void)state;
  return erf(x);
}

static const etr_unary_fns_t kErfFns = {NULL, erf_double, NULL};

// aten::erf.out
etr_error_t etr_ref_erf_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                            size_t num_args) {
  return etr_floating_unary_kernel(ctx, args, num_args, &kErfFns);
}
