// SPDX-License-Identifier: Apache-2.0
//
// Hand-written cases of the unary family's kernels, each checked against
// PyTorch 2.13 by hand: integer extremes a double cannot hold (int64 and
// uint64 limits), signed zeros and NaN (sign(-0.0) is +0.0, round(-0.5) is
// -0.0), round-half-to-even, in-place calls (out is self), elu and
// leaky_relu parameter checks, clamp.Tensor_out's argument rules, out
// resizing limits, and the exact code of every failure (argument count,
// argument tags, dtypes, shapes).
#include <math.h>
#include <stdint.h>

#include "ops_reference/test/test_util.h"

static etr_error_t unary(const char *op, etr_tensor_t *x, etr_tensor_t *out) {
  return TT_CALL(op, tt_ev_tensor(x), tt_ev_tensor(out), tt_ev_tensor(out));
}

static etr_error_t clamp(etr_tensor_t *x, etr_tensor_t *low,
                         etr_tensor_t *high, etr_tensor_t *out) {
  return TT_CALL("aten::clamp.Tensor_out", tt_ev_tensor(x),
                 low != NULL ? tt_ev_tensor(low) : tt_ev_none(),
                 high != NULL ? tt_ev_tensor(high) : tt_ev_none(),
                 tt_ev_tensor(out), tt_ev_tensor(out));
}

static etr_error_t elu(etr_tensor_t *x, etr_evalue_t *alpha,
                       etr_evalue_t *scale, etr_evalue_t *input_scale,
                       etr_tensor_t *out) {
  return TT_CALL("aten::elu.out", tt_ev_tensor(x), alpha, scale, input_scale,
                 tt_ev_tensor(out), tt_ev_tensor(out));
}

static etr_error_t leaky_relu(etr_tensor_t *x, etr_evalue_t *slope,
                              etr_tensor_t *out) {
  return TT_CALL("aten::leaky_relu.out", tt_ev_tensor(x), slope,
                 tt_ev_tensor(out), tt_ev_tensor(out));
}

static void expect_signbits(const etr_tensor_t *t, const bool *negative,
                            int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    cr_expect_eq(signbit(tt_get(t, i)) != 0, negative[i],
                 "element %lld: sign bit %d, expected %d", (long long)i,
                 signbit(tt_get(t, i)) != 0, negative[i]);
  }
}

TT_TEST(unary_edge, int64_and_uint64_extremes) {
  static const int64_t kLong[] = {INT64_MIN, INT64_MAX, -1, 0};
  etr_tensor_t *x = tt_tensor_i64(ETR_LONG, TT_SIZES(4), kLong);
  etr_tensor_t *out = tt_out(ETR_LONG, TT_SIZES(4), 0);
  // abs wraps at INT64_MIN (torch.abs(tensor([-2**63])) is -2**63).
  tt_expect_status(unary("aten::abs.out", x, out), ETR_OK);
  tt_expect_values_i64(out, (const int64_t[]){INT64_MIN, INT64_MAX, 1, 0}, 4);
  static const char *const kIdentity[] = {"aten::ceil.out", "aten::floor.out",
                                          "aten::round.out",
                                          "aten::trunc.out"};
  for (size_t i = 0; i < 4; ++i) {
    tt_expect_status(unary(kIdentity[i], x, out), ETR_OK);
    tt_expect_values_i64(out, kLong, 4);
  }
  tt_expect_status(unary("aten::sign.out", x, out), ETR_OK);
  tt_expect_values_i64(out, (const int64_t[]){-1, 1, -1, 0}, 4);
  tt_expect_status(unary("aten::bitwise_not.out", x, out), ETR_OK);
  tt_expect_values_i64(out, (const int64_t[]){INT64_MAX, INT64_MIN, 0, -1},
                       4);
  // uint64 above 2^63: identity for the rounding ops, Float for acos's
  // promotion, false for isinf.
  static const int64_t kUnsigned[] = {-1, INT64_MIN, 5};  // 2^64-1, 2^63, 5
  etr_tensor_t *u = tt_tensor_i64(ETR_UINT64, TT_SIZES(3), kUnsigned);
  etr_tensor_t *out_u = tt_out(ETR_UINT64, TT_SIZES(3), 0);
  tt_expect_status(unary("aten::floor.out", u, out_u), ETR_OK);
  tt_expect_values_i64(out_u, kUnsigned, 3);
  etr_tensor_t *out_f = tt_out(ETR_FLOAT, TT_SIZES(3), 0);
  tt_expect_status(unary("aten::reciprocal.out", u, out_f), ETR_OK);
  tt_expect_values(out_f,
                   TT_VALUES(1.0 / 18446744073709551616.0,
                             1.0 / 9223372036854775808.0, 0.2),
                   3);
  etr_tensor_t *out_b = tt_out(ETR_BOOL, TT_SIZES(3), 0);
  tt_expect_status(unary("aten::isinf.out", u, out_b), ETR_OK);
  tt_expect_values(out_b, TT_VALUES(0, 0, 0), 3);
}

TT_TEST(unary_edge, small_integer_wrapping) {
  etr_tensor_t *c = tt_tensor(ETR_CHAR, TT_SIZES(3), TT_VALUES(-128, 127, 0));
  etr_tensor_t *out_c = tt_out(ETR_CHAR, TT_SIZES(3), 0);
  tt_expect_status(unary("aten::abs.out", c, out_c), ETR_OK);
  tt_expect_values(out_c, TT_VALUES(-128, 127, 0), 3);
  tt_expect_status(unary("aten::bitwise_not.out", c, out_c), ETR_OK);
  tt_expect_values(out_c, TT_VALUES(127, -128, -1), 3);
  etr_tensor_t *b = tt_tensor(ETR_BYTE, TT_SIZES(2), TT_VALUES(0, 200));
  etr_tensor_t *out_b = tt_out(ETR_BYTE, TT_SIZES(2), 0);
  tt_expect_status(unary("aten::bitwise_not.out", b, out_b), ETR_OK);
  tt_expect_values(out_b, TT_VALUES(255, 55), 2);
  etr_tensor_t *t = tt_tensor(ETR_BOOL, TT_SIZES(2), TT_VALUES(1, 0));
  etr_tensor_t *out_t = tt_out(ETR_BOOL, TT_SIZES(2), 0);
  tt_expect_status(unary("aten::bitwise_not.out", t, out_t), ETR_OK);
  tt_expect_values(out_t, TT_VALUES(0, 1), 2);
  tt_expect_status(unary("aten::sign.out", t, out_t), ETR_OK);
  tt_expect_values(out_t, TT_VALUES(1, 0), 2);
}

TT_TEST(unary_edge, round_half_to_even) {
  static const etr_scalar_type_t kTypes[] = {ETR_HALF, ETR_BFLOAT16, ETR_FLOAT,
                                             ETR_DOUBLE};
  for (size_t i = 0; i < 4; ++i) {
    etr_tensor_t *x = tt_tensor(kTypes[i], TT_SIZES(8),
                                TT_VALUES(0.5, 1.5, 2.5, 3.5, -0.5, -1.5,
                                          -2.5, 0.25));
    etr_tensor_t *out = tt_out(kTypes[i], TT_SIZES(8), 0);
    tt_expect_status(unary("aten::round.out", x, out), ETR_OK);
    tt_expect_values(out, TT_VALUES(0, 2, 2, 4, -0.0, -2, -2, 0), 8);
    expect_signbits(out,
                    (const bool[]){false, false, false, false, true, true,
                                   true, false},
                    8);
  }
  // Halves at the edge of the significand: 2^22 + 0.5 in float, 2^51 + 0.5
  // in double round to the even neighbour.
  etr_tensor_t *f = tt_tensor(ETR_FLOAT, TT_SIZES(2),
                              TT_VALUES(4194304.5, 4194305.5));
  etr_tensor_t *out_f = tt_out(ETR_FLOAT, TT_SIZES(2), 0);
  tt_expect_status(unary("aten::round.out", f, out_f), ETR_OK);
  tt_expect_values(out_f, TT_VALUES(4194304, 4194306), 2);
  etr_tensor_t *d = tt_tensor(ETR_DOUBLE, TT_SIZES(2),
                              TT_VALUES(2251799813685248.5,
                                        2251799813685249.5));
  etr_tensor_t *out_d = tt_out(ETR_DOUBLE, TT_SIZES(2), 0);
  tt_expect_status(unary("aten::round.out", d, out_d), ETR_OK);
  tt_expect_values(out_d, TT_VALUES(2251799813685248.0, 2251799813685250.0),
                   2);
}

TT_TEST(unary_edge, signed_zeros_and_nan) {
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(4),
                              TT_VALUES(-0.0, NAN, -0.7, 0.0));
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(4), 0);
  // sign: (0 < x) - (x < 0), so -0.0 and NaN give +0.0.
  tt_expect_status(unary("aten::sign.out", x, out), ETR_OK);
  tt_expect_values(out, TT_VALUES(0, 0, -1, 0), 4);
  expect_signbits(out, (const bool[]){false, false, true, false}, 4);
  tt_expect_status(unary("aten::abs.out", x, out), ETR_OK);
  tt_expect_values(out, TT_VALUES(0, NAN, 0.7, 0), 4);
  expect_signbits(out, (const bool[]){false, false, false, false}, 4);
  tt_expect_status(unary("aten::ceil.out", x, out), ETR_OK);
  tt_expect_values(out, TT_VALUES(-0.0, NAN, -0.0, 0), 4);
  expect_signbits(out, (const bool[]){true, false, true, false}, 4);
  tt_expect_status(unary("aten::trunc.out", x, out), ETR_OK);
  expect_signbits(out, (const bool[]){true, false, true, false}, 4);
  tt_expect_status(leaky_relu(x, tt_ev_double(0.5), out), ETR_OK);
  tt_expect_values(out, TT_VALUES(-0.0, NAN, -0.35, 0), 4);
  expect_signbits(out, (const bool[]){true, false, true, false}, 4);
  tt_expect_status(elu(x, tt_ev_int(1), tt_ev_int(1), tt_ev_int(1), out),
                   ETR_OK);
  tt_expect_values(out, TT_VALUES(-0.0, NAN, expm1(-0.7), 0), 4);
  expect_signbits(out, (const bool[]){true, false, true, false}, 4);
  // logical_not: NaN is non-zero; -0.0 is zero.
  etr_tensor_t *out_b = tt_out(ETR_BOOL, TT_SIZES(4), 0);
  tt_expect_status(unary("aten::logical_not.out", x, out_b), ETR_OK);
  tt_expect_values(out_b, TT_VALUES(1, 0, 0, 1), 4);
  tt_expect_status(unary("aten::isnan.out", x, out_b), ETR_OK);
  tt_expect_values(out_b, TT_VALUES(0, 1, 0, 0), 4);
}

TT_TEST(unary_edge, complex_special_values) {
  // Parts are (real, imag) pairs: 0, inf + nan i, nan + 0i, 0 + inf i.
  etr_tensor_t *z = tt_tensor(ETR_COMPLEX_DOUBLE, TT_SIZES(4),
                              TT_VALUES(0, 0, INFINITY, NAN, NAN, 0, 0,
                                        INFINITY));
  etr_tensor_t *out_b = tt_out(ETR_BOOL, TT_SIZES(4), 0);
  tt_expect_status(unary("aten::isinf.out", z, out_b), ETR_OK);
  tt_expect_values(out_b, TT_VALUES(0, 1, 0, 1), 4);
  tt_expect_status(unary("aten::isnan.out", z, out_b), ETR_OK);
  tt_expect_values(out_b, TT_VALUES(0, 1, 1, 0), 4);
  tt_expect_status(unary("aten::logical_not.out", z, out_b), ETR_OK);
  tt_expect_values(out_b, TT_VALUES(1, 0, 0, 0), 4);
  // 1 / 0 is inf + nan i (c10's division), abs of inf + nan i is inf.
  etr_tensor_t *out_z = tt_out(ETR_COMPLEX_DOUBLE, TT_SIZES(4), 0);
  tt_expect_status(unary("aten::reciprocal.out", z, out_z), ETR_OK);
  cr_expect(isinf(tt_get(out_z, 0)) && isnan(tt_get_imag(out_z, 0)),
            "1 / 0 is inf + nan i");
  etr_tensor_t *out_d = tt_out(ETR_DOUBLE, TT_SIZES(4), 0);
  tt_expect_status(unary("aten::abs.out", z, out_d), ETR_OK);
  tt_expect_values(out_d, TT_VALUES(0, INFINITY, NAN, INFINITY), 4);
  // casinh(0 + inf i) is inf + pi/2 i: the imaginary infinity must reach
  // the C library intact.
  tt_expect_status(unary("aten::asinh.out", z, out_z), ETR_OK);
  cr_expect(isinf(tt_get(out_z, 3)) && tt_get(out_z, 3) > 0,
            "asinh(0 + inf i) has real part +inf, got %g", tt_get(out_z, 3));
  cr_expect_float_eq(tt_get_imag(out_z, 3), acos(0.0), 1e-15);
  // |3e20 + 4e20 i| in complex64 does not overflow.
  etr_tensor_t *big = tt_tensor(ETR_COMPLEX_FLOAT, TT_SIZES(1),
                                TT_VALUES(3e20, 4e20));
  etr_tensor_t *out_f = tt_out(ETR_FLOAT, TT_SIZES(1), 0);
  tt_expect_status(unary("aten::abs.out", big, out_f), ETR_OK);
  tt_expect_values(out_f, TT_VALUES(5e20), 1);
  // abs of complex into a complex out of self's dtype: |z| + 0i.
  etr_tensor_t *out_c = tt_out(ETR_COMPLEX_FLOAT, TT_SIZES(1), 0);
  tt_expect_status(unary("aten::abs.out", big, out_c), ETR_OK);
  tt_expect_values(out_c, TT_VALUES(5e20, 0), 2);
}

TT_TEST(unary_edge, in_place_and_layouts) {
  // out may be self (ExecuTorch's in-place variants write through it).
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(2, 2),
                              TT_VALUES(-1, 4, 0.25, -0.0));
  tt_expect_status(unary("aten::abs.out", x, x), ETR_OK);
  tt_expect_values(x, TT_VALUES(1, 4, 0.25, 0), 4);
  tt_expect_status(unary("aten::log2.out", x, x), ETR_OK);
  tt_expect_values(x, TT_VALUES(0, 2, -2, -INFINITY), 4);
  // A non-contiguous input into a channels-last out.
  static const uint8_t kChannelsLast[4] = {0, 2, 3, 1};
  etr_tensor_t *y = tt_noncontiguous(tt_tensor(
      ETR_DOUBLE, TT_SIZES(1, 2, 1, 2), TT_VALUES(0.5, 1.5, -0.5, -1.5)));
  etr_tensor_t *out = tt_out_dim_order(ETR_DOUBLE, 4,
                                       (const int64_t[]){1, 2, 1, 2},
                                       kChannelsLast);
  tt_expect_status(unary("aten::floor.out", y, out), ETR_OK);
  tt_expect_values(out, TT_VALUES(0, 1, -1, -2), 4);
  // Zero-dim input keeps rank 0.
  etr_tensor_t *s = tt_scalar_tensor(ETR_INT, 0);
  etr_tensor_t *out_s = tt_out(ETR_FLOAT, TT_SIZES(3), 0);
  tt_expect_status(unary("aten::cos.out", s, out_s), ETR_OK);
  tt_expect_shape(out_s, 0, NULL);
  tt_expect_values(out_s, TT_VALUES(1), 1);
}

TT_TEST(unary_edge, argument_errors) {
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(2, 3), NULL);
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(6), 0);
  // Wrong argument count, wrong tags.
  tt_expect_status(TT_CALL("aten::sin.out", tt_ev_tensor(x),
                           tt_ev_tensor(out)),
                   ETR_ERR_INVALID_PROGRAM);
  tt_expect_status(TT_CALL("aten::abs.out", tt_ev_int(1), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   ETR_ERR_INVALID_TYPE);
  tt_expect_status(TT_CALL("aten::floor.out", tt_ev_tensor(x), tt_ev_none(),
                           tt_ev_none()),
                   ETR_ERR_INVALID_TYPE);
  tt_expect_status(leaky_relu(x, tt_ev_string("0.1"), out),
                   ETR_ERR_INVALID_TYPE);
  tt_expect_status(TT_CALL("aten::elu.out", tt_ev_tensor(x), tt_ev_int(1),
                           tt_ev_int(1), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   ETR_ERR_INVALID_PROGRAM);
  // An out whose memory is too small, or a static out of another shape.
  etr_tensor_t *small = tt_out(ETR_FLOAT, TT_SIZES(5), 0);
  tt_expect_status(unary("aten::tan.out", x, small), ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(unary("aten::isnan.out", x,
                         tt_out(ETR_BOOL, TT_SIZES(5), 0)),
                   ETR_ERR_INVALID_ARGUMENT);
  etr_tensor_t *fixed = tt_out(ETR_FLOAT, TT_SIZES(6), 0);
  fixed->shape_dynamism = ETR_SHAPE_STATIC;
  tt_expect_status(unary("aten::round.out", x, fixed),
                   ETR_ERR_INVALID_ARGUMENT);
  // Dtypes without arithmetic.
  etr_tensor_t *q = tt_tensor(ETR_QUINT8, TT_SIZES(2), NULL);
  etr_tensor_t *out_q = tt_out(ETR_QUINT8, TT_SIZES(2), 0);
  tt_expect_status(unary("aten::acos.out", q, out), ETR_ERR_NOT_SUPPORTED);
  tt_expect_status(unary("aten::abs.out", q, out_q), ETR_ERR_NOT_SUPPORTED);
  tt_expect_status(unary("aten::isnan.out", q,
                         tt_out(ETR_BOOL, TT_SIZES(2), 0)),
                   ETR_ERR_NOT_SUPPORTED);
  tt_expect_status(unary("aten::logical_not.out", x,
                         tt_out(ETR_QUINT8, TT_SIZES(6), 0)),
                   ETR_ERR_NOT_SUPPORTED);
}

TT_TEST(unary_edge, elu_and_leaky_relu_parameters) {
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(2), TT_VALUES(-1, 2));
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(2), 0);
  // The Scalars must fit the op-math type: Float for Half/BFloat16/Float.
  tt_expect_status(elu(x, tt_ev_double(1e300), tt_ev_int(1), tt_ev_int(1),
                       out),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(elu(x, tt_ev_int(1), tt_ev_int(1), tt_ev_double(-1e300),
                       out),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(leaky_relu(x, tt_ev_double(1e300), out),
                   ETR_ERR_INVALID_ARGUMENT);
  etr_tensor_t *h = tt_tensor(ETR_HALF, TT_SIZES(2), TT_VALUES(-1, 2));
  etr_tensor_t *out_h = tt_out(ETR_HALF, TT_SIZES(2), 0);
  tt_expect_status(leaky_relu(h, tt_ev_double(1e300), out_h),
                   ETR_ERR_INVALID_ARGUMENT);
  // 1e5 fits a float, so Half accepts it and the product overflows to -inf.
  tt_expect_status(leaky_relu(h, tt_ev_double(1e5), out_h), ETR_OK);
  tt_expect_values(out_h, TT_VALUES(-INFINITY, 2), 2);
  // Double takes any finite double; infinities are accepted everywhere.
  etr_tensor_t *d = tt_tensor(ETR_DOUBLE, TT_SIZES(2), TT_VALUES(-1, 2));
  etr_tensor_t *out_d = tt_out(ETR_DOUBLE, TT_SIZES(2), 0);
  tt_expect_status(leaky_relu(d, tt_ev_double(1e300), out_d), ETR_OK);
  tt_expect_values(out_d, TT_VALUES(-1e300, 2), 2);
  tt_expect_status(elu(x, tt_ev_double(INFINITY), tt_ev_int(1), tt_ev_int(1),
                       out),
                   ETR_OK);
  tt_expect_values(out, TT_VALUES(-INFINITY, 2), 2);
  // alpha * scale is formed in float: 3e38 * 1 fits, so -1 -> expm1(-1) *
  // 3e38; Half then overflows to -inf.
  tt_expect_status(elu(h, tt_ev_double(3e38), tt_ev_int(1), tt_ev_int(1),
                       out_h),
                   ETR_OK);
  tt_expect_values(out_h, TT_VALUES(-INFINITY, 2), 2);
  // Bool Scalars count as 1 / 0; an int tensor is NotSupported before the
  // Scalar is looked at; the out must have self's dtype.
  tt_expect_status(elu(x, tt_ev_bool(true), tt_ev_bool(true),
                       tt_ev_bool(true), out),
                   ETR_OK);
  tt_expect_values(out, TT_VALUES(expm1(-1.0), 2), 2);
  etr_tensor_t *i = tt_tensor(ETR_INT, TT_SIZES(2), TT_VALUES(-1, 2));
  etr_tensor_t *out_i = tt_out(ETR_INT, TT_SIZES(2), 0);
  tt_expect_status(elu(i, tt_ev_double(1e300), tt_ev_int(1), tt_ev_int(1),
                       out_i),
                   ETR_ERR_NOT_SUPPORTED);
  tt_expect_status(leaky_relu(x, tt_ev_double(0.1), out_d),
                   ETR_ERR_INVALID_ARGUMENT);
}

TT_TEST(unary_edge, clamp_tensor_rules) {
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(2, 3),
                              TT_VALUES(-2, -1, 0, 1, 2, 3));
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(6), 0);
  etr_tensor_t *row = tt_tensor(ETR_FLOAT, TT_SIZES(3), TT_VALUES(0, 0, 0));
  // At least one bound.
  tt_expect_status(clamp(x, NULL, NULL, out), ETR_ERR_INVALID_ARGUMENT);
  // Bounds that do not broadcast; a bound that would grow self's shape is
  // fine (the out takes the broadcast shape).
  etr_tensor_t *two = tt_tensor(ETR_FLOAT, TT_SIZES(2), TT_VALUES(0, 0));
  tt_expect_status(clamp(x, two, NULL, out), ETR_ERR_INVALID_ARGUMENT);
  etr_tensor_t *big = tt_tensor(ETR_FLOAT, TT_SIZES(2, 2, 3), NULL);
  etr_tensor_t *out_big = tt_out(ETR_FLOAT, TT_SIZES(12), 0);
  tt_expect_status(clamp(x, big, NULL, out_big), ETR_OK);
  tt_expect_shape(out_big, TT_SIZES(2, 2, 3));
  tt_expect_status(clamp(x, big, NULL, out), ETR_ERR_INVALID_ARGUMENT);
  // Complex self; promotions PyTorch refuses; outs the result cannot be
  // cast to.
  etr_tensor_t *z = tt_tensor(ETR_COMPLEX_FLOAT, TT_SIZES(1), TT_VALUES(1, 0));
  tt_expect_status(clamp(z, NULL, NULL, tt_out(ETR_COMPLEX_FLOAT,
                                               TT_SIZES(1), 0)),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(clamp(z, z, NULL, tt_out(ETR_COMPLEX_FLOAT, TT_SIZES(1),
                                            0)),
                   ETR_ERR_NOT_SUPPORTED);
  etr_tensor_t *u16 = tt_tensor(ETR_UINT16, TT_SIZES(3), TT_VALUES(1, 2, 3));
  etr_tensor_t *i32 = tt_tensor(ETR_INT, TT_SIZES(3), TT_VALUES(1, 1, 1));
  tt_expect_status(clamp(u16, i32, NULL, tt_out(ETR_INT, TT_SIZES(3), 0)),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(clamp(u16, u16, NULL, tt_out(ETR_UINT16, TT_SIZES(3), 0)),
                   ETR_ERR_NOT_SUPPORTED);
  tt_expect_status(clamp(x, row, NULL, tt_out(ETR_LONG, TT_SIZES(6), 0)),
                   ETR_ERR_INVALID_ARGUMENT);
  // Bool with both bounds is NotSupported, with one bound logical or/and.
  etr_tensor_t *b = tt_tensor(ETR_BOOL, TT_SIZES(2), TT_VALUES(1, 0));
  etr_tensor_t *nb = tt_tensor(ETR_BOOL, TT_SIZES(2), TT_VALUES(0, 1));
  etr_tensor_t *out_b = tt_out(ETR_BOOL, TT_SIZES(2), 0);
  tt_expect_status(clamp(b, nb, nb, out_b), ETR_ERR_NOT_SUPPORTED);
  tt_expect_status(clamp(b, nb, NULL, out_b), ETR_OK);
  tt_expect_values(out_b, TT_VALUES(1, 1), 2);
  tt_expect_status(clamp(b, NULL, nb, out_b), ETR_OK);
  tt_expect_values(out_b, TT_VALUES(0, 0), 2);
  // Wrong tags and count.
  tt_expect_status(TT_CALL("aten::clamp.Tensor_out", tt_ev_tensor(x),
                           tt_ev_double(0.5), tt_ev_none(), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   ETR_ERR_INVALID_TYPE);
  tt_expect_status(TT_CALL("aten::clamp.Tensor_out", tt_ev_tensor(x),
                           tt_ev_tensor(row), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   ETR_ERR_INVALID_PROGRAM);
}

TT_TEST(unary_edge, clamp_tensor_values) {
  // Non-contiguous self, a bound broadcast along rows, NaN in a bound.
  etr_tensor_t *x = tt_noncontiguous(tt_tensor(
      ETR_FLOAT, TT_SIZES(2, 3), TT_VALUES(-2, NAN, 0, 1, 2, 3)));
  etr_tensor_t *low = tt_tensor(ETR_FLOAT, TT_SIZES(3), TT_VALUES(-1, 0, NAN));
  etr_tensor_t *high = tt_scalar_tensor(ETR_DOUBLE, 1.5);  // zero-dim
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(6), 0);
  tt_expect_status(clamp(x, low, high, out), ETR_OK);
  tt_expect_shape(out, TT_SIZES(2, 3));
  tt_expect_values(out, TT_VALUES(-1, NAN, NAN, 1, 1.5, NAN), 6);
  // int64 self with int64 extremes as bounds, exact.
  static const int64_t kValues[] = {INT64_MIN, 0, INT64_MAX};
  static const int64_t kLow[] = {INT64_MIN + 1};
  etr_tensor_t *l = tt_tensor_i64(ETR_LONG, TT_SIZES(3), kValues);
  etr_tensor_t *l_low = tt_tensor_i64(ETR_LONG, TT_SIZES(1), kLow);
  etr_tensor_t *out_l = tt_out(ETR_LONG, TT_SIZES(3), 0);
  tt_expect_status(clamp(l, l_low, NULL, out_l), ETR_OK);
  tt_expect_values_i64(out_l, (const int64_t[]){INT64_MIN + 1, 0, INT64_MAX},
                       3);
  // Zero-size self with a broadcast bound.
  etr_tensor_t *empty = tt_tensor(ETR_INT, TT_SIZES(0, 3), NULL);
  etr_tensor_t *row = tt_tensor(ETR_INT, TT_SIZES(3), TT_VALUES(1, 2, 3));
  etr_tensor_t *out_e = tt_out(ETR_INT, TT_SIZES(4), 0);
  tt_expect_status(clamp(empty, row, row, out_e), ETR_OK);
  tt_expect_shape(out_e, TT_SIZES(0, 3));
}
