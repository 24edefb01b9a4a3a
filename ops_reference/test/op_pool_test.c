// SPDX-License-Identifier: Apache-2.0
//
// aten::max_pool2d_with_indices.out, aten::avg_pool2d.out and
// aten::_adaptive_avg_pool2d.out against PyTorch-generated cases (padding,
// ceil_mode, dilation, count_include_pad, divisor_override, unbatched
// inputs, every accepted dtype), each in contiguous, non-contiguous and
// channels-last layouts; NaN handling; and the exact error codes.
#include <math.h>

#include "ops_reference/test/generated/adaptive_avg_pool2d_cases.h"
#include "ops_reference/test/generated/avg_pool2d_cases.h"
#include "ops_reference/test/generated/max_pool2d_cases.h"
#include "ops_reference/test/test_util.h"

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

static etr_error_t max_pool(etr_tensor_t *input, etr_evalue_t *kernel,
                            etr_evalue_t *stride, etr_evalue_t *padding,
                            etr_evalue_t *dilation, bool ceil_mode,
                            etr_tensor_t *out, etr_tensor_t *indices) {
  etr_tensor_t *outs[2] = {out, indices};
  return TT_CALL("aten::max_pool2d_with_indices.out", tt_ev_tensor(input),
                 kernel, stride, padding, dilation, tt_ev_bool(ceil_mode),
                 tt_ev_tensor(out), tt_ev_tensor(indices),
                 tt_ev_tensor_list(2, outs));
}

static etr_error_t avg_pool(etr_tensor_t *input, etr_evalue_t *kernel,
                            etr_evalue_t *stride, etr_evalue_t *padding,
                            bool ceil_mode, bool include_pad,
                            etr_evalue_t *divisor, etr_tensor_t *out) {
  return TT_CALL("aten::avg_pool2d.out", tt_ev_tensor(input), kernel, stride,
                 padding, tt_ev_bool(ceil_mode), tt_ev_bool(include_pad),
                 divisor, tt_ev_tensor(out), tt_ev_tensor(out));
}

TT_TEST(max_pool2d, generated_cases_every_layout) {
  for (size_t i = 0; i < COUNT(kMaxPool2dCases); ++i) {
    const max_pool2d_case_t *c = &kMaxPool2dCases[i];
    for (int layout = 0; layout < TT_NUM_LAYOUTS; ++layout) {
      cr_log_info("case %s, %s", c->name, tt_layout_name(layout));
      etr_tensor_t *out = tt_case_out(&c->expected);
      etr_tensor_t *indices = tt_case_out(&c->expected_indices);
      tt_expect_status(
          max_pool(tt_relayout(tt_case_tensor(&c->input), layout),
                   tt_ev_case_ints(&c->kernel), tt_ev_case_ints(&c->stride),
                   tt_ev_case_ints(&c->padding),
                   tt_ev_case_ints(&c->dilation), c->ceil_mode, out, indices),
          ETR_OK);
      tt_expect_case(out, &c->expected);
      tt_expect_case(indices, &c->expected_indices);
    }
  }
}

TT_TEST(max_pool2d, nan_wins) {
  // PyTorch: tensor([[[[1, nan], [3, nan]]]]) -> max nan at index 1.
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(1, 1, 2, 2),
                              TT_VALUES(1, NAN, 3, NAN));
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(1, 1, 1, 1), 0);
  etr_tensor_t *indices = tt_out(ETR_LONG, TT_SIZES(1, 1, 1, 1), 0);
  tt_expect_status(max_pool(x, TT_EV_INTS(2), TT_EV_NO_INTS, TT_EV_INTS(0),
                            TT_EV_INTS(1), false, out, indices),
                   ETR_OK);
  cr_expect(isnan(tt_get(out, 0)));
  cr_expect_eq(tt_get_i64(indices, 0), 1);
}

TT_TEST(max_pool2d, rejects) {
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(1, 1, 4, 4), NULL);
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(1, 1, 2, 2), 0);
  etr_tensor_t *indices = tt_out(ETR_LONG, TT_SIZES(1, 1, 2, 2), 0);
  etr_error_t bad = ETR_ERR_INVALID_ARGUMENT;
  // Padding above half the kernel, kernel 0, three kernel values.
  tt_expect_status(max_pool(x, TT_EV_INTS(2), TT_EV_NO_INTS, TT_EV_INTS(2),
                            TT_EV_INTS(1), false, out, indices),
                   bad);
  tt_expect_status(max_pool(x, TT_EV_INTS(0), TT_EV_NO_INTS, TT_EV_INTS(0),
                            TT_EV_INTS(1), false, out, indices),
                   bad);
  tt_expect_status(max_pool(x, TT_EV_INTS(2, 2, 2), TT_EV_NO_INTS,
                            TT_EV_INTS(0), TT_EV_INTS(1), false, out, indices),
                   bad);
  // Window larger than the input; 2-D input; empty channel dim.
  tt_expect_status(max_pool(x, TT_EV_INTS(5), TT_EV_NO_INTS, TT_EV_INTS(0),
                            TT_EV_INTS(1), false, out, indices),
                   bad);
  tt_expect_status(max_pool(tt_tensor(ETR_FLOAT, TT_SIZES(4, 4), NULL),
                            TT_EV_INTS(2), TT_EV_NO_INTS, TT_EV_INTS(0),
                            TT_EV_INTS(1), false, out, indices),
                   bad);
  tt_expect_status(max_pool(tt_tensor(ETR_FLOAT, TT_SIZES(1, 0, 4, 4), NULL),
                            TT_EV_INTS(2), TT_EV_NO_INTS, TT_EV_INTS(0),
                            TT_EV_INTS(1), false, out, indices),
                   bad);
  // Indices must be Long; out must match self; Bool is not supported.
  etr_tensor_t *int_indices = tt_out(ETR_INT, TT_SIZES(1, 1, 2, 2), 0);
  tt_expect_status(max_pool(x, TT_EV_INTS(2), TT_EV_NO_INTS, TT_EV_INTS(0),
                            TT_EV_INTS(1), false, out, int_indices),
                   bad);
  etr_tensor_t *double_out = tt_out(ETR_DOUBLE, TT_SIZES(1, 1, 2, 2), 0);
  tt_expect_status(max_pool(x, TT_EV_INTS(2), TT_EV_NO_INTS, TT_EV_INTS(0),
                            TT_EV_INTS(1), false, double_out, indices),
                   bad);
  etr_tensor_t *xb = tt_tensor(ETR_BOOL, TT_SIZES(1, 1, 4, 4), NULL);
  etr_tensor_t *outb = tt_out(ETR_BOOL, TT_SIZES(1, 1, 2, 2), 0);
  tt_expect_status(max_pool(xb, TT_EV_INTS(2), TT_EV_NO_INTS, TT_EV_INTS(0),
                            TT_EV_INTS(1), false, outb, indices),
                   ETR_ERR_NOT_SUPPORTED);
  // Out too small.
  etr_tensor_t *small = tt_out(ETR_FLOAT, TT_SIZES(1), 0);
  tt_expect_status(max_pool(x, TT_EV_INTS(2), TT_EV_NO_INTS, TT_EV_INTS(0),
                            TT_EV_INTS(1), false, small, indices),
                   bad);
}

TT_TEST(avg_pool2d, generated_cases_every_layout) {
  for (size_t i = 0; i < COUNT(kAvgPool2dCases); ++i) {
    const avg_pool2d_case_t *c = &kAvgPool2dCases[i];
    for (int layout = 0; layout < TT_NUM_LAYOUTS; ++layout) {
      cr_log_info("case %s, %s", c->name, tt_layout_name(layout));
      etr_tensor_t *out = tt_case_out(&c->expected);
      tt_expect_status(
          avg_pool(tt_relayout(tt_case_tensor(&c->input), layout),
                   tt_ev_case_ints(&c->kernel), tt_ev_case_ints(&c->stride),
                   tt_ev_case_ints(&c->padding), c->ceil_mode,
                   c->count_include_pad,
                   c->has_divisor ? tt_ev_int(c->divisor) : tt_ev_none(),
                   out),
          ETR_OK);
      tt_expect_case(out, &c->expected);
    }
  }
}

TT_TEST(avg_pool2d, rejects) {
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(1, 1, 4, 4), NULL);
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(1, 1, 2, 2), 0);
  tt_expect_status(avg_pool(x, TT_EV_INTS(2), TT_EV_NO_INTS, TT_EV_INTS(0),
                            false, true, tt_ev_int(0), out),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(avg_pool(x, TT_EV_INTS(2), TT_EV_INTS(-1), TT_EV_INTS(0),
                            false, true, tt_ev_none(), out),
                   ETR_ERR_INVALID_ARGUMENT);
  etr_tensor_t *xi = tt_tensor(ETR_INT, TT_SIZES(1, 1, 4, 4), NULL);
  etr_tensor_t *outi = tt_out(ETR_INT, TT_SIZES(1, 1, 2, 2), 0);
  tt_expect_status(avg_pool(xi, TT_EV_INTS(2), TT_EV_NO_INTS, TT_EV_INTS(0),
                            false, true, tt_ev_none(), outi),
                   ETR_ERR_NOT_SUPPORTED);
  etr_tensor_t *outh = tt_out(ETR_HALF, TT_SIZES(1, 1, 2, 2), 0);
  tt_expect_status(avg_pool(x, TT_EV_INTS(2), TT_EV_NO_INTS, TT_EV_INTS(0),
                            false, true, tt_ev_none(), outh),
                   ETR_ERR_INVALID_ARGUMENT);
}

TT_TEST(adaptive_avg_pool2d, generated_cases_every_layout) {
  for (size_t i = 0; i < COUNT(kAdaptiveAvgPool2dCases); ++i) {
    const adaptive_avg_pool2d_case_t *c = &kAdaptiveAvgPool2dCases[i];
    for (int layout = 0; layout < TT_NUM_LAYOUTS; ++layout) {
      cr_log_info("case %s, %s", c->name, tt_layout_name(layout));
      etr_tensor_t *out = tt_case_out(&c->expected);
      tt_expect_status(
          TT_CALL("aten::_adaptive_avg_pool2d.out",
                  tt_ev_tensor(tt_relayout(tt_case_tensor(&c->input), layout)),
                  tt_ev_case_ints(&c->output_size), tt_ev_tensor(out),
                  tt_ev_tensor(out)),
          ETR_OK);
      tt_expect_case(out, &c->expected);
    }
  }
}

TT_TEST(adaptive_avg_pool2d, rejects) {
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(1, 2, 4, 4), NULL);
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(1, 2, 1, 1), 0);
  tt_expect_status(TT_CALL("aten::_adaptive_avg_pool2d.out", tt_ev_tensor(x),
                           TT_EV_INTS(1), tt_ev_tensor(out), tt_ev_tensor(out)),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(TT_CALL("aten::_adaptive_avg_pool2d.out", tt_ev_tensor(x),
                           TT_EV_INTS(-1, 1), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   ETR_ERR_INVALID_ARGUMENT);
  etr_tensor_t *xl = tt_tensor(ETR_LONG, TT_SIZES(1, 2, 4, 4), NULL);
  etr_tensor_t *outl = tt_out(ETR_LONG, TT_SIZES(1, 2, 1, 1), 0);
  tt_expect_status(TT_CALL("aten::_adaptive_avg_pool2d.out", tt_ev_tensor(xl),
                           TT_EV_INTS(1, 1), tt_ev_tensor(outl),
                           tt_ev_tensor(outl)),
                   ETR_ERR_NOT_SUPPORTED);
  etr_tensor_t *small = tt_out(ETR_FLOAT, TT_SIZES(1, 2, 1, 1), 0);
  tt_expect_status(TT_CALL("aten::_adaptive_avg_pool2d.out", tt_ev_tensor(x),
                           TT_EV_INTS(2, 2), tt_ev_tensor(small),
                           tt_ev_tensor(small)),
                   ETR_ERR_INVALID_ARGUMENT);
}
