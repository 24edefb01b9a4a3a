// SPDX-License-Identifier: Apache-2.0
//
// aten::round.out: out = self rounded to the nearest integer, halves to
// even (0.5 -> 0, 1.5 -> 2, 2.5 -> 2, -0.5 -> -0.0), as ATen's
// std::nearbyint in the default rounding mode.
//
// Dtypes: every real dtype and uint16/32/64. Integral inputs are copied
// unchanged; floating inputs keep their dtype (Half and BFloat16 round
// exactly, their integers being representable), and NaN and infinities
// pass through. The out dtype must equal self's (InvalidArgument); Bool
// and complex are NotSupported ("round_vml_cpu" not implemented), checked
// after the out dtype as ATen does. aten::round.decimals_out is not a Core
// ATen op and has no kernel here.
#include <math.h>
#include <stdint.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/elementwise.h"
#include "ops_reference/support/unary_common.h"

static int64_t round_int(int64_t value, const void *state) {
  (void)state;
  return value;
}

static double round_double(double value, const void *state) {
  (void)state;
  // The default floating-point environment rounds to nearest, ties to
  // even; nothing in etref changes it. rint gives the same result without
  // nearbyint's guarantee of not raising FE_INEXACT, which is not observed.
  return nearbyint(value);
}

static const etr_unary_fns_t kRoundFns = {round_int, round_double, NULL};

static const etr_unary_same_dtype_rule_t kRoundRule = {
    ETR_DTYPES_REAL | ETR_DTYPES_WIDE_UNSIGNED, false};

// aten::round.out
etr_error_t etr_ref_round_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                              size_t num_args) {
  return etr_unary_same_dtype_kernel(ctx, args, num_args, &kRoundRule,
                                     &kRoundFns, NULL);
}
