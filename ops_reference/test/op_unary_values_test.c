// SPDX-License-Identifier: Apache-2.0
//
// The unary family's kernels against PyTorch-generated values
// (generated/unary_values_cases.h, written by gen_unary_cases.py): every
// op on every dtype PyTorch's CPU kernel accepts, over inputs full of
// special values, with elu/leaky_relu parameter sets and clamp.Tensor_out
// broadcasting and promotion. Each case runs with contiguous,
// non-contiguous and (4-D) channels-last inputs into an out that starts
// 1-D and must be resized, and once more into a channels-last out.
// Tolerances are test_util.h's (torch.testing.assert_close defaults).
#include <string.h>

#include "ops_reference/test/generated/unary_values_cases.h"
#include "ops_reference/test/test_util.h"

static etr_evalue_t *scalar_arg(const unary_value_case_t *c, int index) {
  return c->scalars_are_ints ? tt_ev_int((int64_t)c->scalars[index])
                             : tt_ev_double(c->scalars[index]);
}

static etr_evalue_t *optional_tensor(etr_tensor_t *tensor) {
  return tensor != NULL ? tt_ev_tensor(tensor) : tt_ev_none();
}

// Calls the case's kernel with inputs laid out as `layout` into `out`.
static etr_error_t run_case(const unary_value_case_t *c, tt_layout_t layout,
                            etr_tensor_t *out) {
  etr_tensor_t *x = tt_relayout(tt_case_tensor(&c->input), layout);
  if (strcmp(c->op, "aten::clamp.Tensor_out") == 0) {
    etr_tensor_t *low = tt_relayout(tt_case_tensor(&c->min), layout);
    etr_tensor_t *high = tt_relayout(tt_case_tensor(&c->max), layout);
    return TT_CALL(c->op, tt_ev_tensor(x), optional_tensor(low),
                   optional_tensor(high), tt_ev_tensor(out),
                   tt_ev_tensor(out));
  }
  switch (c->num_scalars) {
    case 3:
      return TT_CALL(c->op, tt_ev_tensor(x), scalar_arg(c, 0),
                     scalar_arg(c, 1), scalar_arg(c, 2), tt_ev_tensor(out),
                     tt_ev_tensor(out));
    case 1:
      return TT_CALL(c->op, tt_ev_tensor(x), scalar_arg(c, 0),
                     tt_ev_tensor(out), tt_ev_tensor(out));
    default:
      return TT_CALL(c->op, tt_ev_tensor(x), tt_ev_tensor(out),
                     tt_ev_tensor(out));
  }
}

// Compares `out` with the case's expectation, converted to the case's
// tolerance dtype when that is less precise than the out's.
static void expect_case(const unary_value_case_t *c,
                        const etr_tensor_t *out) {
  if (c->tolerance_dtype == c->expected.dtype ||
      out->dtype != c->expected.dtype) {
    tt_expect_case(out, &c->expected);
    return;
  }
  tt_case_tensor_t expected = c->expected;
  expected.dtype = c->tolerance_dtype;
  tt_expect_case(tt_cast(out, c->tolerance_dtype), &expected);
}

static const size_t kNumCases =
    sizeof(kUnaryValueCases) / sizeof(kUnaryValueCases[0]);

TT_TEST(unary_values, every_case_every_input_layout) {
  for (size_t i = 0; i < kNumCases; ++i) {
    const unary_value_case_t *c = &kUnaryValueCases[i];
    for (int layout = 0; layout < TT_NUM_LAYOUTS; ++layout) {
      if (layout == TT_CHANNELS_LAST && c->input.dim != 4) {
        continue;
      }
      cr_log_info("case %s, %s inputs", c->name,
                  tt_layout_name((tt_layout_t)layout));
      etr_tensor_t *out = tt_case_out(&c->expected);
      tt_expect_status(run_case(c, (tt_layout_t)layout, out), ETR_OK);
      expect_case(c, out);
    }
  }
}

TT_TEST(unary_values, channels_last_out) {
  static const uint8_t kChannelsLast[4] = {0, 2, 3, 1};
  size_t ran = 0;
  for (size_t i = 0; i < kNumCases; ++i) {
    const unary_value_case_t *c = &kUnaryValueCases[i];
    if (c->expected.dim != 4) {
      continue;
    }
    cr_log_info("case %s, channels-last out", c->name);
    etr_tensor_t *out = tt_out_dim_order(c->expected.dtype, 4,
                                         c->expected.sizes, kChannelsLast);
    tt_expect_status(run_case(c, TT_CONTIGUOUS, out), ETR_OK);
    expect_case(c, out);
    cr_expect(etr_dim_order_is_channels_last(out->dim_order, out->dim),
              "%s: the out keeps its channels-last dim order", c->name);
    ++ran;
  }
  cr_expect_gt(ran, 500, "most cases are 4-D (%zu ran)", ran);
}

// Every op of the family has generated cases, so a kernel left out of the
// generator shows up here.
TT_TEST(unary_values, every_op_is_covered) {
  static const char *const kOps[] = {
      "aten::abs.out",        "aten::acos.out",        "aten::acosh.out",
      "aten::asin.out",       "aten::asinh.out",       "aten::atan.out",
      "aten::atanh.out",      "aten::ceil.out",        "aten::cos.out",
      "aten::cosh.out",       "aten::erf.out",         "aten::expm1.out",
      "aten::floor.out",      "aten::log.out",         "aten::log10.out",
      "aten::log1p.out",      "aten::log2.out",        "aten::reciprocal.out",
      "aten::round.out",      "aten::sign.out",        "aten::sin.out",
      "aten::sinh.out",       "aten::tan.out",         "aten::trunc.out",
      "aten::bitwise_not.out", "aten::logical_not.out", "aten::isinf.out",
      "aten::isnan.out",      "aten::elu.out",         "aten::leaky_relu.out",
      "aten::clamp.Tensor_out"};
  for (size_t k = 0; k < sizeof(kOps) / sizeof(kOps[0]); ++k) {
    size_t count = 0;
    for (size_t i = 0; i < kNumCases; ++i) {
      count += strcmp(kUnaryValueCases[i].op, kOps[k]) == 0;
    }
    cr_expect_geq(count, 3, "%s has %zu generated cases", kOps[k], count);
    cr_expect_not_null(tt_find_kernel(kOps[k]), "%s is registered",
                       kOps[k]);
  }
}
