// SPDX-License-Identifier: Apache-2.0
//
// The unary family's dtype rules against PyTorch's verdicts
// (generated/unary_dtype_rules.h, written by gen_unary_cases.py): for every
// op, every self dtype and every out dtype of the fifteen PyTorch has, the
// kernel must succeed where PyTorch does, fail with InvalidArgument where
// PyTorch raises RuntimeError (an out dtype it refuses) and with
// NotSupported where it raises NotImplementedError (a dtype it does not
// implement), including which check wins when both apply. clamp.Tensor_out
// is swept over (self dtype, bound dtype) pairs with both bounds, min only
// and max only, and over out dtypes.
#include <string.h>

#include "ops_reference/support/dtype.h"
#include "ops_reference/test/generated/unary_dtype_rules.h"
#include "ops_reference/test/test_util.h"

#define NUM_RULE_DTYPES (sizeof(kUnaryRuleDtypes) / sizeof(kUnaryRuleDtypes[0]))

static etr_error_t expected_status(char verdict) {
  switch (verdict) {
    case '.':
      return ETR_OK;
    case 'N':
      return ETR_ERR_NOT_SUPPORTED;
    default:
      return ETR_ERR_INVALID_ARGUMENT;
  }
}

// ones(3) of `dtype` (1 + 0i for complex).
static etr_tensor_t *ones(etr_scalar_type_t dtype) {
  return tt_tensor(dtype, TT_SIZES(3), TT_VALUES(1, 0, 1, 0, 1, 0));
}

static etr_error_t call_op(const char *op, etr_tensor_t *self,
                           etr_tensor_t *out) {
  if (strcmp(op, "aten::elu.out") == 0) {
    return TT_CALL(op, tt_ev_tensor(self), tt_ev_double(1.0),
                   tt_ev_double(1.0), tt_ev_double(1.0), tt_ev_tensor(out),
                   tt_ev_tensor(out));
  }
  if (strcmp(op, "aten::leaky_relu.out") == 0) {
    return TT_CALL(op, tt_ev_tensor(self), tt_ev_double(0.01),
                   tt_ev_tensor(out), tt_ev_tensor(out));
  }
  return TT_CALL(op, tt_ev_tensor(self), tt_ev_tensor(out),
                 tt_ev_tensor(out));
}

TT_TEST(unary_rules, every_op_self_and_out_dtype) {
  size_t count = sizeof(kUnaryDtypeRules) / sizeof(kUnaryDtypeRules[0]);
  for (size_t i = 0; i < count; ++i) {
    const unary_dtype_rule_t *rule = &kUnaryDtypeRules[i];
    for (size_t k = 0; k < NUM_RULE_DTYPES; ++k) {
      etr_scalar_type_t out_dtype = kUnaryRuleDtypes[k];
      etr_error_t want = expected_status(rule->verdicts[k]);
      etr_error_t got = call_op(rule->op, ones(rule->self),
                                tt_out(out_dtype, TT_SIZES(3), 0));
      cr_expect_eq(got, want, "%s: self %s, out %s: %s, expected %s",
                   rule->op, etr_scalar_type_name(rule->self),
                   etr_scalar_type_name(out_dtype), etr_error_name(got),
                   etr_error_name(want));
    }
  }
}

static etr_error_t clamp(etr_tensor_t *self, etr_tensor_t *low,
                         etr_tensor_t *high, etr_tensor_t *out) {
  return TT_CALL("aten::clamp.Tensor_out", tt_ev_tensor(self),
                 low != NULL ? tt_ev_tensor(low) : tt_ev_none(),
                 high != NULL ? tt_ev_tensor(high) : tt_ev_none(),
                 tt_ev_tensor(out), tt_ev_tensor(out));
}

TT_TEST(unary_rules, clamp_tensor_dtype_pairs) {
  size_t count = sizeof(kUnaryClampRules) / sizeof(kUnaryClampRules[0]);
  for (size_t i = 0; i < count; ++i) {
    const unary_clamp_rule_t *rule = &kUnaryClampRules[i];
    for (size_t k = 0; k < NUM_RULE_DTYPES; ++k) {
      etr_scalar_type_t other = kUnaryRuleDtypes[k];
      etr_error_t want = expected_status(rule->verdicts[k]);
      etr_error_t got;
      if (strcmp(rule->mode, "out") == 0) {
        got = clamp(ones(rule->self), ones(rule->self), ones(rule->self),
                    tt_out(other, TT_SIZES(3), 0));
      } else {
        // The out has the promoted dtype (self's when there is none).
        etr_scalar_type_t result = etr_promote_types(rule->self, other);
        if (result == ETR_SCALAR_TYPE_UNDEFINED) {
          result = rule->self;
        }
        bool has_min = strcmp(rule->mode, "max") != 0;
        bool has_max = strcmp(rule->mode, "min") != 0;
        got = clamp(ones(rule->self), has_min ? ones(other) : NULL,
                    has_max ? ones(other) : NULL,
                    tt_out(result, TT_SIZES(3), 0));
      }
      cr_expect_eq(got, want, "clamp.Tensor_out %s: self %s, %s %s: %s, "
                   "expected %s",
                   rule->mode, etr_scalar_type_name(rule->self),
                   strcmp(rule->mode, "out") == 0 ? "out" : "bounds",
                   etr_scalar_type_name(other), etr_error_name(got),
                   etr_error_name(want));
    }
  }
}
