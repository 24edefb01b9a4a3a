// SPDX-License-Identifier: Apache-2.0
//
// aten::sign.out: out = 1 where self > 0, -1 where self < 0, 0 elsewhere.
//
// As ATen's sign_kernel, (0 < x) - (x < 0): NaN gives 0 and -0.0 gives
// +0.0 (verified on PyTorch 2.13 for every floating dtype). Bool is
// accepted and copied (sign(True) is True); int8..int64, uint8, Half,
// BFloat16, Float and Double keep their dtype. The out dtype must equal
// self's (InvalidArgument). Complex self is NotSupported before the out is
// looked at ("Unlike NumPy, torch.sign is not intended to support complex
// numbers. Please use torch.sgn instead."); uint16/32/64 are NotSupported
// ("sign_cpu" not implemented) after the out dtype check.
#include <stdint.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/elementwise.h"
#include "ops_reference/support/unary_common.h"

static int64_t sign_int(int64_t value, const void *state) {
  (void)state;
  return (int64_t)(0 < value) - (int64_t)(value < 0);
}

static double sign_double(double value, const void *state) {
  (void)state;
  // Comparisons with NaN are false, so NaN gives +0.0.
  return (double)(0.0 < value) - (double)(value < 0.0);
}

static const etr_unary_fns_t kSignFns = {sign_int, sign_double, NULL};

static const etr_unary_same_dtype_rule_t kSignRule = {
    ETR_DTYPES_REAL_AND_BOOL, true};

// aten::sign.out
etr_error_t etr_ref_sign_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                             size_t num_args) {
  return etr_unary_same_dtype_kernel(ctx, args, num_args, &kSignRule,
                                     &kSignFns, NULL);
}
