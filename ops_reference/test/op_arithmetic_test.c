// SPDX-License-Identifier: Apache-2.0
//
// aten::sub, aten::mul, aten::div (true, trunc, floor; Tensor and Scalar),
// aten::remainder and aten::pow.Tensor_Scalar_out: values (hand-computed,
// agreeing with PyTorch 2.13, and PyTorch-generated pow cases), dtype
// promotion, wrap-around, broadcasting, strided inputs, ATen's op-math
// rule for a single-element operand, and the exact error codes.
#include <math.h>

#include "ops_reference/test/generated/pow_cases.h"
#include "ops_reference/test/test_util.h"

static etr_error_t binary(const char *op, etr_tensor_t *a, etr_tensor_t *b,
                          etr_tensor_t *out) {
  return TT_CALL(op, tt_ev_tensor(a), tt_ev_tensor(b), tt_ev_tensor(out),
                 tt_ev_tensor(out));
}

TT_TEST(sub, values_promotion_and_bool) {
  etr_tensor_t *a = tt_tensor(ETR_INT, TT_SIZES(3), TT_VALUES(5, -5, 7));
  etr_tensor_t *b = tt_tensor(ETR_INT, TT_SIZES(3), TT_VALUES(2, 3, -1));
  etr_tensor_t *out = tt_out(ETR_INT, TT_SIZES(3), 0);
  tt_expect_status(TT_CALL("aten::sub.out", tt_ev_tensor(a), tt_ev_tensor(b),
                           tt_ev_int(2), tt_ev_tensor(out), tt_ev_tensor(out)),
                   ETR_OK);
  tt_expect_values(out, TT_VALUES(1, -11, 9), 3);
  // Float tensor minus an int Scalar, broadcast over a strided input.
  etr_tensor_t *f = tt_noncontiguous(
      tt_tensor(ETR_HALF, TT_SIZES(2, 2), TT_VALUES(1, 2, 3, 4)));
  etr_tensor_t *out_h = tt_out(ETR_HALF, TT_SIZES(2, 2), 0);
  tt_expect_status(TT_CALL("aten::sub.Scalar_out", tt_ev_tensor(f),
                           tt_ev_int(1), tt_ev_double(0.5), tt_ev_tensor(out_h),
                           tt_ev_tensor(out_h)),
                   ETR_OK);
  tt_expect_values(out_h, TT_VALUES(0.5, 1.5, 2.5, 3.5), 4);
  // Complex.
  etr_tensor_t *z = tt_tensor(ETR_COMPLEX_DOUBLE, TT_SIZES(1), TT_VALUES(1, 2));
  etr_tensor_t *out_z = tt_out(ETR_COMPLEX_DOUBLE, TT_SIZES(1), 0);
  tt_expect_status(TT_CALL("aten::sub.out", tt_ev_tensor(z), tt_ev_tensor(z),
                           tt_ev_int(3), tt_ev_tensor(out_z),
                           tt_ev_tensor(out_z)),
                   ETR_OK);
  tt_expect_values(out_z, TT_VALUES(-2, -4), 2);
  // Bool operands are refused (PyTorch: use logical_xor / ~ instead).
  etr_tensor_t *t = tt_tensor(ETR_BOOL, TT_SIZES(1), TT_VALUES(1));
  tt_expect_status(TT_CALL("aten::sub.out", tt_ev_tensor(a), tt_ev_tensor(t),
                           tt_ev_int(1), tt_ev_tensor(out), tt_ev_tensor(out)),
                   ETR_ERR_NOT_SUPPORTED);
  tt_expect_status(TT_CALL("aten::sub.Scalar_out", tt_ev_tensor(t),
                           tt_ev_int(1), tt_ev_int(1), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   ETR_ERR_NOT_SUPPORTED);
  tt_expect_status(TT_CALL("aten::sub.out", tt_ev_tensor(a), tt_ev_tensor(b),
                           tt_ev_double(1.5), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   ETR_ERR_INVALID_ARGUMENT);
}

TT_TEST(mul, values_dtypes_and_opmath) {
  static const etr_scalar_type_t kTypes[] = {
      ETR_BOOL, ETR_BYTE, ETR_CHAR, ETR_SHORT, ETR_INT, ETR_LONG,
      ETR_HALF, ETR_BFLOAT16, ETR_FLOAT, ETR_DOUBLE};
  for (size_t i = 0; i < sizeof(kTypes) / sizeof(kTypes[0]); ++i) {
    etr_tensor_t *a =
        tt_tensor(kTypes[i], TT_SIZES(2, 2), TT_VALUES(1, 0, 1, 1));
    etr_tensor_t *b = tt_tensor(kTypes[i], TT_SIZES(2), TT_VALUES(1, 1));
    etr_tensor_t *out = tt_out(kTypes[i], TT_SIZES(2, 2), 0);
    tt_expect_status(binary("aten::mul.out", a, b, out), ETR_OK);
    tt_expect_values(out, TT_VALUES(1, 0, 1, 1), 4);
  }
  // int16 wraps: 300 * 300 = 90000 -> 24464.
  etr_tensor_t *s = tt_tensor(ETR_SHORT, TT_SIZES(1), TT_VALUES(300));
  etr_tensor_t *out_s = tt_out(ETR_SHORT, TT_SIZES(1), 0);
  tt_expect_status(binary("aten::mul.out", s, s, out_s), ETR_OK);
  tt_expect_values(out_s, TT_VALUES(24464), 1);
  // Complex: (1+2i)(3-i) = 5+5i.
  etr_tensor_t *z = tt_tensor(ETR_COMPLEX_FLOAT, TT_SIZES(1), TT_VALUES(1, 2));
  etr_tensor_t *w = tt_tensor(ETR_COMPLEX_FLOAT, TT_SIZES(1), TT_VALUES(3, -1));
  etr_tensor_t *out_z = tt_out(ETR_COMPLEX_FLOAT, TT_SIZES(1), 0);
  tt_expect_status(binary("aten::mul.out", z, w, out_z), ETR_OK);
  tt_expect_values(out_z, TT_VALUES(5, 5), 2);
  // ATen's mul keeps a single-element Float other in float for Half: Half
  // 1025 * 1.0004882 is 1025.5 in float, 1026 after rounding to Half, but
  // 1025 when the factor is first rounded to Half (1.0).
  etr_tensor_t *h = tt_tensor(ETR_HALF, TT_SIZES(1), TT_VALUES(1025));
  etr_tensor_t *factor = tt_scalar_tensor(ETR_FLOAT, 1.00048828125);
  etr_tensor_t *out_h = tt_out(ETR_HALF, TT_SIZES(1), 0);
  tt_expect_status(binary("aten::mul.out", h, factor, out_h), ETR_OK);
  cr_expect_eq(tt_get(out_h, 0), 1026.0);
  // Scalar overload promotes an int tensor times 0.5 to Float.
  etr_tensor_t *i = tt_tensor(ETR_LONG, TT_SIZES(2), TT_VALUES(3, -4));
  etr_tensor_t *out_f = tt_out(ETR_FLOAT, TT_SIZES(2), 0);
  tt_expect_status(TT_CALL("aten::mul.Scalar_out", tt_ev_tensor(i),
                           tt_ev_double(0.5), tt_ev_tensor(out_f),
                           tt_ev_tensor(out_f)),
                   ETR_OK);
  tt_expect_values(out_f, TT_VALUES(1.5, -2), 2);
  etr_tensor_t *out_l = tt_out(ETR_LONG, TT_SIZES(2), 0);
  tt_expect_status(TT_CALL("aten::mul.Scalar_out", tt_ev_tensor(i),
                           tt_ev_double(0.5), tt_ev_tensor(out_l),
                           tt_ev_tensor(out_l)),
                   ETR_ERR_INVALID_ARGUMENT);
}

static etr_error_t div_mode(etr_tensor_t *a, etr_tensor_t *b,
                            const char *mode, etr_tensor_t *out) {
  return TT_CALL("aten::div.out_mode", tt_ev_tensor(a), tt_ev_tensor(b),
                 mode != NULL ? tt_ev_string(mode) : tt_ev_none(),
                 tt_ev_tensor(out), tt_ev_tensor(out));
}

TT_TEST(div, true_trunc_floor) {
  etr_tensor_t *a = tt_tensor(ETR_LONG, TT_SIZES(4), TT_VALUES(7, -7, 7, -7));
  etr_tensor_t *b = tt_tensor(ETR_LONG, TT_SIZES(4), TT_VALUES(2, 2, -2, -2));
  etr_tensor_t *out = tt_out(ETR_LONG, TT_SIZES(4), 0);
  tt_expect_status(div_mode(a, b, "floor", out), ETR_OK);
  tt_expect_values(out, TT_VALUES(3, -4, -4, 3), 4);
  tt_expect_status(div_mode(a, b, "trunc", out), ETR_OK);
  tt_expect_values(out, TT_VALUES(3, -3, -3, 3), 4);
  // Integer true division gives Float.
  etr_tensor_t *out_f = tt_out(ETR_FLOAT, TT_SIZES(4), 0);
  tt_expect_status(div_mode(a, b, NULL, out_f), ETR_OK);
  tt_expect_values(out_f, TT_VALUES(3.5, -3.5, -3.5, 3.5), 4);
  tt_expect_status(binary("aten::div.out", a, b, out),
                   ETR_ERR_INVALID_ARGUMENT);
  // Floating floor division, zero divisors and signed zeros.
  etr_tensor_t *x =
      tt_tensor(ETR_FLOAT, TT_SIZES(4), TT_VALUES(5, -5, 0, -0.0));
  etr_tensor_t *y = tt_tensor(ETR_FLOAT, TT_SIZES(4), TT_VALUES(0, 2, -3, 3));
  etr_tensor_t *out_x = tt_out(ETR_FLOAT, TT_SIZES(4), 0);
  tt_expect_status(div_mode(x, y, "floor", out_x), ETR_OK);
  tt_expect_values(out_x, TT_VALUES(INFINITY, -3, -0.0, -0.0), 4);
  cr_expect(signbit(tt_get(out_x, 2)), "floor(0 / -3) is -0");
  tt_expect_status(div_mode(x, y, "trunc", out_x), ETR_OK);
  tt_expect_values(out_x, TT_VALUES(INFINITY, -2, -0.0, -0.0), 4);
  // int8 floor division.
  etr_tensor_t *c = tt_tensor(ETR_CHAR, TT_SIZES(2), TT_VALUES(7, -7));
  etr_tensor_t *two = tt_scalar_tensor(ETR_CHAR, 2);
  etr_tensor_t *out_c = tt_out(ETR_CHAR, TT_SIZES(2), 0);
  tt_expect_status(div_mode(c, two, "floor", out_c), ETR_OK);
  tt_expect_values(out_c, TT_VALUES(3, -4), 2);
  // Complex true division (numpy's algorithm): (1+2i)/(3-i) = 0.1+0.7i.
  etr_tensor_t *z = tt_tensor(ETR_COMPLEX_DOUBLE, TT_SIZES(1), TT_VALUES(1, 2));
  etr_tensor_t *w =
      tt_tensor(ETR_COMPLEX_DOUBLE, TT_SIZES(1), TT_VALUES(3, -1));
  etr_tensor_t *out_z = tt_out(ETR_COMPLEX_DOUBLE, TT_SIZES(1), 0);
  tt_expect_status(binary("aten::div.out", z, w, out_z), ETR_OK);
  tt_expect_values(out_z, TT_VALUES(0.1, 0.7), 2);
  // Scalar overload; x / 0 is inf.
  etr_tensor_t *i = tt_tensor(ETR_INT, TT_SIZES(2), TT_VALUES(1, 3));
  etr_tensor_t *out_d = tt_out(ETR_DOUBLE, TT_SIZES(2), 0);
  tt_expect_status(TT_CALL("aten::div.Scalar_out", tt_ev_tensor(i),
                           tt_ev_int(0), tt_ev_tensor(out_d),
                           tt_ev_tensor(out_d)),
                   ETR_OK);
  tt_expect_values(out_d, TT_VALUES(INFINITY, INFINITY), 2);
}

TT_TEST(div, rejects) {
  etr_tensor_t *a = tt_tensor(ETR_LONG, TT_SIZES(2), TT_VALUES(5, -5));
  etr_tensor_t *zero = tt_tensor(ETR_LONG, TT_SIZES(2), TT_VALUES(0, 2));
  etr_tensor_t *out = tt_out(ETR_LONG, TT_SIZES(2), 0);
  tt_expect_status(div_mode(a, zero, "floor", out), ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(div_mode(a, zero, "trunc", out), ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(div_mode(a, a, "round", out), ETR_ERR_INVALID_ARGUMENT);
  etr_tensor_t *b = tt_tensor(ETR_BOOL, TT_SIZES(2), TT_VALUES(1, 1));
  etr_tensor_t *out_b = tt_out(ETR_BOOL, TT_SIZES(2), 0);
  tt_expect_status(div_mode(b, b, "floor", out_b), ETR_ERR_NOT_SUPPORTED);
  etr_tensor_t *z = tt_tensor(ETR_COMPLEX_FLOAT, TT_SIZES(1), TT_VALUES(1, 1));
  etr_tensor_t *out_z = tt_out(ETR_COMPLEX_FLOAT, TT_SIZES(1), 0);
  tt_expect_status(div_mode(z, z, "trunc", out_z), ETR_ERR_NOT_SUPPORTED);
  // A Bool divisor is fine once the result is integral (False divides by 0).
  etr_tensor_t *f = tt_tensor(ETR_BOOL, TT_SIZES(2), TT_VALUES(1, 0));
  tt_expect_status(div_mode(a, f, "floor", out), ETR_ERR_INVALID_ARGUMENT);
}

TT_TEST(remainder, values_and_rules) {
  etr_tensor_t *a = tt_tensor(ETR_LONG, TT_SIZES(4), TT_VALUES(5, -5, 5, -5));
  etr_tensor_t *b = tt_tensor(ETR_LONG, TT_SIZES(4), TT_VALUES(3, 3, -3, -3));
  etr_tensor_t *out = tt_out(ETR_LONG, TT_SIZES(4), 0);
  tt_expect_status(binary("aten::remainder.Tensor_out", a, b, out), ETR_OK);
  tt_expect_values(out, TT_VALUES(2, 1, -1, -2), 4);
  etr_tensor_t *f = tt_tensor(ETR_FLOAT, TT_SIZES(2), TT_VALUES(5.5, -5.5));
  etr_tensor_t *out_f = tt_out(ETR_FLOAT, TT_SIZES(2), 0);
  tt_expect_status(TT_CALL("aten::remainder.Scalar_out", tt_ev_tensor(f),
                           tt_ev_int(2), tt_ev_tensor(out_f),
                           tt_ev_tensor(out_f)),
                   ETR_OK);
  tt_expect_values(out_f, TT_VALUES(1.5, 0.5), 2);
  tt_expect_status(TT_CALL("aten::remainder.Scalar_out", tt_ev_tensor(f),
                           tt_ev_double(0.0), tt_ev_tensor(out_f),
                           tt_ev_tensor(out_f)),
                   ETR_OK);
  tt_expect_values(out_f, TT_VALUES(NAN, NAN), 2);
  // int64 step counter mod 4 (the mutable-buffer model), into int32.
  etr_tensor_t *step = tt_tensor(ETR_LONG, TT_SIZES(1), TT_VALUES(5));
  etr_tensor_t *out_i = tt_out(ETR_LONG, TT_SIZES(1), 0);
  tt_expect_status(TT_CALL("aten::remainder.Scalar_out", tt_ev_tensor(step),
                           tt_ev_int(4), tt_ev_tensor(out_i),
                           tt_ev_tensor(out_i)),
                   ETR_OK);
  tt_expect_values(out_i, TT_VALUES(1), 1);
  // Errors: zero integer divisor, Bool, Float into Long.
  tt_expect_status(TT_CALL("aten::remainder.Scalar_out", tt_ev_tensor(a),
                           tt_ev_int(0), tt_ev_tensor(out), tt_ev_tensor(out)),
                   ETR_ERR_INVALID_ARGUMENT);
  etr_tensor_t *t = tt_tensor(ETR_BOOL, TT_SIZES(1), TT_VALUES(1));
  etr_tensor_t *out_b = tt_out(ETR_BOOL, TT_SIZES(1), 0);
  tt_expect_status(binary("aten::remainder.Tensor_out", t, t, out_b),
                   ETR_ERR_NOT_SUPPORTED);
  tt_expect_status(binary("aten::remainder.Tensor_out", a, f, out),
                   ETR_ERR_INVALID_ARGUMENT);
}

TT_TEST(pow, generated_cases) {
  for (size_t i = 0; i < sizeof(kPowCases) / sizeof(kPowCases[0]); ++i) {
    const pow_case_t *c = &kPowCases[i];
    cr_log_info("case %s", c->name);
    etr_tensor_t *out = tt_case_out(&c->expected);
    etr_evalue_t *exponent = c->exponent_is_int
                                 ? tt_ev_int((int64_t)c->exponent)
                                 : tt_ev_double(c->exponent);
    tt_expect_status(TT_CALL("aten::pow.Tensor_Scalar_out",
                             tt_ev_tensor(tt_noncontiguous(
                                 tt_case_tensor(&c->input))),
                             exponent, tt_ev_tensor(out), tt_ev_tensor(out)),
                     ETR_OK);
    tt_expect_case(out, &c->expected);
  }
}

TT_TEST(pow, rules) {
  // Bool base to an int power is Long; the result may widen into Double.
  etr_tensor_t *b = tt_tensor(ETR_BOOL, TT_SIZES(2), TT_VALUES(1, 0));
  etr_tensor_t *out = tt_out(ETR_DOUBLE, TT_SIZES(2), 0);
  tt_expect_status(TT_CALL("aten::pow.Tensor_Scalar_out", tt_ev_tensor(b),
                           tt_ev_int(2), tt_ev_tensor(out), tt_ev_tensor(out)),
                   ETR_OK);
  tt_expect_values(out, TT_VALUES(1, 0), 2);
  etr_tensor_t *i = tt_tensor(ETR_INT, TT_SIZES(2), TT_VALUES(2, 3));
  etr_tensor_t *out_i = tt_out(ETR_INT, TT_SIZES(2), 0);
  tt_expect_status(TT_CALL("aten::pow.Tensor_Scalar_out", tt_ev_tensor(i),
                           tt_ev_int(-1), tt_ev_tensor(out_i),
                           tt_ev_tensor(out_i)),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(TT_CALL("aten::pow.Tensor_Scalar_out", tt_ev_tensor(i),
                           tt_ev_double(0.5), tt_ev_tensor(out_i),
                           tt_ev_tensor(out_i)),
                   ETR_ERR_INVALID_ARGUMENT);
}
