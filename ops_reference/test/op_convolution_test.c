// SPDX-License-Identifier: Apache-2.0
//
// aten::convolution.out against PyTorch-generated cases
// (generated/convolution_cases.h: 1-D/2-D/3-D, stride, padding, dilation,
// groups, depthwise, transposed, every floating dtype and int32), each run
// with contiguous, non-contiguous and channels-last inputs and a
// channels-last out; plus the exact error codes of rejected calls.
#include <math.h>

#include "ops_reference/test/generated/convolution_cases.h"
#include "ops_reference/test/test_util.h"

static etr_error_t call_conv(etr_tensor_t *input, etr_tensor_t *weight,
                             etr_tensor_t *bias, const convolution_case_t *c,
                             etr_tensor_t *out) {
  return TT_CALL("aten::convolution.out", tt_ev_tensor(input),
                 tt_ev_tensor(weight),
                 bias != NULL ? tt_ev_tensor(bias) : tt_ev_none(),
                 tt_ev_case_ints(&c->stride), tt_ev_case_ints(&c->padding),
                 tt_ev_case_ints(&c->dilation), tt_ev_bool(c->transposed),
                 tt_ev_case_ints(&c->output_padding), tt_ev_int(c->groups),
                 tt_ev_tensor(out), tt_ev_tensor(out));
}

TT_TEST(convolution, generated_cases_every_layout) {
  size_t count = sizeof(kConvolutionCases) / sizeof(kConvolutionCases[0]);
  for (size_t i = 0; i < count; ++i) {
    const convolution_case_t *c = &kConvolutionCases[i];
    for (int layout = 0; layout < TT_NUM_LAYOUTS; ++layout) {
      cr_log_info("case %s, %s", c->name, tt_layout_name(layout));
      etr_tensor_t *input = tt_relayout(tt_case_tensor(&c->input), layout);
      etr_tensor_t *weight = tt_relayout(tt_case_tensor(&c->weight), layout);
      etr_tensor_t *bias = tt_case_tensor(&c->bias);
      etr_tensor_t *out = tt_case_out(&c->expected);
      tt_expect_status(call_conv(input, weight, bias, c, out), ETR_OK);
      tt_expect_case(out, &c->expected);
    }
  }
}

TT_TEST(convolution, channels_last_out) {
  static const uint8_t kChannelsLast[4] = {0, 2, 3, 1};
  const convolution_case_t *c = &kConvolutionCases[1];  // stride_pad_dilation
  etr_tensor_t *out = tt_out_dim_order(c->expected.dtype, 4,
                                       c->expected.sizes, kChannelsLast);
  tt_expect_status(call_conv(tt_channels_last(tt_case_tensor(&c->input)),
                             tt_case_tensor(&c->weight),
                             tt_case_tensor(&c->bias), c, out),
                   ETR_OK);
  tt_expect_case(out, &c->expected);
  cr_expect(out->strides[1] == 1, "the out keeps its channels-last layout");
}

TT_TEST(convolution, empty_batch) {
  etr_tensor_t *input = tt_tensor(ETR_FLOAT, TT_SIZES(0, 2, 4, 4), NULL);
  etr_tensor_t *weight = tt_tensor(ETR_FLOAT, TT_SIZES(3, 2, 3, 3), NULL);
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(1, 3, 2, 2), 0);
  tt_expect_status(
      TT_CALL("aten::convolution.out", tt_ev_tensor(input),
              tt_ev_tensor(weight), tt_ev_none(), TT_EV_INTS(1, 1),
              TT_EV_INTS(0, 0), TT_EV_INTS(1, 1), tt_ev_bool(false),
              TT_EV_INTS(0, 0), tt_ev_int(1), tt_ev_tensor(out),
              tt_ev_tensor(out)),
      ETR_OK);
  tt_expect_shape(out, TT_SIZES(0, 3, 2, 2));
}

// Calls a 2-D convolution with the given pieces; NULL bias is None.
static etr_error_t conv2d(etr_tensor_t *input, etr_tensor_t *weight,
                          etr_tensor_t *bias, etr_evalue_t *stride,
                          etr_evalue_t *padding, bool transposed,
                          etr_evalue_t *output_padding, int64_t groups,
                          etr_tensor_t *out) {
  return TT_CALL("aten::convolution.out", tt_ev_tensor(input),
                 tt_ev_tensor(weight),
                 bias != NULL ? tt_ev_tensor(bias) : tt_ev_none(), stride,
                 padding, TT_EV_INTS(1, 1), tt_ev_bool(transposed),
                 output_padding, tt_ev_int(groups), tt_ev_tensor(out),
                 tt_ev_tensor(out));
}

TT_TEST(convolution, rejects) {
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(1, 2, 4, 4), NULL);
  etr_tensor_t *w = tt_tensor(ETR_FLOAT, TT_SIZES(3, 2, 3, 3), NULL);
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(1, 3, 2, 2), 0);
  etr_error_t bad = ETR_ERR_INVALID_ARGUMENT;
  // Channel mismatch, bad groups, wrong bias size.
  etr_tensor_t *w3 = tt_tensor(ETR_FLOAT, TT_SIZES(3, 3, 3, 3), NULL);
  tt_expect_status(conv2d(x, w3, NULL, TT_EV_INTS(1), TT_EV_INTS(0), false,
                          TT_EV_INTS(0), 1, out),
                   bad);
  tt_expect_status(conv2d(x, w, NULL, TT_EV_INTS(1), TT_EV_INTS(0), false,
                          TT_EV_INTS(0), 0, out),
                   bad);
  tt_expect_status(conv2d(x, w, tt_tensor(ETR_FLOAT, TT_SIZES(2), NULL),
                          TT_EV_INTS(1), TT_EV_INTS(0), false, TT_EV_INTS(0),
                          1, out),
                   bad);
  // Stride 0, negative padding, a 3-value stride for 2 spatial dims.
  tt_expect_status(conv2d(x, w, NULL, TT_EV_INTS(0), TT_EV_INTS(0), false,
                          TT_EV_INTS(0), 1, out),
                   bad);
  tt_expect_status(conv2d(x, w, NULL, TT_EV_INTS(1), TT_EV_INTS(-1), false,
                          TT_EV_INTS(0), 1, out),
                   bad);
  tt_expect_status(conv2d(x, w, NULL, TT_EV_INTS(1, 1, 1), TT_EV_INTS(0),
                          false, TT_EV_INTS(0), 1, out),
                   bad);
  // Kernel larger than the padded input; output_padding >= stride.
  etr_tensor_t *w9 = tt_tensor(ETR_FLOAT, TT_SIZES(3, 2, 9, 9), NULL);
  tt_expect_status(conv2d(x, w9, NULL, TT_EV_INTS(1), TT_EV_INTS(1), false,
                          TT_EV_INTS(0), 1, out),
                   bad);
  etr_tensor_t *wt = tt_tensor(ETR_FLOAT, TT_SIZES(2, 3, 3, 3), NULL);
  etr_tensor_t *big = tt_out(ETR_FLOAT, TT_SIZES(1, 3, 12, 12), 0);
  tt_expect_status(conv2d(x, wt, NULL, TT_EV_INTS(2), TT_EV_INTS(0), true,
                          TT_EV_INTS(2), 1, big),
                   bad);
  // Mixed dtypes, out too small, rank mismatch.
  etr_tensor_t *wd = tt_tensor(ETR_DOUBLE, TT_SIZES(3, 2, 3, 3), NULL);
  tt_expect_status(conv2d(x, wd, NULL, TT_EV_INTS(1), TT_EV_INTS(0), false,
                          TT_EV_INTS(0), 1, out),
                   bad);
  etr_tensor_t *small = tt_out(ETR_FLOAT, TT_SIZES(1, 3, 1, 1), 0);
  tt_expect_status(conv2d(x, w, NULL, TT_EV_INTS(1), TT_EV_INTS(0), false,
                          TT_EV_INTS(0), 1, small),
                   bad);
  etr_tensor_t *x3 = tt_tensor(ETR_FLOAT, TT_SIZES(2, 4, 4), NULL);
  tt_expect_status(conv2d(x3, w, NULL, TT_EV_INTS(1), TT_EV_INTS(0), false,
                          TT_EV_INTS(0), 1, out),
                   bad);
  // Bool is not a convolution dtype; neither is int for transposed.
  etr_tensor_t *xb = tt_tensor(ETR_BOOL, TT_SIZES(1, 2, 4, 4), NULL);
  etr_tensor_t *wb = tt_tensor(ETR_BOOL, TT_SIZES(3, 2, 3, 3), NULL);
  etr_tensor_t *outb = tt_out(ETR_BOOL, TT_SIZES(1, 3, 2, 2), 0);
  tt_expect_status(conv2d(xb, wb, NULL, TT_EV_INTS(1), TT_EV_INTS(0), false,
                          TT_EV_INTS(0), 1, outb),
                   ETR_ERR_NOT_SUPPORTED);
  etr_tensor_t *xi = tt_tensor(ETR_INT, TT_SIZES(1, 2, 4, 4), NULL);
  etr_tensor_t *wi = tt_tensor(ETR_INT, TT_SIZES(2, 3, 3, 3), NULL);
  etr_tensor_t *outi = tt_out(ETR_INT, TT_SIZES(1, 3, 6, 6), 0);
  tt_expect_status(conv2d(xi, wi, NULL, TT_EV_INTS(1), TT_EV_INTS(0), true,
                          TT_EV_INTS(0), 1, outi),
                   ETR_ERR_NOT_SUPPORTED);
  // Arity.
  tt_expect_status(TT_CALL("aten::convolution.out", tt_ev_tensor(x)),
                   ETR_ERR_INVALID_PROGRAM);
}

// PyTorch multiplies the zeros of a forward convolution's padding in, so an
// inf weight makes every border output it reaches NaN (0 * inf); a
// transposed convolution only scatters real input elements. Values from
// torch 2.13: conv2d / conv_transpose2d(ones(1,1,3,3), w, padding=1) with
// w = ones(1,1,3,3), w[0,0,0,0] = inf.
TT_TEST(convolution, non_finite_weight_against_padding) {
  double ones[9];
  double w[9];
  for (int i = 0; i < 9; ++i) {
    ones[i] = 1.0;
    w[i] = 1.0;
  }
  w[0] = INFINITY;
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(1, 1, 3, 3), ones);
  etr_tensor_t *weight = tt_tensor(ETR_FLOAT, TT_SIZES(1, 1, 3, 3), w);
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(1, 1, 3, 3), 0);
  tt_expect_status(conv2d(x, weight, NULL, TT_EV_INTS(1), TT_EV_INTS(1),
                          false, TT_EV_INTS(0), 1, out),
                   ETR_OK);
  const float *y = (const float *)out->data;
  for (int i = 0; i < 9; ++i) {
    bool border = i / 3 == 0 || i % 3 == 0;
    if (border) {
      cr_expect(isnan(y[i]), "forward out[%d] = %g, PyTorch gives nan", i,
                (double)y[i]);
    } else {
      cr_expect(isinf(y[i]) && y[i] > 0, "forward out[%d] = %g, want inf", i,
                (double)y[i]);
    }
  }
  etr_tensor_t *up = tt_out(ETR_FLOAT, TT_SIZES(1, 1, 3, 3), 0);
  tt_expect_status(conv2d(x, weight, NULL, TT_EV_INTS(1), TT_EV_INTS(1),
                          true, TT_EV_INTS(0), 1, up),
                   ETR_OK);
  static const float kTransposed[9] = {INFINITY, INFINITY, 4.0f,
                                       INFINITY, INFINITY, 6.0f,
                                       4.0f,     6.0f,     4.0f};
  const float *z = (const float *)up->data;
  for (int i = 0; i < 9; ++i) {
    cr_expect(z[i] == kTransposed[i], "transposed out[%d] = %g, want %g", i,
              (double)z[i], (double)kTransposed[i]);
  }
}
