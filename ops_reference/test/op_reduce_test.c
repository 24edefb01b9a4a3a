// SPDX-License-Identifier: Apache-2.0
//
// aten::sum.IntList_out, aten::mean.out and aten::any.all_out: PyTorch-
// generated cases (one, several, negative, None and empty dim lists, with
// and without keepdim, every floating dtype, complex), strided inputs;
// ATen's dtype rules (sum computes in the out dtype, mean needs a floating
// dtype), empty reductions, and the exact error codes.
#include <math.h>

#include "ops_reference/test/generated/reduce_cases.h"
#include "ops_reference/test/test_util.h"

static etr_error_t reduce(const char *op, etr_tensor_t *x, etr_evalue_t *dims,
                          bool keepdim, etr_evalue_t *dtype,
                          etr_tensor_t *out) {
  return TT_CALL(op, tt_ev_tensor(x), dims, tt_ev_bool(keepdim), dtype,
                 tt_ev_tensor(out), tt_ev_tensor(out));
}

TT_TEST(reduce, generated_cases) {
  for (size_t i = 0; i < sizeof(kReduceCases) / sizeof(kReduceCases[0]); ++i) {
    const reduce_case_t *c = &kReduceCases[i];
    for (int layout = 0; layout < 2; ++layout) {
      cr_log_info("case %s, %s", c->name, tt_layout_name(layout));
      etr_tensor_t *out = tt_case_out(&c->expected);
      tt_expect_status(
          reduce(c->op, tt_relayout(tt_case_tensor(&c->input), layout),
                 c->has_dims ? tt_ev_case_ints(&c->dims) : tt_ev_none(),
                 c->keepdim, tt_ev_none(), out),
          ETR_OK);
      tt_expect_case(out, &c->expected);
    }
  }
}

TT_TEST(sum, dtype_rules) {
  // sum converts to the out dtype first: [1.5, 2.5] into Long is 3.
  etr_tensor_t *f = tt_tensor(ETR_FLOAT, TT_SIZES(2), TT_VALUES(1.5, 2.5));
  etr_tensor_t *out_l = tt_out(ETR_LONG, 0, NULL, 0);
  tt_expect_status(reduce("aten::sum.IntList_out", f, TT_EV_INTS(0), false,
                          tt_ev_none(), out_l),
                   ETR_OK);
  tt_expect_values(out_l, TT_VALUES(3), 1);
  // int8 [100, 100] with dtype int8 wraps to -56; Bool counts trues.
  etr_tensor_t *c = tt_tensor(ETR_CHAR, TT_SIZES(2), TT_VALUES(100, 100));
  etr_tensor_t *out_c = tt_out(ETR_CHAR, 0, NULL, 0);
  tt_expect_status(reduce("aten::sum.IntList_out", c, TT_EV_INTS(0), false,
                          tt_ev_int(ETR_CHAR), out_c),
                   ETR_OK);
  tt_expect_values(out_c, TT_VALUES(-56), 1);
  etr_tensor_t *b = tt_tensor(ETR_BOOL, TT_SIZES(3), TT_VALUES(1, 0, 1));
  tt_expect_status(reduce("aten::sum.IntList_out", b, tt_ev_none(), false,
                          tt_ev_none(), out_l),
                   ETR_OK);
  tt_expect_values(out_l, TT_VALUES(2), 1);
  // Empty reduction is 0; zero-dim input with dim 0.
  etr_tensor_t *empty = tt_tensor(ETR_FLOAT, TT_SIZES(0, 2), NULL);
  etr_tensor_t *out2 = tt_out(ETR_FLOAT, TT_SIZES(2), 0);
  tt_expect_status(reduce("aten::sum.IntList_out", empty, TT_EV_INTS(0), false,
                          tt_ev_none(), out2),
                   ETR_OK);
  tt_expect_values(out2, TT_VALUES(0, 0), 2);
  etr_tensor_t *scalar = tt_scalar_tensor(ETR_DOUBLE, 3);
  etr_tensor_t *out0 = tt_out(ETR_DOUBLE, 0, NULL, 0);
  tt_expect_status(reduce("aten::sum.IntList_out", scalar, TT_EV_INTS(-1),
                          true, tt_ev_none(), out0),
                   ETR_OK);
  tt_expect_values(out0, TT_VALUES(3), 1);
  // Errors: dtype != out dtype, bad dim, repeated dim.
  tt_expect_status(reduce("aten::sum.IntList_out", f, TT_EV_INTS(0), false,
                          tt_ev_int(ETR_DOUBLE), out_l),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(reduce("aten::sum.IntList_out", f, TT_EV_INTS(1), false,
                          tt_ev_none(), out_l),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(reduce("aten::sum.IntList_out", empty, TT_EV_INTS(0, -2),
                          false, tt_ev_none(), out2),
                   ETR_ERR_INVALID_ARGUMENT);
}

TT_TEST(mean, dtype_rules) {
  etr_tensor_t *i = tt_tensor(ETR_LONG, TT_SIZES(2), TT_VALUES(1, 2));
  etr_tensor_t *out = tt_out(ETR_FLOAT, 0, NULL, 0);
  tt_expect_status(reduce("aten::mean.out", i, TT_EV_INTS(0), false,
                          tt_ev_none(), out),
                   ETR_ERR_INVALID_ARGUMENT);
  etr_tensor_t *out_d = tt_out(ETR_DOUBLE, 0, NULL, 0);
  tt_expect_status(reduce("aten::mean.out", i, TT_EV_INTS(0), false,
                          tt_ev_int(ETR_DOUBLE), out_d),
                   ETR_OK);
  tt_expect_values(out_d, TT_VALUES(1.5), 1);
  // Float self into a Double out; into a Long out is refused.
  etr_tensor_t *f = tt_tensor(ETR_FLOAT, TT_SIZES(2), TT_VALUES(1, 2));
  tt_expect_status(reduce("aten::mean.out", f, TT_EV_INTS(0), false,
                          tt_ev_none(), out_d),
                   ETR_OK);
  tt_expect_values(out_d, TT_VALUES(1.5), 1);
  etr_tensor_t *out_l = tt_out(ETR_LONG, 0, NULL, 0);
  tt_expect_status(reduce("aten::mean.out", f, TT_EV_INTS(0), false,
                          tt_ev_none(), out_l),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(reduce("aten::mean.out", f, TT_EV_INTS(0), false,
                          tt_ev_int(ETR_HALF), out_d),
                   ETR_ERR_INVALID_ARGUMENT);
  // Empty reduction is NaN; AdaptiveAvgPool2d(1) as mean over [-1, -2].
  etr_tensor_t *empty = tt_tensor(ETR_FLOAT, TT_SIZES(0, 2), NULL);
  etr_tensor_t *out2 = tt_out(ETR_FLOAT, TT_SIZES(2), 0);
  tt_expect_status(reduce("aten::mean.out", empty, TT_EV_INTS(0), false,
                          tt_ev_none(), out2),
                   ETR_OK);
  tt_expect_values(out2, TT_VALUES(NAN, NAN), 2);
  etr_tensor_t *x = tt_channels_last(tt_tensor(
      ETR_FLOAT, TT_SIZES(1, 2, 2, 2), TT_VALUES(1, 2, 3, 4, 5, 6, 7, 8)));
  etr_tensor_t *pooled = tt_out(ETR_FLOAT, TT_SIZES(1, 2, 1, 1), 0);
  tt_expect_status(reduce("aten::mean.out", x, TT_EV_INTS(-1, -2), true,
                          tt_ev_none(), pooled),
                   ETR_OK);
  tt_expect_values(pooled, TT_VALUES(2.5, 6.5), 2);
}

TT_TEST(any, values_and_rules) {
  static const etr_scalar_type_t kTypes[] = {
      ETR_BOOL, ETR_BYTE, ETR_CHAR, ETR_INT, ETR_LONG, ETR_HALF, ETR_FLOAT,
      ETR_DOUBLE, ETR_COMPLEX_FLOAT};
  for (size_t k = 0; k < sizeof(kTypes) / sizeof(kTypes[0]); ++k) {
    bool complex = kTypes[k] == ETR_COMPLEX_FLOAT;
    etr_tensor_t *zeros = tt_tensor(kTypes[k], TT_SIZES(3),
                                    TT_VALUES(0, 0, 0, 0, 0, 0));
    etr_tensor_t *some = tt_tensor(
        kTypes[k], TT_SIZES(3),
        complex ? TT_VALUES(0, 0, 0, 1, 0, 0) : TT_VALUES(0, 1, 0));
    etr_tensor_t *out = tt_out(ETR_BOOL, TT_SIZES(1), 0);
    tt_expect_status(TT_CALL("aten::any.all_out", tt_ev_tensor(zeros),
                             tt_ev_tensor(out), tt_ev_tensor(out)),
                     ETR_OK);
    cr_expect_eq(out->dim, 0);
    tt_expect_values(out, TT_VALUES(0), 1);
    tt_expect_status(TT_CALL("aten::any.all_out",
                             tt_ev_tensor(tt_noncontiguous(some)),
                             tt_ev_tensor(out), tt_ev_tensor(out)),
                     ETR_OK);
    tt_expect_values(out, TT_VALUES(1), 1);
  }
  // NaN is true; empty is false; uint8 out allowed; Float out refused.
  etr_tensor_t *nan = tt_tensor(ETR_FLOAT, TT_SIZES(1), TT_VALUES(NAN));
  etr_tensor_t *out_u8 = tt_out(ETR_BYTE, 0, NULL, 0);
  tt_expect_status(TT_CALL("aten::any.all_out", tt_ev_tensor(nan),
                           tt_ev_tensor(out_u8), tt_ev_tensor(out_u8)),
                   ETR_OK);
  tt_expect_values(out_u8, TT_VALUES(1), 1);
  etr_tensor_t *empty = tt_tensor(ETR_FLOAT, TT_SIZES(0), NULL);
  tt_expect_status(TT_CALL("aten::any.all_out", tt_ev_tensor(empty),
                           tt_ev_tensor(out_u8), tt_ev_tensor(out_u8)),
                   ETR_OK);
  tt_expect_values(out_u8, TT_VALUES(0), 1);
  etr_tensor_t *out_f = tt_out(ETR_FLOAT, 0, NULL, 0);
  tt_expect_status(TT_CALL("aten::any.all_out", tt_ev_tensor(nan),
                           tt_ev_tensor(out_f), tt_ev_tensor(out_f)),
                   ETR_ERR_INVALID_ARGUMENT);
}
