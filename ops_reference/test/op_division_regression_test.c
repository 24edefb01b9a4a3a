// SPDX-License-Identifier: Apache-2.0
//
// Regressions in integer division and remainder found by review: a divisor
// that is non-zero in its own dtype but zero in the result dtype (a Long
// 256 dividing an int8 tensor is 0 there) trapped with SIGFPE; and Float
// trunc/floor division was computed in double (trunc(1/0.1) gave 9, where
// PyTorch, computing in float, gives 10).
#include "ops_reference/test/test_util.h"

TT_TEST(division_regression, remainder_by_a_divisor_that_wraps_to_zero) {
  etr_tensor_t *self = tt_tensor(ETR_CHAR, TT_SIZES(3), TT_VALUES(5, -7, 9));
  etr_tensor_t *out = tt_out(ETR_CHAR, TT_SIZES(3), 0);
  tt_expect_status(TT_CALL("aten::remainder.Scalar_out", tt_ev_tensor(self),
                           tt_ev_int(256), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   ETR_ERR_INVALID_ARGUMENT);
  etr_tensor_t *divisor = tt_scalar_tensor(ETR_LONG, 256);
  tt_expect_status(TT_CALL("aten::remainder.Tensor_out", tt_ev_tensor(self),
                           tt_ev_tensor(divisor), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(TT_CALL("aten::div.out_mode", tt_ev_tensor(self),
                           tt_ev_tensor(divisor), tt_ev_string("trunc"),
                           tt_ev_tensor(out), tt_ev_tensor(out)),
                   ETR_ERR_INVALID_ARGUMENT);
  // 257 wraps to 1 in int8: allowed, and computed as division by 1.
  etr_tensor_t *one = tt_scalar_tensor(ETR_LONG, 257);
  tt_expect_status(TT_CALL("aten::div.out_mode", tt_ev_tensor(self),
                           tt_ev_tensor(one), tt_ev_string("floor"),
                           tt_ev_tensor(out), tt_ev_tensor(out)),
                   ETR_OK);
  tt_expect_values(out, TT_VALUES(5, -7, 9), 3);
}

TT_TEST(division_regression, float_rounding_division_computes_in_float) {
  etr_tensor_t *self = tt_tensor(ETR_FLOAT, TT_SIZES(2), TT_VALUES(1, 3));
  etr_tensor_t *other = tt_tensor(ETR_FLOAT, TT_SIZES(1), TT_VALUES(0.1));
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(2), 0);
  tt_expect_status(TT_CALL("aten::div.out_mode", tt_ev_tensor(self),
                           tt_ev_tensor(other), tt_ev_string("trunc"),
                           tt_ev_tensor(out), tt_ev_tensor(out)),
                   ETR_OK);
  tt_expect_values(out, TT_VALUES(10, 30), 2);  // torch: tensor([10., 30.])
}
