// SPDX-License-Identifier: Apache-2.0
//
// aten::add.out / aten::add.Scalar_out: values, every dtype, promotion,
// broadcasting, strided and empty inputs, out resizing, and the exact
// error code of each rejected call. Expected values are hand-computed
// (and agree with PyTorch 2.13).
#include "ops_reference/test/test_util.h"

#define ADD(a, b, alpha, out) \
  TT_CALL("aten::add.out", tt_ev_tensor(a), tt_ev_tensor(b), alpha,     \
          tt_ev_tensor(out), tt_ev_tensor(out))

TT_TEST(add, float_with_alpha) {
  etr_tensor_t *a = tt_tensor(ETR_FLOAT, TT_SIZES(2, 2), TT_VALUES(1, 2, 3, 4));
  etr_tensor_t *b = tt_tensor(ETR_FLOAT, TT_SIZES(2, 2),
                              TT_VALUES(0.5, -1, 2, 0.25));
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(2, 2), 0);
  tt_expect_status(ADD(a, b, tt_ev_double(2.0), out), ETR_OK);
  tt_expect_values(out, TT_VALUES(2, 0, 7, 4.5), 4);
}

TT_TEST(add, every_dtype) {
  static const etr_scalar_type_t kTypes[] = {
      ETR_BYTE, ETR_CHAR, ETR_SHORT, ETR_INT, ETR_LONG,
      ETR_HALF, ETR_BFLOAT16, ETR_FLOAT, ETR_DOUBLE};
  for (size_t i = 0; i < sizeof(kTypes) / sizeof(kTypes[0]); ++i) {
    etr_tensor_t *a = tt_tensor(kTypes[i], TT_SIZES(3), TT_VALUES(1, 2, 100));
    etr_tensor_t *b = tt_tensor(kTypes[i], TT_SIZES(3), TT_VALUES(3, 4, 27));
    etr_tensor_t *out = tt_out(kTypes[i], TT_SIZES(3), 0);
    tt_expect_status(ADD(a, b, tt_ev_int(1), out), ETR_OK);
    tt_expect_values(out, TT_VALUES(4, 6, 127), 3);
  }
}

TT_TEST(add, bool_is_logical_or) {
  etr_tensor_t *a = tt_tensor(ETR_BOOL, TT_SIZES(4), TT_VALUES(0, 0, 1, 1));
  etr_tensor_t *b = tt_tensor(ETR_BOOL, TT_SIZES(4), TT_VALUES(0, 1, 0, 1));
  etr_tensor_t *out = tt_out(ETR_BOOL, TT_SIZES(4), 0);
  tt_expect_status(ADD(a, b, tt_ev_bool(true), out), ETR_OK);
  tt_expect_values(out, TT_VALUES(0, 1, 1, 1), 4);
}

TT_TEST(add, complex) {
  etr_tensor_t *a = tt_tensor(ETR_COMPLEX_FLOAT, TT_SIZES(2),
                              TT_VALUES(1, 2, -3, 0.5));
  etr_tensor_t *b = tt_tensor(ETR_COMPLEX_FLOAT, TT_SIZES(2),
                              TT_VALUES(0.5, 1, 1, 1));
  etr_tensor_t *out = tt_out(ETR_COMPLEX_FLOAT, TT_SIZES(2), 0);
  tt_expect_status(ADD(a, b, tt_ev_double(2.0), out), ETR_OK);
  tt_expect_values(out, TT_VALUES(2, 4, -1, 2.5), 4);

  etr_tensor_t *c = tt_tensor(ETR_COMPLEX_DOUBLE, TT_SIZES(1), TT_VALUES(1, 1));
  etr_tensor_t *d = tt_tensor(ETR_DOUBLE, TT_SIZES(1), TT_VALUES(2));
  etr_tensor_t *out2 = tt_out(ETR_COMPLEX_DOUBLE, TT_SIZES(1), 0);
  tt_expect_status(ADD(c, d, tt_ev_int(1), out2), ETR_OK);
  tt_expect_values(out2, TT_VALUES(3, 1), 2);
}

TT_TEST(add, integers_wrap) {
  etr_tensor_t *a = tt_tensor(ETR_CHAR, TT_SIZES(2), TT_VALUES(127, -128));
  etr_tensor_t *b = tt_tensor(ETR_CHAR, TT_SIZES(2), TT_VALUES(1, -1));
  etr_tensor_t *out = tt_out(ETR_CHAR, TT_SIZES(2), 0);
  tt_expect_status(ADD(a, b, tt_ev_int(1), out), ETR_OK);
  tt_expect_values(out, TT_VALUES(-128, 127), 2);

  etr_tensor_t *big = tt_tensor_i64(ETR_LONG, TT_SIZES(1),
                                    (const int64_t[]){INT64_MAX});
  etr_tensor_t *one = tt_tensor(ETR_LONG, TT_SIZES(1), TT_VALUES(1));
  etr_tensor_t *out64 = tt_out(ETR_LONG, TT_SIZES(1), 0);
  tt_expect_status(ADD(big, one, tt_ev_int(1), out64), ETR_OK);
  tt_expect_values_i64(out64, (const int64_t[]){INT64_MIN}, 1);
}

TT_TEST(add, broadcasting) {
  etr_tensor_t *a = tt_tensor(ETR_INT, TT_SIZES(2, 1, 3),
                              TT_VALUES(1, 2, 3, 4, 5, 6));
  etr_tensor_t *b = tt_tensor(ETR_INT, TT_SIZES(2, 1), TT_VALUES(10, 20));
  etr_tensor_t *out = tt_out(ETR_INT, TT_SIZES(2, 2, 3), 0);
  tt_expect_status(ADD(a, b, tt_ev_int(1), out), ETR_OK);
  tt_expect_shape(out, TT_SIZES(2, 2, 3));
  tt_expect_values(out,
                   TT_VALUES(11, 12, 13, 21, 22, 23, 14, 15, 16, 24, 25, 26),
                   12);
}

TT_TEST(add, promotion) {
  // int32 tensor + float Scalar -> Float.
  etr_tensor_t *a = tt_tensor(ETR_INT, TT_SIZES(2), TT_VALUES(1, -2));
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(2), 0);
  tt_expect_status(TT_CALL("aten::add.Scalar_out", tt_ev_tensor(a),
                           tt_ev_double(0.5), tt_ev_int(1), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   ETR_OK);
  tt_expect_values(out, TT_VALUES(1.5, -1.5), 2);

  // int8 tensor + int Scalar stays int8 (and wraps).
  etr_tensor_t *b = tt_tensor(ETR_CHAR, TT_SIZES(1), TT_VALUES(100));
  etr_tensor_t *out8 = tt_out(ETR_CHAR, TT_SIZES(1), 0);
  tt_expect_status(TT_CALL("aten::add.Scalar_out", tt_ev_tensor(b),
                           tt_ev_int(1000), tt_ev_int(1), tt_ev_tensor(out8),
                           tt_ev_tensor(out8)),
                   ETR_OK);
  tt_expect_values(out8, TT_VALUES(76), 1);  // 1100 mod 256

  // int32[2] + zero-dim double -> Double; float16[2] + zero-dim double ->
  // Half.
  etr_tensor_t *zero_dim = tt_scalar_tensor(ETR_DOUBLE, 0.25);
  etr_tensor_t *out_double = tt_out(ETR_DOUBLE, TT_SIZES(2), 0);
  tt_expect_status(ADD(a, zero_dim, tt_ev_int(1), out_double), ETR_OK);
  tt_expect_values(out_double, TT_VALUES(1.25, -1.75), 2);
  etr_tensor_t *into_int = tt_out(ETR_INT, TT_SIZES(2), 0);
  tt_expect_status(ADD(a, zero_dim, tt_ev_int(1), into_int),
                   ETR_ERR_INVALID_ARGUMENT);

  // uint8 + int8 -> int16; the out may be wider.
  etr_tensor_t *u = tt_tensor(ETR_BYTE, TT_SIZES(1), TT_VALUES(200));
  etr_tensor_t *s = tt_tensor(ETR_CHAR, TT_SIZES(1), TT_VALUES(-100));
  etr_tensor_t *out16 = tt_out(ETR_LONG, TT_SIZES(1), 0);
  tt_expect_status(ADD(u, s, tt_ev_int(2), out16), ETR_OK);
  tt_expect_values(out16, TT_VALUES(0), 1);
}

TT_TEST(add, half_rounds_single_element_other_first) {
  // ATen's add rounds a zero-dim Float `other` to Half before adding:
  // Half(1.4998779296875) = 1.5, 1024 + 1.5 = 1025.5 ties to even 1026.
  // (Adding the float value would give 1025.4998779 -> 1025.)
  etr_tensor_t *a = tt_tensor(ETR_HALF, TT_SIZES(1), TT_VALUES(1024));
  etr_tensor_t *b = tt_scalar_tensor(ETR_FLOAT, 1.4998779296875);
  etr_tensor_t *out = tt_out(ETR_HALF, TT_SIZES(1), 0);
  tt_expect_status(ADD(a, b, tt_ev_int(1), out), ETR_OK);
  cr_expect_eq(tt_get(out, 0), 1026.0);  // exact: the Half tolerance is 1
}

TT_TEST(add, noncontiguous_and_channels_last) {
  etr_tensor_t *a = tt_tensor(ETR_FLOAT, TT_SIZES(2, 3),
                              TT_VALUES(1, 2, 3, 4, 5, 6));
  etr_tensor_t *b = tt_tensor(ETR_FLOAT, TT_SIZES(2, 3),
                              TT_VALUES(10, 20, 30, 40, 50, 60));
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(2, 3), 0);
  tt_expect_status(ADD(tt_noncontiguous(a), tt_noncontiguous(b), tt_ev_int(1),
                       out),
                   ETR_OK);
  tt_expect_values(out, TT_VALUES(11, 22, 33, 44, 55, 66), 6);

  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(1, 2, 1, 2),
                              TT_VALUES(1, 2, 3, 4));
  static const uint8_t kChannelsLast[4] = {0, 2, 3, 1};
  etr_tensor_t *cl_out = tt_out_dim_order(ETR_FLOAT, TT_SIZES(1, 2, 1, 2),
                                          kChannelsLast);
  tt_expect_status(ADD(tt_channels_last(x), x, tt_ev_int(1), cl_out), ETR_OK);
  tt_expect_values(cl_out, TT_VALUES(2, 4, 6, 8), 4);
  // Channels-last memory holds the values channel-innermost.
  const float *raw = cl_out->data;
  cr_expect(raw[0] == 2 && raw[1] == 6 && raw[2] == 4 && raw[3] == 8);
}

TT_TEST(add, empty_and_zero_dim) {
  etr_tensor_t *a = tt_tensor(ETR_FLOAT, TT_SIZES(0, 3), NULL);
  etr_tensor_t *b = tt_tensor(ETR_FLOAT, TT_SIZES(3), TT_VALUES(1, 2, 3));
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(0, 3), 0);
  tt_expect_status(ADD(a, b, tt_ev_int(1), out), ETR_OK);
  tt_expect_shape(out, TT_SIZES(0, 3));

  etr_tensor_t *x = tt_scalar_tensor(ETR_DOUBLE, 1.5);
  etr_tensor_t *y = tt_scalar_tensor(ETR_DOUBLE, 2.0);
  etr_tensor_t *out0 = tt_out(ETR_DOUBLE, 0, NULL, 0);
  tt_expect_status(ADD(x, y, tt_ev_int(3), out0), ETR_OK);
  cr_expect_eq(out0->dim, 0);
  tt_expect_values(out0, TT_VALUES(7.5), 1);
}

TT_TEST(add, resizes_out) {
  etr_tensor_t *a = tt_tensor(ETR_FLOAT, TT_SIZES(2, 2), TT_VALUES(1, 2, 3, 4));
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(3, 3), 0);  // upper bound
  tt_expect_status(ADD(a, a, tt_ev_int(1), out), ETR_OK);
  tt_expect_shape(out, TT_SIZES(2, 2));
  tt_expect_values(out, TT_VALUES(2, 4, 6, 8), 4);

  etr_tensor_t *small = tt_out(ETR_FLOAT, TT_SIZES(3), 0);
  tt_expect_status(ADD(a, a, tt_ev_int(1), small), ETR_ERR_INVALID_ARGUMENT);
}

TT_TEST(add, rejects) {
  etr_tensor_t *f = tt_tensor(ETR_FLOAT, TT_SIZES(2), TT_VALUES(1, 2));
  etr_tensor_t *i = tt_tensor(ETR_INT, TT_SIZES(2), TT_VALUES(1, 2));
  etr_tensor_t *out_int = tt_out(ETR_INT, TT_SIZES(2), 0);
  etr_tensor_t *out_bool = tt_out(ETR_BOOL, TT_SIZES(2), 0);
  etr_tensor_t *out_f = tt_out(ETR_FLOAT, TT_SIZES(2), 0);
  // A Float result cannot go into an Int out; an Int result not into Bool.
  tt_expect_status(ADD(f, i, tt_ev_int(1), out_int), ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(ADD(i, i, tt_ev_int(1), out_bool),
                   ETR_ERR_INVALID_ARGUMENT);
  // alpha rules.
  tt_expect_status(ADD(i, i, tt_ev_double(0.5), out_int),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(ADD(f, f, tt_ev_bool(true), out_f),
                   ETR_ERR_INVALID_ARGUMENT);
  // Shapes that do not broadcast.
  etr_tensor_t *three = tt_tensor(ETR_FLOAT, TT_SIZES(3), TT_VALUES(1, 2, 3));
  tt_expect_status(ADD(f, three, tt_ev_int(1), out_f),
                   ETR_ERR_INVALID_ARGUMENT);
  // Unsupported dtype, wrong tag, wrong arity.
  etr_tensor_t *q = tt_tensor(ETR_QINT8, TT_SIZES(2), NULL);
  tt_expect_status(ADD(q, q, tt_ev_int(1), out_f), ETR_ERR_NOT_SUPPORTED);
  tt_expect_status(TT_CALL("aten::add.out", tt_ev_tensor(f), tt_ev_int(1),
                           tt_ev_int(1), tt_ev_tensor(out_f),
                           tt_ev_tensor(out_f)),
                   ETR_ERR_INVALID_TYPE);
  tt_expect_status(TT_CALL("aten::add.out", tt_ev_tensor(f), tt_ev_tensor(f),
                           tt_ev_int(1), tt_ev_tensor(out_f)),
                   ETR_ERR_INVALID_PROGRAM);
}
