// SPDX-License-Identifier: Apache-2.0
//
// Unary and activation kernels: aten::sigmoid/tanh/exp/sqrt/rsqrt/gelu
// against PyTorch-generated cases (every floating dtype, int32 and Bool
// inputs promoted to Float, complex64), in contiguous and non-contiguous
// layouts; aten::neg/relu/hardtanh/clamp with hand-computed values; zero-
// size inputs, out promotion rules and the exact error codes.
#include <math.h>
#include <string.h>

#include "ops_reference/test/generated/unary_cases.h"
#include "ops_reference/test/test_util.h"

static etr_error_t unary(const char *op, etr_tensor_t *x, etr_tensor_t *out) {
  return TT_CALL(op, tt_ev_tensor(x), tt_ev_tensor(out), tt_ev_tensor(out));
}

TT_TEST(unary, generated_cases) {
  for (size_t i = 0; i < sizeof(kUnaryCases) / sizeof(kUnaryCases[0]); ++i) {
    const unary_case_t *c = &kUnaryCases[i];
    for (int layout = 0; layout < 2; ++layout) {
      cr_log_info("case %s, %s", c->name, tt_layout_name(layout));
      etr_tensor_t *x = tt_relayout(tt_case_tensor(&c->input), layout);
      etr_tensor_t *out = tt_case_out(&c->expected);
      etr_error_t status =
          c->approximate != NULL
              ? TT_CALL(c->op, tt_ev_tensor(x), tt_ev_string(c->approximate),
                        tt_ev_tensor(out), tt_ev_tensor(out))
              : unary(c->op, x, out);
      tt_expect_status(status, ETR_OK);
      tt_expect_case(out, &c->expected);
    }
  }
}

TT_TEST(unary, float_ops_out_dtype_rules) {
  // A Float result may go to Double or Half (canCast), not to an int.
  etr_tensor_t *x = tt_tensor(ETR_INT, TT_SIZES(2), TT_VALUES(0, 4));
  etr_tensor_t *out_d = tt_out(ETR_DOUBLE, TT_SIZES(2), 0);
  tt_expect_status(unary("aten::sqrt.out", x, out_d), ETR_OK);
  tt_expect_values(out_d, TT_VALUES(0, 2), 2);
  etr_tensor_t *out_i = tt_out(ETR_INT, TT_SIZES(2), 0);
  tt_expect_status(unary("aten::exp.out", x, out_i), ETR_ERR_INVALID_ARGUMENT);
  // sqrt(-1) is NaN, rsqrt(0) inf, rsqrt(-0) -inf.
  etr_tensor_t *y = tt_tensor(ETR_FLOAT, TT_SIZES(3), TT_VALUES(-1, 0, -0.0));
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(3), 0);
  tt_expect_status(unary("aten::rsqrt.out", y, out), ETR_OK);
  tt_expect_values(out, TT_VALUES(NAN, INFINITY, -INFINITY), 3);
  // Empty input; quantized input is NotSupported.
  etr_tensor_t *empty = tt_tensor(ETR_FLOAT, TT_SIZES(2, 0), NULL);
  etr_tensor_t *empty_out = tt_out(ETR_FLOAT, TT_SIZES(4), 0);
  tt_expect_status(unary("aten::tanh.out", empty, empty_out), ETR_OK);
  tt_expect_shape(empty_out, TT_SIZES(2, 0));
  etr_tensor_t *q = tt_tensor(ETR_QUINT8, TT_SIZES(2), NULL);
  tt_expect_status(unary("aten::sigmoid.out", q, out), ETR_ERR_NOT_SUPPORTED);
}

TT_TEST(gelu, rejects) {
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(2), TT_VALUES(1, 2));
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(2), 0);
  tt_expect_status(TT_CALL("aten::gelu.out", tt_ev_tensor(x),
                           tt_ev_string("erf"), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   ETR_ERR_INVALID_ARGUMENT);
  etr_tensor_t *out_d = tt_out(ETR_DOUBLE, TT_SIZES(2), 0);
  tt_expect_status(TT_CALL("aten::gelu.out", tt_ev_tensor(x),
                           tt_ev_string("none"), tt_ev_tensor(out_d),
                           tt_ev_tensor(out_d)),
                   ETR_ERR_INVALID_ARGUMENT);
  etr_tensor_t *i = tt_tensor(ETR_INT, TT_SIZES(2), TT_VALUES(1, 2));
  etr_tensor_t *out_i = tt_out(ETR_INT, TT_SIZES(2), 0);
  tt_expect_status(TT_CALL("aten::gelu.out", tt_ev_tensor(i),
                           tt_ev_string("none"), tt_ev_tensor(out_i),
                           tt_ev_tensor(out_i)),
                   ETR_ERR_NOT_SUPPORTED);
  tt_expect_status(TT_CALL("aten::gelu.out", tt_ev_tensor(x), tt_ev_none(),
                           tt_ev_tensor(out), tt_ev_tensor(out)),
                   ETR_ERR_INVALID_TYPE);
}

TT_TEST(neg, values_and_rules) {
  etr_tensor_t *x = tt_tensor(ETR_CHAR, TT_SIZES(3), TT_VALUES(1, -128, 0));
  etr_tensor_t *out = tt_out(ETR_CHAR, TT_SIZES(3), 0);
  tt_expect_status(unary("aten::neg.out", x, out), ETR_OK);
  tt_expect_values(out, TT_VALUES(-1, -128, 0), 3);  // -(-128) wraps
  etr_tensor_t *c = tt_tensor(ETR_COMPLEX_DOUBLE, TT_SIZES(1),
                              TT_VALUES(1, -2));
  etr_tensor_t *out_c = tt_out(ETR_COMPLEX_DOUBLE, TT_SIZES(1), 0);
  tt_expect_status(unary("aten::neg.out", c, out_c), ETR_OK);
  tt_expect_values(out_c, TT_VALUES(-1, 2), 2);
  etr_tensor_t *h = tt_noncontiguous(
      tt_tensor(ETR_BFLOAT16, TT_SIZES(2, 2), TT_VALUES(1.5, -2, 0, 3)));
  etr_tensor_t *out_h = tt_out(ETR_BFLOAT16, TT_SIZES(2, 2), 0);
  tt_expect_status(unary("aten::neg.out", h, out_h), ETR_OK);
  tt_expect_values(out_h, TT_VALUES(-1.5, 2, -0.0, -3), 4);
  // Bool is refused; the out dtype must equal self's.
  etr_tensor_t *b = tt_tensor(ETR_BOOL, TT_SIZES(1), TT_VALUES(1));
  etr_tensor_t *out_b = tt_out(ETR_BOOL, TT_SIZES(1), 0);
  tt_expect_status(unary("aten::neg.out", b, out_b), ETR_ERR_NOT_SUPPORTED);
  etr_tensor_t *out_long = tt_out(ETR_LONG, TT_SIZES(3), 0);
  tt_expect_status(unary("aten::neg.out", x, out_long),
                   ETR_ERR_INVALID_ARGUMENT);
}

TT_TEST(relu, values_and_rules) {
  static const etr_scalar_type_t kTypes[] = {
      ETR_CHAR, ETR_SHORT, ETR_INT, ETR_LONG, ETR_HALF, ETR_BFLOAT16,
      ETR_FLOAT, ETR_DOUBLE};
  for (size_t i = 0; i < sizeof(kTypes) / sizeof(kTypes[0]); ++i) {
    etr_tensor_t *x = tt_tensor(kTypes[i], TT_SIZES(2, 2),
                                TT_VALUES(-3, 2, 0, -1));
    etr_tensor_t *out = tt_out(kTypes[i], TT_SIZES(4), 0);
    tt_expect_status(unary("aten::relu.out", tt_noncontiguous(x), out),
                     ETR_OK);
    tt_expect_shape(out, TT_SIZES(2, 2));
    tt_expect_values(out, TT_VALUES(0, 2, 0, 0), 4);
  }
  etr_tensor_t *u = tt_tensor(ETR_BYTE, TT_SIZES(2), TT_VALUES(0, 200));
  etr_tensor_t *out_u = tt_out(ETR_BYTE, TT_SIZES(2), 0);
  tt_expect_status(unary("aten::relu.out", u, out_u), ETR_OK);
  tt_expect_values(out_u, TT_VALUES(0, 200), 2);
  etr_tensor_t *f = tt_tensor(ETR_FLOAT, TT_SIZES(2), TT_VALUES(NAN, -1));
  etr_tensor_t *out_f = tt_out(ETR_FLOAT, TT_SIZES(2), 0);
  tt_expect_status(unary("aten::relu.out", f, out_f), ETR_OK);
  tt_expect_values(out_f, TT_VALUES(NAN, 0), 2);
  etr_tensor_t *b = tt_tensor(ETR_BOOL, TT_SIZES(1), TT_VALUES(1));
  tt_expect_status(unary("aten::relu.out", b, tt_out(ETR_BOOL, TT_SIZES(1), 0)),
                   ETR_ERR_NOT_SUPPORTED);
  tt_expect_status(unary("aten::relu.out", f,
                         tt_out(ETR_DOUBLE, TT_SIZES(2), 0)),
                   ETR_ERR_INVALID_ARGUMENT);
}

static etr_error_t hardtanh(etr_tensor_t *x, etr_evalue_t *low,
                            etr_evalue_t *high, etr_tensor_t *out) {
  return TT_CALL("aten::hardtanh.out", tt_ev_tensor(x), low, high,
                 tt_ev_tensor(out), tt_ev_tensor(out));
}

TT_TEST(hardtanh, values_and_rules) {
  // ReLU6 on a channels-last tensor.
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(1, 2, 1, 2),
                              TT_VALUES(-1, 3, 7, NAN));
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(1, 2, 1, 2), 0);
  tt_expect_status(hardtanh(tt_channels_last(x), tt_ev_double(0.0),
                            tt_ev_double(6.0), out),
                   ETR_OK);
  tt_expect_values(out, TT_VALUES(0, 3, 6, NAN), 4);
  // Integral self: limits truncated (-1.5 -> -1, 1.5 -> 1).
  etr_tensor_t *i = tt_tensor(ETR_LONG, TT_SIZES(3), TT_VALUES(1, 2, -3));
  etr_tensor_t *out_i = tt_out(ETR_LONG, TT_SIZES(3), 0);
  tt_expect_status(hardtanh(i, tt_ev_double(-1.5), tt_ev_double(1.5), out_i),
                   ETR_OK);
  tt_expect_values(out_i, TT_VALUES(1, 1, -1), 3);
  // Half.
  etr_tensor_t *h = tt_tensor(ETR_HALF, TT_SIZES(2), TT_VALUES(-2, 0.5));
  etr_tensor_t *out_h = tt_out(ETR_HALF, TT_SIZES(2), 0);
  tt_expect_status(hardtanh(h, tt_ev_int(-1), tt_ev_int(1), out_h), ETR_OK);
  tt_expect_values(out_h, TT_VALUES(-1, 0.5), 2);
  // uint8 with negative limits; limits that overflow int8; Bool; out dtype.
  etr_tensor_t *u = tt_tensor(ETR_BYTE, TT_SIZES(1), TT_VALUES(3));
  tt_expect_status(hardtanh(u, tt_ev_int(-1), tt_ev_int(1),
                            tt_out(ETR_BYTE, TT_SIZES(1), 0)),
                   ETR_ERR_INVALID_ARGUMENT);
  etr_tensor_t *c = tt_tensor(ETR_CHAR, TT_SIZES(1), TT_VALUES(3));
  tt_expect_status(hardtanh(c, tt_ev_int(-1000), tt_ev_int(1),
                            tt_out(ETR_CHAR, TT_SIZES(1), 0)),
                   ETR_ERR_INVALID_ARGUMENT);
  etr_tensor_t *b = tt_tensor(ETR_BOOL, TT_SIZES(1), TT_VALUES(1));
  tt_expect_status(hardtanh(b, tt_ev_int(0), tt_ev_int(1),
                            tt_out(ETR_BOOL, TT_SIZES(1), 0)),
                   ETR_ERR_NOT_SUPPORTED);
  tt_expect_status(hardtanh(h, tt_ev_int(0), tt_ev_int(1),
                            tt_out(ETR_FLOAT, TT_SIZES(2), 0)),
                   ETR_ERR_INVALID_ARGUMENT);
}

static etr_error_t clamp(etr_tensor_t *x, etr_evalue_t *low,
                         etr_evalue_t *high, etr_tensor_t *out) {
  return TT_CALL("aten::clamp.out", tt_ev_tensor(x), low, high,
                 tt_ev_tensor(out), tt_ev_tensor(out));
}

TT_TEST(clamp, values_promotion_and_rules) {
  // int tensor clamped to floats -> Float (torch.clamp([1,2,3], 0.5, 2.5)).
  etr_tensor_t *i = tt_tensor(ETR_LONG, TT_SIZES(3), TT_VALUES(1, 2, 3));
  etr_tensor_t *out_f = tt_out(ETR_FLOAT, TT_SIZES(3), 0);
  tt_expect_status(clamp(i, tt_ev_double(0.5), tt_ev_double(2.5), out_f),
                   ETR_OK);
  tt_expect_values(out_f, TT_VALUES(1, 2, 2.5), 3);
  // min > max gives max everywhere; only one bound.
  etr_tensor_t *out_l = tt_out(ETR_LONG, TT_SIZES(3), 0);
  tt_expect_status(clamp(i, tt_ev_int(5), tt_ev_int(2), out_l), ETR_OK);
  tt_expect_values(out_l, TT_VALUES(2, 2, 2), 3);
  tt_expect_status(clamp(i, tt_ev_none(), tt_ev_int(2), out_l), ETR_OK);
  tt_expect_values(out_l, TT_VALUES(1, 2, 2), 3);
  // NaN passes through; a NaN bound makes everything NaN.
  etr_tensor_t *f = tt_tensor(ETR_FLOAT, TT_SIZES(3), TT_VALUES(1, NAN, 3));
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(3), 0);
  tt_expect_status(clamp(f, tt_ev_int(0), tt_ev_int(2), out), ETR_OK);
  tt_expect_values(out, TT_VALUES(1, NAN, 2), 3);
  tt_expect_status(clamp(f, tt_ev_double(NAN), tt_ev_int(2), out), ETR_OK);
  tt_expect_values(out, TT_VALUES(NAN, NAN, NAN), 3);
  // Bool tensor with int bounds is Long.
  etr_tensor_t *b = tt_tensor(ETR_BOOL, TT_SIZES(2), TT_VALUES(1, 0));
  etr_tensor_t *out_b = tt_out(ETR_LONG, TT_SIZES(2), 0);
  tt_expect_status(clamp(b, tt_ev_int(0), tt_ev_int(1), out_b), ETR_OK);
  tt_expect_values(out_b, TT_VALUES(1, 0), 2);
  // Errors: no bound, out dtype != result, int8 bound overflow, complex.
  tt_expect_status(clamp(f, tt_ev_none(), tt_ev_none(), out),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(clamp(i, tt_ev_double(0.5), tt_ev_none(), out_l),
                   ETR_ERR_INVALID_ARGUMENT);
  etr_tensor_t *c = tt_tensor(ETR_CHAR, TT_SIZES(1), TT_VALUES(1));
  tt_expect_status(clamp(c, tt_ev_int(0), tt_ev_int(1000),
                         tt_out(ETR_CHAR, TT_SIZES(1), 0)),
                   ETR_ERR_INVALID_ARGUMENT);
  etr_tensor_t *z = tt_tensor(ETR_COMPLEX_FLOAT, TT_SIZES(1), TT_VALUES(1, 1));
  tt_expect_status(clamp(z, tt_ev_int(0), tt_ev_int(1),
                         tt_out(ETR_COMPLEX_FLOAT, TT_SIZES(1), 0)),
                   ETR_ERR_NOT_SUPPORTED);
}
