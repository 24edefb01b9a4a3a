// SPDX-License-Identifier: Apache-2.0
//
// aten::reciprocal.out: out = 1 / self.
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
// 1 / 0 is inf (integer zeros too, since they compute in Float);
// complex values use c10's numpy-style division, so 1 / (0 + 0i) is
// inf + nan i as in PyTorch.
#include <complex.h>
#include <math.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/elementwise.h"
#include "ops_reference/support/unary_common.h"

static double reciprocal_double(double x, const void *state) {
  (void)state;
  return 1.0 / x;
}

static etr_complex_t reciprocal_complex(etr_complex_t value,
                                        const void *state) {
  (void)state;
  etr_complex_t one = {1.0, 0.0};
  return etr_unary_complex_divide(one, value);
}

static const etr_unary_fns_t kReciprocalFns = {NULL, reciprocal_double,
                                               reciprocal_complex};

// aten::reciprocal.out
etr_error_t etr_ref_reciprocal_out(etr_kernel_context_t *ctx,
                                   etr_evalue_t **args, size_t num_args) {
  return etr_floating_unary_kernel(ctx, args, num_args, &kReciprocalFns);
}
