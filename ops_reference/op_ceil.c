// SPDX-License-Identifier: Apache-2.0
//
// aten::ceil.out: out = ceil(self), the smallest integer not below self.
//
// Dtypes: every real dtype and uint16/32/64. Integral inputs are already
// integers, so they are copied unchanged (ATen's kernel is the identity
// for them); floating inputs keep their dtype, and -0.0, NaN and
// infinities pass through. The out dtype must equal self's
// (InvalidArgument). Complex self is NotSupported before the out is looked
// at ("ceil is not supported for complex inputs"); Bool is NotSupported
// after the out dtype check ("ceil_vml_cpu" not implemented for 'Bool').
#include <math.h>
#include <stdint.h>

#include "ops_reference/ops_reference.h"
#include "ops_reference/support/dtype.h"
#include "ops_reference/support/elementwise.h"
#include "ops_reference/support/unary_common.h"

static int64_t ceil_int(int64_t value, const void *state) {
  (void)state;
  return value;
}

static double ceil_double(double value, const void *state) {
  (void)state;
  return ceil(value);
}

static const etr_unary_fns_t kCeilFns = {ceil_int, ceil_double, NULL};

static const etr_unary_same_dtype_rule_t kCeilRule = {
    ETR_DTYPES_REAL | ETR_DTYPES_WIDE_UNSIGNED, true};

// aten::ceil.out
etr_error_t etr_ref_ceil_out(etr_kernel_context_t *ctx, etr_evalue_t **args,
                             size_t num_args) {
  return etr_unary_same_dtype_kernel(ctx, args, num_args, &kCeilRule,
                                     &kCeilFns, NULL);
}
