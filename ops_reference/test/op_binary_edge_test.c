// SPDX-License-Identifier: Apache-2.0
//
// Hand-written cases of the binary family that the generated ones cannot
// state: int64/uint64 values a double does not hold (wrapping pow, bitwise
// patterns, INT64_MIN fmod and floor division by -1), signs of zero, the
// op-math precision of div.Scalar_mode, pow.Scalar's short-circuit for a
// base of 1, masked_scatter's source order and its all-or-nothing failure,
// and the argument errors every kernel reports with an exact code.
// Expected values were checked against PyTorch 2.13 (the comment of each
// case quotes what PyTorch returns).
#include <math.h>
#include <stdint.h>

#include "ops_reference/test/test_util.h"

static etr_error_t call2(const char *op, etr_evalue_t *a, etr_evalue_t *b,
                         etr_tensor_t *out) {
  return TT_CALL(op, a, b, tt_ev_tensor(out), tt_ev_tensor(out));
}

static etr_error_t call_tensors(const char *op, etr_tensor_t *a,
                                etr_tensor_t *b, etr_tensor_t *out) {
  return call2(op, tt_ev_tensor(a), tt_ev_tensor(b), out);
}

TT_TEST(binary_edge, comparisons_match_eq_gt_lt) {
  etr_tensor_t *a = tt_tensor(ETR_FLOAT, TT_SIZES(4), TT_VALUES(1, 2, NAN, 3));
  etr_tensor_t *b = tt_tensor(ETR_FLOAT, TT_SIZES(4), TT_VALUES(2, 2, NAN, 1));
  etr_tensor_t *out = tt_out(ETR_BOOL, TT_SIZES(4), 0);
  tt_expect_status(call_tensors("aten::ge.Tensor_out", a, b, out), ETR_OK);
  tt_expect_values(out, TT_VALUES(0, 1, 0, 1), 4);
  tt_expect_status(call_tensors("aten::le.Tensor_out", a, b, out), ETR_OK);
  tt_expect_values(out, TT_VALUES(1, 1, 0, 0), 4);
  tt_expect_status(call_tensors("aten::ne.Tensor_out", a, b, out), ETR_OK);
  tt_expect_values(out, TT_VALUES(1, 0, 1, 1), 4);
  // int8 >= 1000: PyTorch casts 1000 to int8 (-24) first: tensor([True]).
  etr_tensor_t *i8 = tt_tensor(ETR_CHAR, TT_SIZES(1), TT_VALUES(5));
  etr_tensor_t *out1 = tt_out(ETR_BOOL, TT_SIZES(1), 0);
  tt_expect_status(call2("aten::ge.Scalar_out", tt_ev_tensor(i8),
                         tt_ev_int(1000), out1),
                   ETR_OK);
  tt_expect_values(out1, TT_VALUES(1), 1);
  // uint64 patterns compare exactly: 2^64-1 != -1 is False.
  etr_tensor_t *u64 =
      tt_tensor_i64(ETR_UINT64, TT_SIZES(1), (const int64_t[]){-1});
  tt_expect_status(call2("aten::ne.Scalar_out", tt_ev_tensor(u64),
                         tt_ev_int(-1), out1),
                   ETR_OK);
  tt_expect_values(out1, TT_VALUES(0), 1);
  // Ordered comparisons refuse complex and uint16; ne takes both.
  etr_tensor_t *z = tt_tensor(ETR_COMPLEX_FLOAT, TT_SIZES(1), TT_VALUES(1, 1));
  tt_expect_status(call2("aten::le.Scalar_out", tt_ev_tensor(z), tt_ev_int(1),
                         out1),
                   ETR_ERR_NOT_SUPPORTED);
  tt_expect_status(call2("aten::ne.Scalar_out", tt_ev_tensor(z), tt_ev_int(1),
                         out1),
                   ETR_OK);
  tt_expect_values(out1, TT_VALUES(1), 1);
}

TT_TEST(binary_edge, bitwise_int64_patterns) {
  const int64_t a[] = {INT64_MIN, INT64_MAX, -1, 0x5555555555555555};
  const int64_t b[] = {-1, INT64_MIN, 0x0f0f0f0f0f0f0f0f, -0x5555555555555556};
  etr_tensor_t *ta = tt_tensor_i64(ETR_LONG, TT_SIZES(4), a);
  etr_tensor_t *tb = tt_tensor_i64(ETR_LONG, TT_SIZES(4), b);
  etr_tensor_t *out = tt_out(ETR_LONG, TT_SIZES(4), 0);
  tt_expect_status(call_tensors("aten::bitwise_and.Tensor_out", ta, tb, out),
                   ETR_OK);
  tt_expect_values_i64(out, (const int64_t[]){INT64_MIN, 0, 0x0f0f0f0f0f0f0f0f,
                                              0x0000000000000000},
                       4);
  tt_expect_status(call_tensors("aten::bitwise_or.Tensor_out", ta, tb, out),
                   ETR_OK);
  tt_expect_values_i64(out, (const int64_t[]){-1, -1, -1, -1}, 4);
  tt_expect_status(call_tensors("aten::bitwise_xor.Tensor_out", ta, tb, out),
                   ETR_OK);
  tt_expect_values_i64(out, (const int64_t[]){INT64_MAX, -1,
                                              ~0x0f0f0f0f0f0f0f0f, -1},
                       4);
  // uint64 with a Scalar: the Scalar wraps (-1 is all ones).
  etr_tensor_t *u64 = tt_tensor_i64(ETR_UINT64, TT_SIZES(2),
                                    (const int64_t[]){INT64_MIN, 5});
  etr_tensor_t *out_u = tt_out(ETR_UINT64, TT_SIZES(2), 0);
  tt_expect_status(call2("aten::bitwise_and.Scalar_out", tt_ev_tensor(u64),
                         tt_ev_int(-1), out_u),
                   ETR_OK);
  tt_expect_values_i64(out_u, (const int64_t[]){INT64_MIN, 5}, 2);
  // Bool & True stays Bool; Bool | 2 is Long (tensor([3, 2])).
  etr_tensor_t *bools = tt_tensor(ETR_BOOL, TT_SIZES(2), TT_VALUES(1, 0));
  etr_tensor_t *out_b = tt_out(ETR_BOOL, TT_SIZES(2), 0);
  tt_expect_status(call2("aten::bitwise_and.Scalar_out", tt_ev_tensor(bools),
                         tt_ev_bool(true), out_b),
                   ETR_OK);
  tt_expect_values(out_b, TT_VALUES(1, 0), 2);
  etr_tensor_t *out_l = tt_out(ETR_LONG, TT_SIZES(2), 0);
  tt_expect_status(call2("aten::bitwise_or.Scalar_out", tt_ev_tensor(bools),
                         tt_ev_int(2), out_l),
                   ETR_OK);
  tt_expect_values(out_l, TT_VALUES(3, 2), 2);
  // ... and that Long result cannot go into a Bool out.
  tt_expect_status(call2("aten::bitwise_or.Scalar_out", tt_ev_tensor(bools),
                         tt_ev_int(2), out_b),
                   ETR_ERR_INVALID_ARGUMENT);
}

TT_TEST(binary_edge, fmod_signs_and_extremes) {
  // fmod follows the dividend: tensor([ 2, -2,  2, -2]).
  etr_tensor_t *a = tt_tensor(ETR_INT, TT_SIZES(4), TT_VALUES(5, -5, 5, -5));
  etr_tensor_t *b = tt_tensor(ETR_INT, TT_SIZES(4), TT_VALUES(3, 3, -3, -3));
  etr_tensor_t *out = tt_out(ETR_INT, TT_SIZES(4), 0);
  tt_expect_status(call_tensors("aten::fmod.Tensor_out", a, b, out), ETR_OK);
  tt_expect_values(out, TT_VALUES(2, -2, 2, -2), 4);
  // INT64_MIN fmod -1 is 0 (no trap); int8 -128 fmod -1 too.
  etr_tensor_t *l = tt_tensor_i64(ETR_LONG, TT_SIZES(2),
                                  (const int64_t[]){INT64_MIN, INT64_MAX});
  etr_tensor_t *out_l = tt_out(ETR_LONG, TT_SIZES(2), 0);
  tt_expect_status(call2("aten::fmod.Scalar_out", tt_ev_tensor(l),
                         tt_ev_int(-1), out_l),
                   ETR_OK);
  tt_expect_values_i64(out_l, (const int64_t[]){0, 0}, 2);
  tt_expect_status(call2("aten::fmod.Scalar_out", tt_ev_tensor(l),
                         tt_ev_int(INT64_MIN), out_l),
                   ETR_OK);
  tt_expect_values_i64(out_l, (const int64_t[]){0, INT64_MAX}, 2);
  // The divisor is converted first: int8 fmod 256 divides by 0.
  etr_tensor_t *i8 = tt_tensor(ETR_CHAR, TT_SIZES(2), TT_VALUES(5, 3));
  etr_tensor_t *out8 = tt_out(ETR_CHAR, TT_SIZES(2), 0);
  tt_expect_status(call2("aten::fmod.Scalar_out", tt_ev_tensor(i8),
                         tt_ev_int(256), out8),
                   ETR_ERR_INVALID_ARGUMENT);
  // A zero divisor that no result element uses is not an error.
  etr_tensor_t *empty = tt_tensor(ETR_LONG, TT_SIZES(0, 2), NULL);
  etr_tensor_t *zeros = tt_tensor(ETR_LONG, TT_SIZES(2), TT_VALUES(0, 0));
  etr_tensor_t *out_e = tt_out(ETR_LONG, TT_SIZES(2), 0);
  tt_expect_status(call_tensors("aten::fmod.Tensor_out", empty, zeros, out_e),
                   ETR_OK);
  tt_expect_shape(out_e, TT_SIZES(0, 2));
  // -0.0 keeps its sign; x fmod inf is x.
  etr_tensor_t *f = tt_tensor(ETR_DOUBLE, TT_SIZES(2), TT_VALUES(-0.0, -7.5));
  etr_tensor_t *out_f = tt_out(ETR_DOUBLE, TT_SIZES(2), 0);
  tt_expect_status(call2("aten::fmod.Scalar_out", tt_ev_tensor(f),
                         tt_ev_double(INFINITY), out_f),
                   ETR_OK);
  cr_expect(signbit(tt_get(out_f, 0)), "fmod(-0.0, inf) is -0.0");
  cr_expect_eq(tt_get(out_f, 1), -7.5);
}

TT_TEST(binary_edge, pow_integer_wraps_and_negative_exponents) {
  // tensor([2,-2,1,-1,0,3]) ** tensor([-1,-1,-3,-3,-1,40]) in int64:
  // [0, 0, 1, -1, 0, -6289078614652622815].
  etr_tensor_t *base = tt_tensor(ETR_LONG, TT_SIZES(6),
                                 TT_VALUES(2, -2, 1, -1, 0, 3));
  etr_tensor_t *exponent = tt_tensor(ETR_LONG, TT_SIZES(6),
                                     TT_VALUES(-1, -1, -3, -3, -1, 40));
  etr_tensor_t *out = tt_out(ETR_LONG, TT_SIZES(6), 0);
  tt_expect_status(call_tensors("aten::pow.Tensor_Tensor_out", base, exponent,
                                out),
                   ETR_OK);
  tt_expect_values_i64(out, (const int64_t[]){0, 0, 1, -1, 0,
                                              -6289078614652622815LL},
                       6);
  // (-1) ** INT64_MIN is 1 (even); 2 ** INT64_MAX wraps to 0.
  etr_tensor_t *b2 = tt_tensor(ETR_LONG, TT_SIZES(2), TT_VALUES(-1, 2));
  etr_tensor_t *e2 = tt_tensor_i64(ETR_LONG, TT_SIZES(2),
                                   (const int64_t[]){INT64_MIN, INT64_MAX});
  etr_tensor_t *out2 = tt_out(ETR_LONG, TT_SIZES(2), 0);
  tt_expect_status(call_tensors("aten::pow.Tensor_Tensor_out", b2, e2, out2),
                   ETR_OK);
  tt_expect_values_i64(out2, (const int64_t[]){1, 0}, 2);
  // 1000 ** int8 computes with -24: tensor([64, 0], dtype=torch.int8).
  etr_tensor_t *e8 = tt_tensor(ETR_CHAR, TT_SIZES(2), TT_VALUES(2, 3));
  etr_tensor_t *out8 = tt_out(ETR_CHAR, TT_SIZES(2), 0);
  tt_expect_status(call2("aten::pow.Scalar_out", tt_ev_int(1000),
                         tt_ev_tensor(e8), out8),
                   ETR_OK);
  tt_expect_values(out8, TT_VALUES(64, 0), 2);
}

TT_TEST(binary_edge, pow_scalar_base_one_fills) {
  // A base of 1 fills whatever the dtypes: out Bool, exponent uint16 or
  // Float with a Long out (PyTorch performs no cast check here).
  etr_tensor_t *e =
      tt_tensor(ETR_FLOAT, TT_SIZES(2, 2), TT_VALUES(NAN, 2, 3, 4));
  etr_tensor_t *out_b = tt_out(ETR_BOOL, TT_SIZES(1), 8);
  tt_expect_status(call2("aten::pow.Scalar_out", tt_ev_int(1),
                         tt_ev_tensor(e), out_b),
                   ETR_OK);
  tt_expect_shape(out_b, TT_SIZES(2, 2));
  tt_expect_values(out_b, TT_VALUES(1, 1, 1, 1), 4);
  etr_tensor_t *out_l = tt_out(ETR_LONG, TT_SIZES(4), 0);
  tt_expect_status(call2("aten::pow.Scalar_out", tt_ev_double(1.0),
                         tt_ev_tensor(e), out_l),
                   ETR_OK);
  tt_expect_values(out_l, TT_VALUES(1, 1, 1, 1), 4);
  // 1.0 ** uint16 fills; 2 ** uint16 is "pow" not implemented for UInt16.
  etr_tensor_t *u16 = tt_tensor(ETR_UINT16, TT_SIZES(2), TT_VALUES(1, 2));
  etr_tensor_t *out_u = tt_out(ETR_UINT16, TT_SIZES(2), 0);
  tt_expect_status(call2("aten::pow.Scalar_out", tt_ev_double(1.0),
                         tt_ev_tensor(u16), out_u),
                   ETR_OK);
  tt_expect_values(out_u, TT_VALUES(1, 1), 2);
  tt_expect_status(call2("aten::pow.Scalar_out", tt_ev_int(2),
                         tt_ev_tensor(u16), out_u),
                   ETR_ERR_NOT_SUPPORTED);
  // True is not 1 for Scalar::equal: True ** Bool is not implemented.
  etr_tensor_t *bools = tt_tensor(ETR_BOOL, TT_SIZES(2), TT_VALUES(1, 0));
  etr_tensor_t *out_bb = tt_out(ETR_BOOL, TT_SIZES(2), 0);
  tt_expect_status(call2("aten::pow.Scalar_out", tt_ev_bool(true),
                         tt_ev_tensor(bools), out_bb),
                   ETR_ERR_NOT_SUPPORTED);
  // A fill still needs room for the exponent's shape.
  etr_tensor_t *small = tt_out(ETR_FLOAT, TT_SIZES(2), 0);
  tt_expect_status(call2("aten::pow.Scalar_out", tt_ev_int(1),
                         tt_ev_tensor(e), small),
                   ETR_ERR_INVALID_ARGUMENT);
}

TT_TEST(binary_edge, maximum_minimum_nan_and_signed_zero) {
  etr_tensor_t *a = tt_tensor(ETR_FLOAT, TT_SIZES(5),
                              TT_VALUES(-0.0, 0.0, NAN, 1, -INFINITY));
  etr_tensor_t *b = tt_tensor(ETR_FLOAT, TT_SIZES(5),
                              TT_VALUES(0.0, -0.0, 1, NAN, INFINITY));
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(5), 0);
  tt_expect_status(call_tensors("aten::maximum.out", a, b, out), ETR_OK);
  tt_expect_values(out, TT_VALUES(0, 0, NAN, NAN, INFINITY), 5);
  // std::max keeps `a` for equal operands: maximum(-0.0, 0.0) is -0.0.
  cr_expect(signbit(tt_get(out, 0)) && !signbit(tt_get(out, 1)));
  tt_expect_status(call_tensors("aten::minimum.out", a, b, out), ETR_OK);
  tt_expect_values(out, TT_VALUES(0, 0, NAN, NAN, -INFINITY), 5);
  cr_expect(signbit(tt_get(out, 0)) && !signbit(tt_get(out, 1)));
  // Bool: maximum is or, minimum is and.
  etr_tensor_t *p = tt_tensor(ETR_BOOL, TT_SIZES(2), TT_VALUES(1, 0));
  etr_tensor_t *q = tt_tensor(ETR_BOOL, TT_SIZES(2), TT_VALUES(0, 0));
  etr_tensor_t *out_b = tt_out(ETR_BOOL, TT_SIZES(2), 0);
  tt_expect_status(call_tensors("aten::maximum.out", p, q, out_b), ETR_OK);
  tt_expect_values(out_b, TT_VALUES(1, 0), 2);
  tt_expect_status(call_tensors("aten::minimum.out", p, q, out_b), ETR_OK);
  tt_expect_values(out_b, TT_VALUES(0, 0), 2);
}

TT_TEST(binary_edge, logical_truth_after_promotion) {
  // A zero-dim Double 1e-50 next to a Float tensor becomes 0.0f: False.
  etr_tensor_t *f = tt_tensor(ETR_FLOAT, TT_SIZES(2), TT_VALUES(1, NAN));
  etr_tensor_t *tiny = tt_scalar_tensor(ETR_DOUBLE, 1e-50);
  etr_tensor_t *out = tt_out(ETR_BOOL, TT_SIZES(2), 0);
  tt_expect_status(call_tensors("aten::logical_and.out", f, tiny, out),
                   ETR_OK);
  tt_expect_values(out, TT_VALUES(0, 0), 2);
  // NaN is true; an imaginary-only complex value is true.
  etr_tensor_t *z = tt_tensor(ETR_COMPLEX_DOUBLE, TT_SIZES(2),
                              TT_VALUES(0, 2, 0, 0));
  tt_expect_status(call_tensors("aten::logical_xor.out", f, z, out), ETR_OK);
  tt_expect_values(out, TT_VALUES(0, 1), 2);
  // A zero-dim Long 256 next to Int8 wraps to 0.
  etr_tensor_t *i8 = tt_tensor(ETR_CHAR, TT_SIZES(2), TT_VALUES(1, 0));
  etr_tensor_t *l = tt_scalar_tensor(ETR_LONG, 256);
  etr_tensor_t *out_f = tt_out(ETR_FLOAT, TT_SIZES(2), 0);
  tt_expect_status(call_tensors("aten::logical_or.out", i8, l, out_f), ETR_OK);
  tt_expect_values(out_f, TT_VALUES(1, 0), 2);
}

static etr_error_t div_mode(etr_tensor_t *self, etr_evalue_t *other,
                            const char *mode, etr_tensor_t *out) {
  return TT_CALL("aten::div.Scalar_mode_out", tt_ev_tensor(self), other,
                 mode != NULL ? tt_ev_string(mode) : tt_ev_none(),
                 tt_ev_tensor(out), tt_ev_tensor(out));
}

TT_TEST(binary_edge, div_scalar_mode_op_math) {
  // Half [1, 3] // 0.1: tensor([ 9., 29.]); trunc: tensor([10., 30.]).
  static const etr_scalar_type_t kTypes[] = {ETR_HALF, ETR_BFLOAT16,
                                             ETR_FLOAT};
  for (size_t k = 0; k < 3; ++k) {
    etr_tensor_t *x = tt_tensor(kTypes[k], TT_SIZES(2), TT_VALUES(1, 3));
    etr_tensor_t *out = tt_out(kTypes[k], TT_SIZES(2), 0);
    tt_expect_status(div_mode(x, tt_ev_double(0.1), "floor", out), ETR_OK);
    tt_expect_values(out, TT_VALUES(9, 29), 2);
    if (kTypes[k] != ETR_BFLOAT16) {
      tt_expect_status(div_mode(x, tt_ev_double(0.1), "trunc", out), ETR_OK);
      tt_expect_values(out, TT_VALUES(10, 30), 2);
    }
  }
  // Double: 1.0 // 0.1 is 9 (as Python), trunc(1.0 / 0.1) is 10.
  etr_tensor_t *d = tt_tensor(ETR_DOUBLE, TT_SIZES(1), TT_VALUES(1));
  etr_tensor_t *out_d = tt_out(ETR_DOUBLE, TT_SIZES(1), 0);
  tt_expect_status(div_mode(d, tt_ev_double(0.1), "floor", out_d), ETR_OK);
  tt_expect_values(out_d, TT_VALUES(9), 1);
  tt_expect_status(div_mode(d, tt_ev_double(0.1), "trunc", out_d), ETR_OK);
  tt_expect_values(out_d, TT_VALUES(10), 1);
}

TT_TEST(binary_edge, div_scalar_mode_integers) {
  // INT64_MIN // -1 wraps (tensor([-9223372036854775808])).
  etr_tensor_t *l = tt_tensor_i64(ETR_LONG, TT_SIZES(2),
                                  (const int64_t[]){INT64_MIN, -7});
  etr_tensor_t *out = tt_out(ETR_LONG, TT_SIZES(2), 0);
  tt_expect_status(div_mode(l, tt_ev_int(-1), "floor", out), ETR_OK);
  tt_expect_values_i64(out, (const int64_t[]){INT64_MIN, 7}, 2);
  tt_expect_status(div_mode(l, tt_ev_int(2), "floor", out), ETR_OK);
  tt_expect_values_i64(out, (const int64_t[]){INT64_MIN / 2, -4}, 2);
  tt_expect_status(div_mode(l, tt_ev_int(2), "trunc", out), ETR_OK);
  tt_expect_values_i64(out, (const int64_t[]){INT64_MIN / 2, -3}, 2);
  // uint8 // -1 divides by 255; int8 // 256 divides by 0.
  etr_tensor_t *u8 = tt_tensor(ETR_BYTE, TT_SIZES(1), TT_VALUES(5));
  etr_tensor_t *out_u8 = tt_out(ETR_BYTE, TT_SIZES(1), 0);
  tt_expect_status(div_mode(u8, tt_ev_int(-1), "floor", out_u8), ETR_OK);
  tt_expect_values(out_u8, TT_VALUES(0), 1);
  etr_tensor_t *i8 = tt_tensor(ETR_CHAR, TT_SIZES(1), TT_VALUES(5));
  etr_tensor_t *out_i8 = tt_out(ETR_CHAR, TT_SIZES(1), 0);
  tt_expect_status(div_mode(i8, tt_ev_int(256), "trunc", out_i8),
                   ETR_ERR_INVALID_ARGUMENT);
  // ... unless self is empty.
  etr_tensor_t *empty = tt_tensor(ETR_CHAR, TT_SIZES(0), NULL);
  tt_expect_status(div_mode(empty, tt_ev_int(0), "trunc", out_i8), ETR_OK);
  tt_expect_shape(out_i8, TT_SIZES(0));
  // The out must have exactly the result dtype.
  etr_tensor_t *out_f = tt_out(ETR_FLOAT, TT_SIZES(1), 0);
  tt_expect_status(div_mode(i8, tt_ev_int(2), "floor", out_f),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(div_mode(i8, tt_ev_int(2), NULL, out_f), ETR_OK);
  tt_expect_values(out_f, TT_VALUES(2.5), 1);
  tt_expect_status(div_mode(i8, tt_ev_int(2), "round", out_f),
                   ETR_ERR_INVALID_ARGUMENT);
}

static etr_error_t masked_scatter(etr_tensor_t *self, etr_tensor_t *mask,
                                  etr_tensor_t *source, etr_tensor_t *out) {
  return TT_CALL("aten::masked_scatter.out", tt_ev_tensor(self),
                 tt_ev_tensor(mask), tt_ev_tensor(source), tt_ev_tensor(out),
                 tt_ev_tensor(out));
}

TT_TEST(binary_edge, masked_scatter_source_order_and_failure) {
  // A transposed source is read in its logical order:
  // masked_scatter(arange(6).reshape(2, 3), [T, F, T],
  //                arange(10).reshape(5, 2).t()) is [[0, 1, 2], [4, 4, 6]].
  etr_tensor_t *self = tt_tensor(ETR_FLOAT, TT_SIZES(2, 3),
                                 TT_VALUES(0, 1, 2, 3, 4, 5));
  etr_tensor_t *mask = tt_tensor(ETR_BOOL, TT_SIZES(3), TT_VALUES(1, 0, 1));
  etr_tensor_t *source = tt_noncontiguous(tt_tensor(
      ETR_FLOAT, TT_SIZES(2, 5), TT_VALUES(0, 2, 4, 6, 8, 1, 3, 5, 7, 9)));
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(6), 0);
  tt_expect_status(masked_scatter(self, mask, source, out), ETR_OK);
  tt_expect_shape(out, TT_SIZES(2, 3));
  tt_expect_values(out, TT_VALUES(0, 1, 2, 4, 4, 6), 6);
  // Too short a source fails before anything is written.
  etr_tensor_t *all = tt_tensor(ETR_BOOL, TT_SIZES(3), TT_VALUES(1, 1, 1));
  etr_tensor_t *five = tt_tensor(ETR_FLOAT, TT_SIZES(5), NULL);
  etr_tensor_t *untouched = tt_out(ETR_FLOAT, TT_SIZES(2, 3), 0);
  tt_expect_status(masked_scatter(self, all, five, untouched),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_values(untouched, TT_VALUES(0, 0, 0, 0, 0, 0), 6);
  // Out of another dtype, a uint8 mask: InvalidArgument.
  etr_tensor_t *out_d = tt_out(ETR_DOUBLE, TT_SIZES(2, 3), 0);
  tt_expect_status(masked_scatter(self, mask, source, out_d),
                   ETR_ERR_INVALID_ARGUMENT);
  etr_tensor_t *mask_u8 = tt_tensor(ETR_BYTE, TT_SIZES(3), TT_VALUES(1, 0, 1));
  tt_expect_status(masked_scatter(self, mask_u8, source, out),
                   ETR_ERR_INVALID_ARGUMENT);
}

TT_TEST(binary_edge, argument_errors) {
  etr_tensor_t *a = tt_tensor(ETR_FLOAT, TT_SIZES(2), TT_VALUES(1, 2));
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(2), 0);
  static const char *const kTensorOps[] = {
      "aten::atan2.out",          "aten::bitwise_and.Tensor_out",
      "aten::bitwise_or.Tensor_out", "aten::bitwise_xor.Tensor_out",
      "aten::ge.Tensor_out",      "aten::le.Tensor_out",
      "aten::ne.Tensor_out",      "aten::fmod.Tensor_out",
      "aten::logical_and.out",    "aten::logical_or.out",
      "aten::logical_xor.out",    "aten::maximum.out",
      "aten::minimum.out",        "aten::pow.Tensor_Tensor_out"};
  for (size_t k = 0; k < sizeof(kTensorOps) / sizeof(kTensorOps[0]); ++k) {
    cr_log_info("%s", kTensorOps[k]);
    // Wrong argument count; a Scalar where a Tensor belongs; out too
    // small for the broadcast shape.
    tt_expect_status(TT_CALL(kTensorOps[k], tt_ev_tensor(a), tt_ev_tensor(a),
                             tt_ev_tensor(out)),
                     ETR_ERR_INVALID_PROGRAM);
    tt_expect_status(call2(kTensorOps[k], tt_ev_tensor(a), tt_ev_int(1), out),
                     ETR_ERR_INVALID_TYPE);
    etr_tensor_t *column = tt_tensor(ETR_FLOAT, TT_SIZES(3, 1), NULL);
    etr_tensor_t *small = tt_out(ETR_BOOL, TT_SIZES(2), 0);
    etr_error_t status = call_tensors(kTensorOps[k], a, column, small);
    // Bitwise ops refuse Float first; every other op runs out of room.
    cr_expect(status == ETR_ERR_INVALID_ARGUMENT ||
                  (status == ETR_ERR_NOT_SUPPORTED &&
                   kTensorOps[k][6] == 'b'),
              "%s: %s", kTensorOps[k], etr_error_name(status));
  }
  static const char *const kScalarOps[] = {
      "aten::bitwise_and.Scalar_out", "aten::bitwise_or.Scalar_out",
      "aten::bitwise_xor.Scalar_out", "aten::ge.Scalar_out",
      "aten::le.Scalar_out",          "aten::ne.Scalar_out",
      "aten::fmod.Scalar_out"};
  for (size_t k = 0; k < sizeof(kScalarOps) / sizeof(kScalarOps[0]); ++k) {
    tt_expect_status(call2(kScalarOps[k], tt_ev_tensor(a), tt_ev_tensor(a),
                           out),
                     ETR_ERR_INVALID_TYPE);
  }
  tt_expect_status(call2("aten::pow.Scalar_out", tt_ev_tensor(a),
                         tt_ev_tensor(a), out),
                   ETR_ERR_INVALID_TYPE);
  tt_expect_status(TT_CALL("aten::div.Scalar_mode_out", tt_ev_tensor(a),
                           tt_ev_int(2), tt_ev_int(3), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   ETR_ERR_INVALID_TYPE);
  tt_expect_status(TT_CALL("aten::masked_scatter.out", tt_ev_tensor(a),
                           tt_ev_tensor(a), tt_ev_tensor(a),
                           tt_ev_tensor(out)),
                   ETR_ERR_INVALID_PROGRAM);
}
