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

// Review fix: ATen replaces the current maximum with every NaN it meets,
// so the LAST NaN of a window wins. PyTorch 2.13:
// max_pool2d_with_indices([[[[1, nan], [3, nan]]]], 2) gives nan at index
// 3, for Float, Double, Half and BFloat16, contiguous and channels-last.
TT_TEST(max_pool2d, last_nan_wins_in_every_layout) {
  static const etr_scalar_type_t kDtypes[] = {ETR_FLOAT, ETR_DOUBLE, ETR_HALF,
                                              ETR_BFLOAT16};
  for (size_t i = 0; i < COUNT(kDtypes); ++i) {
    for (int layout = 0; layout < TT_NUM_LAYOUTS; ++layout) {
      etr_tensor_t *x = tt_tensor(kDtypes[i], TT_SIZES(1, 1, 2, 2),
                                  TT_VALUES(1, NAN, 3, NAN));
      etr_tensor_t *out = tt_out(kDtypes[i], TT_SIZES(1, 1, 1, 1), 0);
      etr_tensor_t *indices = tt_out(ETR_LONG, TT_SIZES(1, 1, 1, 1), 0);
      tt_expect_status(max_pool(tt_relayout(x, layout), TT_EV_INTS(2),
                                TT_EV_NO_INTS, TT_EV_INTS(0), TT_EV_INTS(1),
                                false, out, indices),
                       ETR_OK);
      cr_expect(isnan(tt_get(out, 0)));
      cr_expect_eq(tt_get_i64(indices, 0), 3, "%s, %s: index %lld",
                   etr_scalar_type_name(kDtypes[i]), tt_layout_name(layout),
                   (long long)tt_get_i64(indices, 0));
    }
  }
  // PyTorch: a row [nan, 5, nan, 7] pooled whole (1x4) gives index 2;
  // [[1, nan], [3, nan]] with kernel 2, stride 1, padding 1 gives indices
  // [[0, 1, 1], [2, 3, 3], [2, 3, 3]].
  etr_tensor_t *row = tt_tensor(ETR_FLOAT, TT_SIZES(1, 1, 1, 4),
                                TT_VALUES(NAN, 5, NAN, 7));
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(1, 1, 1, 1), 0);
  etr_tensor_t *indices = tt_out(ETR_LONG, TT_SIZES(1, 1, 1, 1), 0);
  tt_expect_status(max_pool(row, TT_EV_INTS(1, 4), TT_EV_NO_INTS,
                            TT_EV_INTS(0), TT_EV_INTS(1), false, out, indices),
                   ETR_OK);
  cr_expect_eq(tt_get_i64(indices, 0), 2);
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(1, 1, 2, 2),
                              TT_VALUES(1, NAN, 3, NAN));
  out = tt_out(ETR_FLOAT, TT_SIZES(1, 1, 3, 3), 0);
  indices = tt_out(ETR_LONG, TT_SIZES(1, 1, 3, 3), 0);
  tt_expect_status(max_pool(x, TT_EV_INTS(2), TT_EV_INTS(1), TT_EV_INTS(1),
                            TT_EV_INTS(1), false, out, indices),
                   ETR_OK);
  tt_expect_values_i64(indices, (const int64_t[]){0, 1, 1, 2, 3, 3, 2, 3, 3},
                       9);
}

// Review fix: a dilated window that misses the input (kernel 2, dilation
// 3, padding 1 on a 2x2 plane: taps at -1 and 2) keeps ATen's initial
// values: the dtype's lowest value and the index of the first tap at or
// after 0 (2 * 2 + 2 = 6). PyTorch 2.13 gives -inf / INT8_MIN / ... / 0
// for uint8, and index 6, in both layouts.
TT_TEST(max_pool2d, window_missing_the_input) {
  static const struct {
    etr_scalar_type_t dtype;
    double lowest;
  } kCases[] = {
      {ETR_BYTE, 0},          {ETR_CHAR, -128},
      {ETR_SHORT, -32768},    {ETR_INT, -2147483648.0},
      {ETR_FLOAT, -INFINITY}, {ETR_DOUBLE, -INFINITY},
      {ETR_HALF, -INFINITY},  {ETR_BFLOAT16, -INFINITY},
  };
  for (size_t i = 0; i < COUNT(kCases); ++i) {
    for (int layout = 0; layout < TT_NUM_LAYOUTS; ++layout) {
      etr_tensor_t *x = tt_tensor(kCases[i].dtype, TT_SIZES(1, 1, 2, 2),
                                  TT_VALUES(5, 7, 6, 8));
      etr_tensor_t *out = tt_out(kCases[i].dtype, TT_SIZES(1, 1, 1, 1), 0);
      etr_tensor_t *indices = tt_out(ETR_LONG, TT_SIZES(1, 1, 1, 1), 0);
      tt_expect_status(max_pool(tt_relayout(x, layout), TT_EV_INTS(2),
                                TT_EV_INTS(1), TT_EV_INTS(1), TT_EV_INTS(3),
                                false, out, indices),
                       ETR_OK);
      tt_expect_shape(out, TT_SIZES(1, 1, 1, 1));
      cr_expect_eq(tt_get(out, 0), kCases[i].lowest, "%s: %g",
                   etr_scalar_type_name(kCases[i].dtype), tt_get(out, 0));
      cr_expect_eq(tt_get_i64(indices, 0), 6, "%s: index %lld",
                   etr_scalar_type_name(kCases[i].dtype),
                   (long long)tt_get_i64(indices, 0));
    }
  }
  etr_tensor_t *x = tt_tensor(ETR_LONG, TT_SIZES(1, 1, 2, 2),
                              TT_VALUES(5, 7, 6, 8));
  etr_tensor_t *out = tt_out(ETR_LONG, TT_SIZES(1, 1, 1, 1), 0);
  etr_tensor_t *indices = tt_out(ETR_LONG, TT_SIZES(1, 1, 1, 1), 0);
  tt_expect_status(max_pool(x, TT_EV_INTS(2), TT_EV_INTS(1), TT_EV_INTS(1),
                            TT_EV_INTS(3), false, out, indices),
                   ETR_OK);
  cr_expect_eq(tt_get_i64(out, 0), INT64_MIN);
  // Only some windows miss: a 3x4 Int plane of -12..-1, kernel 2,
  // dilation 3, padding 1 (PyTorch: values [[-2, -1, -3], [-10, -9, -11]],
  // indices [[10, 11, 9], [2, 3, 1]]).
  etr_tensor_t *plane = tt_tensor(
      ETR_INT, TT_SIZES(1, 1, 3, 4),
      TT_VALUES(-12, -11, -10, -9, -8, -7, -6, -5, -4, -3, -2, -1));
  out = tt_out(ETR_INT, TT_SIZES(1, 1, 2, 3), 0);
  indices = tt_out(ETR_LONG, TT_SIZES(1, 1, 2, 3), 0);
  tt_expect_status(max_pool(plane, TT_EV_INTS(2), TT_EV_INTS(1), TT_EV_INTS(1),
                            TT_EV_INTS(3), false, out, indices),
                   ETR_OK);
  tt_expect_values(out, TT_VALUES(-2, -1, -3, -10, -9, -11), 6);
  tt_expect_values_i64(indices, (const int64_t[]){10, 11, 9, 2, 3, 1}, 6);
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

static etr_error_t adaptive(etr_tensor_t *x, etr_evalue_t *output_size,
                            etr_tensor_t *out) {
  return TT_CALL("aten::_adaptive_avg_pool2d.out", tt_ev_tensor(x),
                 output_size, tt_ev_tensor(out), tt_ev_tensor(out));
}

// Review fix: PyTorch 2.13 requires only H and W to be non-zero; the
// batch and the channels may be 0, and then (like an output_size with a
// 0) the out has no elements and ATen never dispatches on the dtype, so
// integral, Bool and complex inputs pass too.
TT_TEST(adaptive_avg_pool2d, empty_channels_as_pytorch) {
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(1), 8);
  tt_expect_status(adaptive(tt_tensor(ETR_FLOAT, TT_SIZES(2, 0, 4, 4), NULL),
                            TT_EV_INTS(2, 2), out),
                   ETR_OK);
  tt_expect_shape(out, TT_SIZES(2, 0, 2, 2));
  tt_expect_status(adaptive(tt_channels_last(tt_tensor(
                                ETR_FLOAT, TT_SIZES(2, 0, 4, 4), NULL)),
                            TT_EV_INTS(3, 1), out),
                   ETR_OK);
  tt_expect_shape(out, TT_SIZES(2, 0, 3, 1));
  tt_expect_status(adaptive(tt_tensor(ETR_FLOAT, TT_SIZES(0, 4, 4), NULL),
                            TT_EV_INTS(2, 2), out),
                   ETR_OK);
  tt_expect_shape(out, TT_SIZES(0, 2, 2));
  static const etr_scalar_type_t kAnyDtype[] = {ETR_INT, ETR_BOOL,
                                                ETR_COMPLEX_FLOAT, ETR_UINT16};
  for (size_t i = 0; i < COUNT(kAnyDtype); ++i) {
    etr_tensor_t *any_out = tt_out(kAnyDtype[i], TT_SIZES(1), 8);
    tt_expect_status(adaptive(tt_tensor(kAnyDtype[i], TT_SIZES(1, 0, 4, 4),
                                        NULL),
                              TT_EV_INTS(2, 2), any_out),
                     ETR_OK);
    tt_expect_shape(any_out, TT_SIZES(1, 0, 2, 2));
    tt_expect_status(adaptive(tt_tensor(kAnyDtype[i], TT_SIZES(1, 3, 4, 4),
                                        NULL),
                              TT_EV_INTS(0, 2), any_out),
                     ETR_OK);
    tt_expect_shape(any_out, TT_SIZES(1, 3, 0, 2));
  }
  // With elements the dtype is checked (NotSupported) before the out's
  // dtype; the out dtype must match even without elements; H or W of 0,
  // a rank-2 input (before the dtype) and a one-value output_size are
  // refused.
  etr_tensor_t *int_out = tt_out(ETR_INT, TT_SIZES(1), 8);
  etr_tensor_t *double_out = tt_out(ETR_DOUBLE, TT_SIZES(1), 8);
  tt_expect_status(adaptive(tt_tensor(ETR_INT, TT_SIZES(1, 3, 4, 4), NULL),
                            TT_EV_INTS(2, 2), double_out),
                   ETR_ERR_NOT_SUPPORTED);
  tt_expect_status(adaptive(tt_tensor(ETR_INT, TT_SIZES(1, 0, 4, 4), NULL),
                            TT_EV_INTS(2, 2), out),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(adaptive(tt_tensor(ETR_FLOAT, TT_SIZES(1, 0, 4, 4), NULL),
                            TT_EV_INTS(2, 2), double_out),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(adaptive(tt_tensor(ETR_FLOAT, TT_SIZES(1, 3, 0, 4), NULL),
                            TT_EV_INTS(2, 2), out),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(adaptive(tt_tensor(ETR_FLOAT, TT_SIZES(3, 4, 0), NULL),
                            TT_EV_INTS(2, 2), out),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(adaptive(tt_tensor(ETR_INT, TT_SIZES(4, 4), NULL),
                            TT_EV_INTS(2, 2), int_out),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(adaptive(tt_tensor(ETR_INT, TT_SIZES(1, 3, 4, 4), NULL),
                            TT_EV_INTS(2), int_out),
                   ETR_ERR_INVALID_ARGUMENT);
}
