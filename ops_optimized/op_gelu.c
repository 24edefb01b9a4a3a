// SPDX-License-Identifier: Apache-2.0
//
// Optimized aten::gelu.out for a Float, Half or BFloat16 self with an out
// of the same dtype (unary/unary_driver.h layouts), both approximations,
// in float (unary/vmath.h):
//   "none": x Phi(x) through erf below |x| = 0.85 and through erfc above,
//           so the left tail keeps its relative accuracy;
//   "tanh": x sigmoid(2u) with u = sqrt(2/pi) (x + 0.044715 x^3) in
//           double;
// and on AVX-512, for a vector whose lanes all lie within |x| < 3.875,
// both as max(0, x) - |x| P(t) with P a per-interval polynomial of
// Phi(-|x|) looked up per lane (vmath.h's vf_gelu_rows, on AMD CPUs
// its narrow table: isa.h's etr_isa_narrow_lookups). Both are within 4
// ULP of the exact function (measured). The
// reference evaluates x/2 (1 + erf(...)) and x/2 (1 + tanh(...)) in double,
// whose 1 + erf / 1 + tanh cancel for x below about -5: there the
// reference itself is only accurate to about |x| 2^-53 absolute (and gives
// -0.0 below about -8.3 where the function is ~1e-16), so the tests bound
// the difference by k ULP + |x| 2^-53. Every other dtype, approximation
// string and out, and argument errors, go to the reference kernel
// (ops_reference/op_gelu.c).
#include <string.h>

#include "ops_optimized/binary/elementwise.h"
#include "ops_optimized/common/args.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/unary/unary_driver.h"
#include "ops_reference/ops_reference.h"

// aten::gelu.out
etr_error_t etr_opt_gelu_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                             size_t num_args) {
  if (etr_unary_kept_run(ctx, args, 0, 2)) {
    return ETR_OK;
  }
  etr_tensor_t *self = etr_opt_tensor_arg(args, num_args, 0);
  etr_tensor_t *out = etr_opt_tensor_arg(args, num_args, 2);
  etr_kernel_context_t probe = etr_ew_probe_context(ctx);
  const char *approximate = NULL;
  if (num_args != 4 || !etr_unary_case(self, out) ||
      etr_arg_string(&probe, args, num_args, 1, "approximate",
                     &approximate) != ETR_OK ||
      (strcmp(approximate, "none") != 0 &&
       strcmp(approximate, "tanh") != 0)) {
    return etr_opt_fallback(etr_ref_gelu_out, ctx, args, num_args);
  }
  etr_unary_op_t op = strcmp(approximate, "tanh") == 0 ? ETR_UNARY_GELU_TANH
                                                       : ETR_UNARY_GELU_ERF;
  bool handled = false;
  etr_error_t status =
      etr_unary_execute_kept(ctx, op, NULL, self, out, &handled);
  return handled ? status
                 : etr_opt_fallback(etr_ref_gelu_out, ctx, args, num_args);
}
