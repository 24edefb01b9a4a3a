// SPDX-License-Identifier: Apache-2.0
//
// aten::_softmax.out and aten::_log_softmax.out against PyTorch-generated
// cases (first/middle/last dim, large logits that need the max
// subtracted, every floating dtype), in three layouts; zero-dim and empty
// inputs, -inf rows, and the exact error codes.
#include <math.h>

#include "ops_reference/test/generated/softmax_cases.h"
#include "ops_reference/test/test_util.h"

static etr_error_t softmax(bool log, etr_tensor_t *x, int64_t dim,
                           bool half_to_float, etr_tensor_t *out) {
  return TT_CALL(log ? "aten::_log_softmax.out" : "aten::_softmax.out",
                 tt_ev_tensor(x), tt_ev_int(dim), tt_ev_bool(half_to_float),
                 tt_ev_tensor(out), tt_ev_tensor(out));
}

TT_TEST(softmax, generated_cases_every_layout) {
  for (size_t i = 0; i < sizeof(kSoftmaxCases) / sizeof(kSoftmaxCases[0]);
       ++i) {
    const softmax_case_t *c = &kSoftmaxCases[i];
    for (int layout = 0; layout < TT_NUM_LAYOUTS; ++layout) {
      cr_log_info("case %s, %s", c->name, tt_layout_name(layout));
      etr_tensor_t *out = tt_case_out(&c->expected);
      tt_expect_status(softmax(c->log,
                               tt_relayout(tt_case_tensor(&c->input), layout),
                               c->dim, false, out),
                       ETR_OK);
      tt_expect_case(out, &c->expected);
    }
  }
}

TT_TEST(softmax, zero_dim_empty_and_infinite) {
  etr_tensor_t *scalar = tt_scalar_tensor(ETR_FLOAT, 5.0);
  etr_tensor_t *out = tt_out(ETR_FLOAT, 0, NULL, 0);
  tt_expect_status(softmax(false, scalar, -1, false, out), ETR_OK);
  tt_expect_values(out, TT_VALUES(1.0), 1);
  tt_expect_status(softmax(true, scalar, 0, false, out), ETR_OK);
  tt_expect_values(out, TT_VALUES(0.0), 1);

  etr_tensor_t *empty = tt_tensor(ETR_FLOAT, TT_SIZES(0, 3), NULL);
  etr_tensor_t *empty_out = tt_out(ETR_FLOAT, TT_SIZES(0, 3), 0);
  tt_expect_status(softmax(false, empty, 1, false, empty_out), ETR_OK);
  tt_expect_shape(empty_out, TT_SIZES(0, 3));

  // A row of -inf is NaN (PyTorch: log_softmax([-inf, -inf]) = [nan, nan]).
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(2, 2),
                              TT_VALUES(-INFINITY, -INFINITY, 0, -INFINITY));
  etr_tensor_t *y = tt_out(ETR_FLOAT, TT_SIZES(2, 2), 0);
  tt_expect_status(softmax(false, x, 1, false, y), ETR_OK);
  tt_expect_values(y, TT_VALUES(NAN, NAN, 1, 0), 4);
}

TT_TEST(softmax, rejects) {
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(2, 3), NULL);
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(2, 3), 0);
  tt_expect_status(softmax(false, x, 2, false, out), ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(softmax(true, x, -3, false, out), ETR_ERR_INVALID_ARGUMENT);
  etr_tensor_t *h = tt_tensor(ETR_HALF, TT_SIZES(2, 3), NULL);
  tt_expect_status(softmax(false, h, 1, true, out), ETR_ERR_NOT_SUPPORTED);
  etr_tensor_t *i = tt_tensor(ETR_LONG, TT_SIZES(2, 3), NULL);
  etr_tensor_t *out_i = tt_out(ETR_LONG, TT_SIZES(2, 3), 0);
  tt_expect_status(softmax(false, i, 1, false, out_i), ETR_ERR_NOT_SUPPORTED);
  etr_tensor_t *out_d = tt_out(ETR_DOUBLE, TT_SIZES(2, 3), 0);
  tt_expect_status(softmax(true, x, 1, false, out_d),
                   ETR_ERR_INVALID_ARGUMENT);
  etr_tensor_t *small = tt_out(ETR_FLOAT, TT_SIZES(5), 0);
  tt_expect_status(softmax(false, x, 1, false, small),
                   ETR_ERR_INVALID_ARGUMENT);
}
