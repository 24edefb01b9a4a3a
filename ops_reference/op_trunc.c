// SPDX-License-Identifier: Apache-2.0
//
// aten::trunc.out: out = trunc(self), self rounded toward zero.
//
// Dtypes: every real dtype and uint16/32/64. Integral inputs are already
// integers, so they are copied unchanged (ATen's kernel is the identity
// for them); floating inputs keep their dtype, and -0.0, NaN and
// infinities pass through. The out dtype must equal self's
// (InvalidArgument). Complex self is NotSupported before the out is looked
// at ("trunc is not supported for complex inputs"); Bool is NotSupported
// after the out dtype check ("trunc_vml_cpu" not implemented for 'Bool').
#include <math.h>
#include <stdint.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/elementwise.h"
#include "ops_reference/support/unary_common.h"

static int64_t trunc_int(int64_t value, const void *state) {
  (void)state;
  return value;
}

static double trunc_double(double value, const void *state) {
  (void)state;
  return trunc(value);
}

static const etr_unary_fns_t kTruncFns = {trunc_int, trunc_double, NULL};

static const etr_unary_same_dtype_rule_t kTruncRule = {
    ETR_DTYPES_REAL | ETR_DTYPES_WIDE_UNSIGNED, true};

// aten::trunc.out
etr_error_t etr_ref_trunc_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                              size_t num_args) {
  return etr_unary_same_dtype_kernel(ctx, args, num_args, &kTruncRule,
                                     &kTruncFns, NULL);
}
