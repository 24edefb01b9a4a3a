// SPDX-License-Identifier: Apache-2.0
//
// The quantized_decomposed kernels on hand-computed cases the golden files
// (datasets/golden_quantized/) cannot hold or state less plainly: ties at
// .5 before and after the zero point, saturation, NaN and infinities,
// Double and BFloat16 inputs, Bits16, extreme scales and zero points,
// per-channel axes other than 0, non-contiguous and channels-last tensors,
// ExecuTorch's choose_qparams arithmetic worked by hand, hostile int64
// arguments, and the exact error code of every refusal. Every call also
// runs as a dry run first (tt_call), which must agree.
#include <math.h>
#include <stdint.h>

#include "ops_reference/test/test_util.h"

#define QPT "quantized_decomposed::quantize_per_tensor.out"
#define QPT_T "quantized_decomposed::quantize_per_tensor.Tensor_out"
#define DQPT "quantized_decomposed::dequantize_per_tensor.out"
#define DQPT_T "quantized_decomposed::dequantize_per_tensor.Tensor_out"
#define QPC "quantized_decomposed::quantize_per_channel.out"
#define DQPC "quantized_decomposed::dequantize_per_channel.out"
#define CQP "quantized_decomposed::choose_qparams.Tensor_out"
#define CQPT "quantized_decomposed::choose_qparams_per_token_asymmetric.out"
#define QTOK "quantized_decomposed::quantize_per_token.out"
#define DQTOK "quantized_decomposed::dequantize_per_token.out"

static etr_error_t quantize(etr_tensor_t *x, double scale, int64_t zp,
                            int64_t qmin, int64_t qmax,
                            etr_scalar_type_t dtype, etr_tensor_t *out) {
  return TT_CALL(QPT, tt_ev_tensor(x), tt_ev_double(scale), tt_ev_int(zp),
                 tt_ev_int(qmin), tt_ev_int(qmax), tt_ev_int(dtype),
                 tt_ev_tensor(out), tt_ev_tensor(out));
}

static etr_error_t dequantize(etr_tensor_t *q, double scale, int64_t zp,
                              int64_t qmin, int64_t qmax,
                              etr_scalar_type_t dtype, etr_evalue_t *out_dtype,
                              etr_tensor_t *out) {
  return TT_CALL(DQPT, tt_ev_tensor(q), tt_ev_double(scale), tt_ev_int(zp),
                 tt_ev_int(qmin), tt_ev_int(qmax), tt_ev_int(dtype), out_dtype,
                 tt_ev_tensor(out), tt_ev_tensor(out));
}

TT_TEST(quantize_per_tensor, ties_round_half_to_even_before_the_zero_point) {
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(8),
                              TT_VALUES(0.5, 1.5, 2.5, 3.5, -0.5, -1.5, -2.5,
                                        -3.5));
  etr_tensor_t *out = tt_out(ETR_CHAR, TT_SIZES(8), 0);
  tt_expect_status(quantize(x, 1.0, 0, -128, 127, ETR_CHAR, out), ETR_OK);
  tt_expect_values(out, TT_VALUES(0, 2, 2, 4, 0, -2, -2, -4), 8);
  // Rounded first, then shifted: 2.5 -> 2 -> 3 (not round(3.5) = 4).
  tt_expect_status(quantize(x, 1.0, 1, -128, 127, ETR_CHAR, out), ETR_OK);
  tt_expect_values(out, TT_VALUES(1, 3, 3, 5, 1, -1, -1, -3), 8);
  // A power-of-two scale keeps the products exact: x / 0.25 = 0.5, 1.5,
  // 2.5, which tie to 0, 2, 2 before the zero point 10 is added.
  etr_tensor_t *y = tt_tensor(ETR_FLOAT, TT_SIZES(3),
                              TT_VALUES(0.125, 0.375, 0.625));
  etr_tensor_t *y_out = tt_out(ETR_BYTE, TT_SIZES(3), 0);
  tt_expect_status(quantize(y, 0.25, 10, 0, 255, ETR_BYTE, y_out), ETR_OK);
  tt_expect_values(y_out, TT_VALUES(10, 12, 12), 3);
}

TT_TEST(quantize_per_tensor, saturation_nan_and_infinities) {
  etr_tensor_t *x = tt_tensor(
      ETR_FLOAT, TT_SIZES(9),
      TT_VALUES(127.4, 127.5, 128.0, -128.5, -129.0, 3e38, -3e38, INFINITY,
                -INFINITY));
  etr_tensor_t *out = tt_out(ETR_CHAR, TT_SIZES(9), 0);
  tt_expect_status(quantize(x, 1.0, 0, -128, 127, ETR_CHAR, out), ETR_OK);
  // 127.5 ties to 128 (even) and saturates; -128.5 ties to -128.
  tt_expect_values(out, TT_VALUES(127, 127, 127, -128, -128, 127, -128, 127,
                                  -128),
                   9);
  // NaN gives quant_min (ExecuTorch's x86 result; PyTorch's is undefined).
  etr_tensor_t *nan = tt_tensor(ETR_FLOAT, TT_SIZES(1), TT_VALUES(NAN));
  etr_tensor_t *nan_out = tt_out(ETR_BYTE, TT_SIZES(1), 0);
  tt_expect_status(quantize(nan, 0.1, 17, 3, 250, ETR_BYTE, nan_out), ETR_OK);
  tt_expect_values(nan_out, TT_VALUES(3), 1);
  // quant_min > quant_max: clamp's order leaves quant_max everywhere.
  tt_expect_status(quantize(x, 1.0, 0, 10, -10, ETR_CHAR, out), ETR_OK);
  tt_expect_values(out, TT_VALUES(-10, -10, -10, -10, -10, -10, -10, -10,
                                  -10),
                   9);
}

TT_TEST(quantize_per_tensor, extreme_scales_and_zero_points) {
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(4),
                              TT_VALUES(1.0, -1.0, 0.0, 1e-3));
  etr_tensor_t *out = tt_out(ETR_CHAR, TT_SIZES(4), 0);
  // A huge scale: the float inverse is subnormal, everything is the zp.
  tt_expect_status(quantize(x, 3e38, -7, -128, 127, ETR_CHAR, out), ETR_OK);
  tt_expect_values(out, TT_VALUES(-7, -7, -7, -7), 4);
  // A subnormal scale: the inverse is infinite; 0 * inf is NaN -> qmin.
  tt_expect_status(quantize(x, 1e-40, 0, -128, 127, ETR_CHAR, out), ETR_OK);
  tt_expect_values(out, TT_VALUES(127, -128, -128, 127), 4);
  // Zero points at and beyond the range.
  tt_expect_status(quantize(x, 0.01, 127, -128, 127, ETR_CHAR, out), ETR_OK);
  tt_expect_values(out, TT_VALUES(127, 27, 127, 127), 4);
  tt_expect_status(quantize(x, 0.01, 300, -128, 127, ETR_CHAR, out), ETR_OK);
  tt_expect_values(out, TT_VALUES(127, 127, 127, 127), 4);
  // An int32 zero point at INT32_MAX becomes 2^31 in float and saturates.
  etr_tensor_t *i32 = tt_out(ETR_INT, TT_SIZES(4), 0);
  tt_expect_status(quantize(x, 1.0, INT32_MAX, INT32_MIN, INT32_MAX, ETR_INT,
                            i32),
                   ETR_OK);
  tt_expect_values(i32, TT_VALUES(INT32_MAX, INT32_MAX, INT32_MAX, INT32_MAX),
                   4);
  // Zero points that do not fit int32 are refused.
  tt_expect_status(quantize(x, 0.1, (int64_t)1 << 40, -128, 127, ETR_CHAR,
                            out),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(quantize(x, 0.1, INT64_MIN, -128, 127, ETR_CHAR, out),
                   ETR_ERR_INVALID_ARGUMENT);
}

TT_TEST(quantize_per_tensor, input_and_output_dtypes) {
  // Double: ExecuTorch multiplies in double and rounds the product to
  // float first, so 2.5000000001 becomes 2.5 and ties to 2.
  etr_tensor_t *d = tt_tensor(ETR_DOUBLE, TT_SIZES(2),
                              TT_VALUES(2.5000000001, 2.6));
  etr_tensor_t *out = tt_out(ETR_CHAR, TT_SIZES(2), 0);
  tt_expect_status(quantize(d, 1.0, 0, -128, 127, ETR_CHAR, out), ETR_OK);
  tt_expect_values(out, TT_VALUES(2, 3), 2);
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(3),
                              TT_VALUES(-1.0, 0.5, 300.0));
  const etr_scalar_type_t floats[] = {ETR_HALF, ETR_BFLOAT16};
  for (size_t k = 0; k < 2; ++k) {
    etr_tensor_t *q = tt_out(ETR_CHAR, TT_SIZES(3), 0);
    tt_expect_status(quantize(tt_cast(x, floats[k]), 0.5, 1, -128, 127,
                              ETR_CHAR, q),
                     ETR_OK);
    tt_expect_values(q, TT_VALUES(-1, 2, 127), 3);
  }
  // Every quantized dtype, Bits16 included (stored as uint16).
  const etr_scalar_type_t qtypes[] = {ETR_BYTE, ETR_SHORT, ETR_UINT16,
                                      ETR_BITS16, ETR_INT};
  const int64_t qmax[] = {255, 32767, 65535, 65535, INT32_MAX};
  for (size_t k = 0; k < 5; ++k) {
    etr_tensor_t *q = tt_out(qtypes[k], TT_SIZES(3), 0);
    tt_expect_status(quantize(x, 0.5, 10, 0, qmax[k], qtypes[k], q), ETR_OK);
    double last = qtypes[k] == ETR_BYTE ? 255 : 610;  // 300 / 0.5 + 10
    if (qtypes[k] == ETR_BITS16) {
      const uint16_t *raw = q->data;
      cr_expect(raw[0] == 8 && raw[1] == 11 && raw[2] == 610);
    } else {
      tt_expect_values(q, TT_VALUES(8, 11, last), 3);
    }
  }
}

TT_TEST(quantize_per_tensor, layouts_and_shapes) {
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(2, 2, 2, 3),
                              TT_VALUES(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11,
                                        -1, -2, -3, -4, -5, -6, -7, -8, -9,
                                        -10, -11, -12));
  const double want[] = {0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22,
                         -2, -4, -6, -8, -10, -12, -14, -16, -18, -20, -22,
                         -24};
  for (int layout = 0; layout < TT_NUM_LAYOUTS; ++layout) {
    etr_tensor_t *out = tt_out(ETR_CHAR, TT_SIZES(24), 0);
    tt_expect_status(quantize(tt_relayout(x, layout), 0.5, 0, -128, 127,
                              ETR_CHAR, out),
                     ETR_OK);
    tt_expect_shape(out, TT_SIZES(2, 2, 2, 3));
    tt_expect_values(out, want, 24);
  }
  // A channels-last out is written in its own layout.
  const uint8_t channels_last[] = {0, 2, 3, 1};
  etr_tensor_t *cl = tt_out_dim_order(ETR_CHAR, TT_SIZES(2, 2, 2, 3),
                                      channels_last);
  tt_expect_status(quantize(x, 0.5, 0, -128, 127, ETR_CHAR, cl), ETR_OK);
  tt_expect_values(cl, want, 24);
  // 0-dim and empty.
  etr_tensor_t *scalar_out = tt_out(ETR_CHAR, 0, NULL, 0);
  tt_expect_status(quantize(tt_scalar_tensor(ETR_FLOAT, 0.73), 0.01, 2, -128,
                            127, ETR_CHAR, scalar_out),
                   ETR_OK);
  tt_expect_values(scalar_out, TT_VALUES(75), 1);
  etr_tensor_t *empty_out = tt_out(ETR_CHAR, TT_SIZES(0, 3), 0);
  tt_expect_status(quantize(tt_tensor(ETR_FLOAT, TT_SIZES(0, 3), NULL), 0.01,
                            2, -128, 127, ETR_CHAR, empty_out),
                   ETR_OK);
  tt_expect_shape(empty_out, TT_SIZES(0, 3));
}

TT_TEST(quantize_per_tensor, rejects) {
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(3), NULL);
  etr_tensor_t *out = tt_out(ETR_CHAR, TT_SIZES(3), 0);
  etr_tensor_t *ints = tt_tensor(ETR_INT, TT_SIZES(3), NULL);
  tt_expect_status(quantize(ints, 0.1, 0, -128, 127, ETR_CHAR, out),
                   ETR_ERR_NOT_SUPPORTED);
  tt_expect_status(quantize(x, 0.1, 0, 0, 10, ETR_LONG,
                            tt_out(ETR_LONG, TT_SIZES(3), 0)),
                   ETR_ERR_NOT_SUPPORTED);
  tt_expect_status(quantize(x, 0.1, 0, 0, 255, ETR_BYTE, out),
                   ETR_ERR_INVALID_ARGUMENT);  // out is Char
  tt_expect_status(quantize(x, 0.1, 0, -129, 127, ETR_CHAR, out),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(quantize(x, 0.1, 0, -128, 128, ETR_CHAR, out),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(quantize(x, 0.1, 0, INT64_MIN, INT64_MAX, ETR_CHAR, out),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(quantize(x, 0.1, 0, -128, 127, (etr_scalar_type_t)99, out),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(TT_CALL(QPT, tt_ev_tensor(x), tt_ev_double(0.1),
                           tt_ev_int(0), tt_ev_int(-128), tt_ev_int(127),
                           tt_ev_int(ETR_CHAR), tt_ev_tensor(out)),
                   ETR_ERR_INVALID_PROGRAM);
  tt_expect_status(TT_CALL(QPT, tt_ev_tensor(x), tt_ev_tensor(x),
                           tt_ev_int(0), tt_ev_int(-128), tt_ev_int(127),
                           tt_ev_int(ETR_CHAR), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   ETR_ERR_INVALID_TYPE);
  // An out too small for the input (static shape) cannot be resized.
  tt_expect_status(quantize(tt_tensor(ETR_FLOAT, TT_SIZES(5), NULL), 0.1, 0,
                            -128, 127, ETR_CHAR, out),
                   ETR_ERR_INVALID_ARGUMENT);
}

static etr_error_t quantize_tensor_args(etr_tensor_t *x, etr_tensor_t *scale,
                                        etr_tensor_t *zp, etr_tensor_t *out) {
  return TT_CALL(QPT_T, tt_ev_tensor(x), tt_ev_tensor(scale), tt_ev_tensor(zp),
                 tt_ev_int(-128), tt_ev_int(127), tt_ev_int(ETR_CHAR),
                 tt_ev_tensor(out), tt_ev_tensor(out));
}

TT_TEST(quantize_per_tensor, tensor_arguments) {
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(3), TT_VALUES(-1, 0.25, 1));
  etr_tensor_t *out = tt_out(ETR_CHAR, TT_SIZES(3), 0);
  etr_tensor_t *scale = tt_tensor(ETR_DOUBLE, TT_SIZES(1), TT_VALUES(0.125));
  etr_tensor_t *zp = tt_tensor(ETR_LONG, TT_SIZES(1), TT_VALUES(-3));
  tt_expect_status(quantize_tensor_args(x, scale, zp, out), ETR_OK);
  tt_expect_values(out, TT_VALUES(-11, -1, 5), 3);
  tt_expect_status(quantize_tensor_args(x, tt_scalar_tensor(ETR_DOUBLE, 0.5),
                                        tt_scalar_tensor(ETR_LONG, 0), out),
                   ETR_OK);
  tt_expect_values(out, TT_VALUES(-2, 0, 2), 3);
  tt_expect_status(quantize_tensor_args(x, tt_cast(scale, ETR_FLOAT), zp, out),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(quantize_tensor_args(x, scale, tt_cast(zp, ETR_INT), out),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(
      quantize_tensor_args(
          x, tt_tensor(ETR_DOUBLE, TT_SIZES(2), TT_VALUES(0.1, 0.2)), zp, out),
      ETR_ERR_INVALID_ARGUMENT);
  // A zero point that does not fit int32 is found when the values are read.
  etr_tensor_t *huge = tt_tensor_i64(ETR_LONG, TT_SIZES(1),
                                     (const int64_t[]){(int64_t)1 << 35});
  tt_expect_status(quantize_tensor_args(x, scale, huge, out),
                   ETR_ERR_INVALID_ARGUMENT);
}

TT_TEST(dequantize_per_tensor, values_and_out_dtypes) {
  etr_tensor_t *q = tt_tensor(ETR_CHAR, TT_SIZES(4),
                              TT_VALUES(-128, -1, 0, 127));
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(4), 0);
  tt_expect_status(dequantize(q, 0.5, -1, -128, 127, ETR_CHAR, tt_ev_none(),
                              out),
                   ETR_OK);
  tt_expect_values(out, TT_VALUES(-63.5, 0, 0.5, 64), 4);
  // The float product, rounded to the out dtype: 0.1f * 3 in float is
  // 0.3000000119..., which Half rounds to 0.30004883.
  etr_tensor_t *three = tt_tensor(ETR_BYTE, TT_SIZES(1), TT_VALUES(3));
  etr_tensor_t *half = tt_out(ETR_HALF, TT_SIZES(1), 0);
  tt_expect_status(dequantize(three, 0.1, 0, 0, 255, ETR_BYTE,
                              tt_ev_int(ETR_HALF), half),
                   ETR_OK);
  cr_expect_eq(*(const uint16_t *)half->data, 0x34cd);
  etr_tensor_t *dbl = tt_out(ETR_DOUBLE, TT_SIZES(1), 0);
  tt_expect_status(dequantize(three, 0.1, 0, 0, 255, ETR_BYTE, tt_ev_none(),
                              dbl),
                   ETR_OK);
  cr_expect_eq(*(const double *)dbl->data, (double)(0.1f * 3.0f));
  etr_tensor_t *bf = tt_out(ETR_BFLOAT16, TT_SIZES(4), 0);
  tt_expect_status(dequantize(q, 0.5, -1, -128, 127, ETR_CHAR, tt_ev_none(),
                              bf),
                   ETR_OK);
  tt_expect_values(bf, TT_VALUES(-63.5, 0, 0.5, 64), 4);
  // int32: the exact difference, rounded to float once.
  etr_tensor_t *wide = tt_tensor(ETR_INT, TT_SIZES(2),
                                 TT_VALUES(INT32_MIN, INT32_MAX));
  etr_tensor_t *wide_out = tt_out(ETR_FLOAT, TT_SIZES(2), 0);
  tt_expect_status(dequantize(wide, 1.0, 5, INT32_MIN, INT32_MAX, ETR_INT,
                              tt_ev_none(), wide_out),
                   ETR_OK);
  tt_expect_values(wide_out, TT_VALUES(-2147483648.0, 2147483648.0), 2);
  // Bits16 and UInt16 read as unsigned.
  etr_tensor_t *u16 = tt_tensor(ETR_UINT16, TT_SIZES(1), TT_VALUES(65535));
  etr_tensor_t *u16_out = tt_out(ETR_FLOAT, TT_SIZES(1), 0);
  tt_expect_status(dequantize(u16, 1.0, 32768, 0, 65535, ETR_UINT16,
                              tt_ev_none(), u16_out),
                   ETR_OK);
  tt_expect_values(u16_out, TT_VALUES(32767), 1);
  etr_tensor_t *bits = tt_out(ETR_BITS16, TT_SIZES(1), 0);
  *(uint16_t *)bits->data = 40000;
  tt_expect_status(dequantize(bits, 1.0, 0, 0, 65535, ETR_BITS16,
                              tt_ev_none(), u16_out),
                   ETR_OK);
  tt_expect_values(u16_out, TT_VALUES(40000), 1);
}

TT_TEST(dequantize_per_tensor, layouts_and_rejects) {
  etr_tensor_t *q = tt_tensor(ETR_BYTE, TT_SIZES(2, 3),
                              TT_VALUES(0, 1, 2, 253, 254, 255));
  for (int layout = 0; layout < TT_NUM_LAYOUTS; ++layout) {
    etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(6), 0);
    tt_expect_status(dequantize(tt_relayout(q, layout), 2.0, 128, 0, 255,
                                ETR_BYTE, tt_ev_none(), out),
                     ETR_OK);
    tt_expect_values(out, TT_VALUES(-256, -254, -252, 250, 252, 254), 6);
  }
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(2, 3), 0);
  tt_expect_status(dequantize(tt_tensor(ETR_FLOAT, TT_SIZES(2, 3), NULL), 1.0,
                              0, 0, 255, ETR_FLOAT, tt_ev_none(), out),
                   ETR_ERR_NOT_SUPPORTED);
  tt_expect_status(dequantize(q, 1.0, 0, 0, 255, ETR_CHAR, tt_ev_none(), out),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(dequantize(q, 1.0, 0, 0, 255, ETR_BYTE,
                              tt_ev_int(ETR_HALF), out),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(dequantize(q, 1.0, 0, 5, -5, ETR_BYTE, tt_ev_none(), out),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(dequantize(q, 1.0, 0, 0, 255, ETR_BYTE, tt_ev_none(),
                              tt_out(ETR_INT, TT_SIZES(2, 3), 0)),
                   ETR_ERR_NOT_SUPPORTED);
  tt_expect_status(dequantize(q, 1.0, INT64_MAX, 0, 255, ETR_BYTE,
                              tt_ev_none(), out),
                   ETR_ERR_INVALID_ARGUMENT);
  etr_tensor_t *scale = tt_tensor(ETR_DOUBLE, TT_SIZES(1), TT_VALUES(0.5));
  etr_tensor_t *zp = tt_tensor(ETR_LONG, TT_SIZES(1), TT_VALUES(1));
  tt_expect_status(TT_CALL(DQPT_T, tt_ev_tensor(q), tt_ev_tensor(scale),
                           tt_ev_tensor(zp), tt_ev_int(0), tt_ev_int(255),
                           tt_ev_int(ETR_BYTE), tt_ev_none(), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   ETR_OK);
  tt_expect_values(out, TT_VALUES(-0.5, 0, 0.5, 126, 126.5, 127), 6);
  tt_expect_status(TT_CALL(DQPT_T, tt_ev_tensor(q),
                           tt_ev_tensor(tt_cast(scale, ETR_FLOAT)),
                           tt_ev_tensor(zp), tt_ev_int(0), tt_ev_int(255),
                           tt_ev_int(ETR_BYTE), tt_ev_none(), tt_ev_tensor(out),
                           tt_ev_tensor(out)),
                   ETR_ERR_INVALID_ARGUMENT);
}

static etr_error_t quantize_channels(etr_tensor_t *x, etr_tensor_t *scales,
                                     etr_tensor_t *zps, int64_t axis,
                                     etr_tensor_t *out) {
  return TT_CALL(QPC, tt_ev_tensor(x), tt_ev_tensor(scales),
                 tt_ev_tensor(zps), tt_ev_int(axis), tt_ev_int(-128),
                 tt_ev_int(127), tt_ev_int(ETR_CHAR), tt_ev_tensor(out),
                 tt_ev_tensor(out));
}

TT_TEST(quantize_per_channel, every_axis_and_layout) {
  // x[i, j, k] = 1 + j; channel scales 0.5 / 0.25 along whichever axis.
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(2, 2, 2),
                              TT_VALUES(1, 1, 2, 2, 1, 1, 2, 2));
  etr_tensor_t *scales = tt_tensor(ETR_DOUBLE, TT_SIZES(2),
                                   TT_VALUES(0.5, 0.25));
  etr_tensor_t *zps = tt_tensor(ETR_LONG, TT_SIZES(2), TT_VALUES(0, 1));
  const double want[3][8] = {
      {2, 2, 4, 4, 5, 5, 9, 9},   // axis 0: channel = i
      {2, 2, 9, 9, 2, 2, 9, 9},   // axis 1: channel = j
      {2, 5, 4, 9, 2, 5, 4, 9},   // axis 2: channel = k
  };
  for (int axis = 0; axis < 3; ++axis) {
    for (int layout = 0; layout < TT_NUM_LAYOUTS; ++layout) {
      etr_tensor_t *out = tt_out(ETR_CHAR, TT_SIZES(8), 0);
      tt_expect_status(
          quantize_channels(tt_relayout(x, layout), scales, zps, axis, out),
          ETR_OK);
      tt_expect_values(out, want[axis], 8);
      etr_tensor_t *negative = tt_out(ETR_CHAR, TT_SIZES(8), 0);
      tt_expect_status(quantize_channels(x, scales, zps, axis - 3, negative),
                       ETR_OK);
      tt_expect_values(negative, want[axis], 8);
    }
  }
  // Scales in a 2-D tensor are read in row-major order.
  etr_tensor_t *out = tt_out(ETR_CHAR, TT_SIZES(8), 0);
  tt_expect_status(
      quantize_channels(x, tt_noncontiguous(tt_tensor(ETR_DOUBLE,
                                                      TT_SIZES(1, 2),
                                                      TT_VALUES(0.5, 0.25))),
                        zps, 1, out),
      ETR_OK);
  tt_expect_values(out, want[1], 8);
}

TT_TEST(quantize_per_channel, rejects) {
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(2, 3), NULL);
  etr_tensor_t *out = tt_out(ETR_CHAR, TT_SIZES(2, 3), 0);
  etr_tensor_t *s3 = tt_tensor(ETR_DOUBLE, TT_SIZES(3), TT_VALUES(1, 1, 1));
  etr_tensor_t *z3 = tt_tensor(ETR_LONG, TT_SIZES(3), NULL);
  tt_expect_status(quantize_channels(x, s3, z3, 1, out), ETR_OK);
  tt_expect_status(quantize_channels(x, s3, z3, 0, out),
                   ETR_ERR_INVALID_ARGUMENT);  // 3 scales for 2 channels
  tt_expect_status(quantize_channels(x, s3, z3, 2, out),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(quantize_channels(x, s3, z3, INT64_MIN, out),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(quantize_channels(x, tt_cast(s3, ETR_FLOAT), z3, 1, out),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(quantize_channels(x, s3, tt_cast(z3, ETR_INT), 1, out),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(quantize_channels(tt_scalar_tensor(ETR_FLOAT, 1), s3, z3,
                                     0, tt_out(ETR_CHAR, 0, NULL, 0)),
                   ETR_ERR_INVALID_ARGUMENT);
  etr_tensor_t *huge = tt_tensor_i64(
      ETR_LONG, TT_SIZES(3), (const int64_t[]){0, INT64_MAX, 0});
  tt_expect_status(quantize_channels(x, s3, huge, 1, out),
                   ETR_ERR_INVALID_ARGUMENT);
}

static etr_error_t dequantize_channels(etr_tensor_t *q, etr_tensor_t *scales,
                                       etr_tensor_t *zps, int64_t axis,
                                       etr_evalue_t *out_dtype,
                                       etr_tensor_t *out) {
  return TT_CALL(DQPC, tt_ev_tensor(q), tt_ev_tensor(scales),
                 zps == NULL ? tt_ev_none() : tt_ev_tensor(zps),
                 tt_ev_int(axis), tt_ev_int(-128), tt_ev_int(127),
                 tt_ev_int(ETR_CHAR), out_dtype, tt_ev_tensor(out),
                 tt_ev_tensor(out));
}

TT_TEST(dequantize_per_channel, axes_zero_points_and_dtypes) {
  etr_tensor_t *q = tt_tensor(ETR_CHAR, TT_SIZES(2, 3),
                              TT_VALUES(1, 2, 3, -1, -2, -3));
  etr_tensor_t *scales = tt_tensor(ETR_FLOAT, TT_SIZES(3),
                                   TT_VALUES(1, 0.5, 0.25));
  for (int layout = 0; layout < TT_NUM_LAYOUTS; ++layout) {
    etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(6), 0);
    tt_expect_status(dequantize_channels(tt_relayout(q, layout), scales, NULL,
                                         -1, tt_ev_none(), out),
                     ETR_OK);
    tt_expect_values(out, TT_VALUES(1, 1, 0.75, -1, -1, -0.75), 6);
  }
  // Int and Long zero points, Double scales, along axis 0.
  etr_tensor_t *s2 = tt_tensor(ETR_DOUBLE, TT_SIZES(2), TT_VALUES(2, 4));
  etr_tensor_t *z2 = tt_tensor(ETR_INT, TT_SIZES(2), TT_VALUES(1, -1));
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(2, 3), 0);
  tt_expect_status(dequantize_channels(q, s2, z2, 0, tt_ev_none(), out),
                   ETR_OK);
  tt_expect_values(out, TT_VALUES(0, 2, 4, 0, -4, -8), 6);
  tt_expect_status(dequantize_channels(q, s2, tt_cast(z2, ETR_LONG), 0,
                                       tt_ev_none(), out),
                   ETR_OK);
  tt_expect_values(out, TT_VALUES(0, 2, 4, 0, -4, -8), 6);
  // Half and Double outs hold the float product rounded / widened.
  etr_tensor_t *half = tt_out(ETR_HALF, TT_SIZES(2, 3), 0);
  tt_expect_status(dequantize_channels(q, scales, NULL, 1,
                                       tt_ev_int(ETR_HALF), half),
                   ETR_OK);
  tt_expect_values(half, TT_VALUES(1, 1, 0.75, -1, -1, -0.75), 6);
}

TT_TEST(dequantize_per_channel, rejects) {
  etr_tensor_t *q = tt_tensor(ETR_CHAR, TT_SIZES(2, 3), NULL);
  etr_tensor_t *out = tt_out(ETR_FLOAT, TT_SIZES(2, 3), 0);
  etr_tensor_t *s3 = tt_tensor(ETR_FLOAT, TT_SIZES(3), TT_VALUES(1, 1, 1));
  tt_expect_status(dequantize_channels(q, s3, NULL, 0, tt_ev_none(), out),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(dequantize_channels(q, tt_cast(s3, ETR_HALF), NULL, 1,
                                       tt_ev_none(), out),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(dequantize_channels(q, s3,
                                       tt_tensor(ETR_SHORT, TT_SIZES(3), NULL),
                                       1, tt_ev_none(), out),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(dequantize_channels(q, s3, NULL, INT64_MAX, tt_ev_none(),
                                       out),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(dequantize_channels(q, s3, NULL, 1, tt_ev_int(ETR_DOUBLE),
                                       out),
                   ETR_ERR_INVALID_ARGUMENT);
}

static etr_error_t choose(etr_tensor_t *x, int64_t qmin, int64_t qmax,
                          etr_tensor_t *scale, etr_tensor_t *zp) {
  etr_evalue_t *outs = tt_ev_tensor_list(TT_TENSORS(scale, zp));
  return TT_CALL(CQP, tt_ev_tensor(x), tt_ev_int(qmin), tt_ev_int(qmax),
                 tt_ev_double(1e-7), tt_ev_int(ETR_CHAR), tt_ev_tensor(scale),
                 tt_ev_tensor(zp), outs);
}

TT_TEST(choose_qparams, executorch_arithmetic_by_hand) {
  etr_tensor_t *scale = tt_out(ETR_DOUBLE, TT_SIZES(1), 0);
  etr_tensor_t *zp = tt_out(ETR_LONG, TT_SIZES(1), 0);
  // [-1, 2] on [-128, 127]: scale 3/255; from the max end 127 - 170 = -43
  // (its error |127| - 170 = -43 is the smaller one).
  tt_expect_status(choose(tt_tensor(ETR_FLOAT, TT_SIZES(2), TT_VALUES(-1, 2)),
                          -128, 127, scale, zp),
                   ETR_OK);
  cr_expect_eq(*(const double *)scale->data, 3.0 / 255.0);
  cr_expect_eq(*(const int64_t *)zp->data, -43);
  // All zeros: scale 0 becomes 0.1; the zero point comes from the max end.
  tt_expect_status(choose(tt_tensor(ETR_FLOAT, TT_SIZES(3), NULL), -128, 127,
                          scale, zp),
                   ETR_OK);
  cr_expect_eq(*(const double *)scale->data, 0.1);
  cr_expect_eq(*(const int64_t *)zp->data, 127);
  // A tiny non-negative range: the scale is raised to 6.1e-5f and max
  // stretched; min 0 gives zero point qmin.
  tt_expect_status(choose(tt_tensor(ETR_FLOAT, TT_SIZES(2),
                                    TT_VALUES(0.0, 1e-4)),
                          0, 255, scale, zp),
                   ETR_OK);
  cr_expect_eq(*(const double *)scale->data, (double)6.1e-5f);
  cr_expect_eq(*(const int64_t *)zp->data, 0);
  // A NaN after the first element is skipped; a 0-dim out is kept.
  etr_tensor_t *scalar_scale = tt_out(ETR_DOUBLE, 0, NULL, 0);
  tt_expect_status(choose(tt_tensor(ETR_FLOAT, TT_SIZES(3),
                                    TT_VALUES(-1, NAN, 2)),
                          -128, 127, scalar_scale, zp),
                   ETR_OK);
  cr_expect_eq(*(const double *)scalar_scale->data, 3.0 / 255.0);
  cr_expect_eq(scalar_scale->dim, 0);
}

TT_TEST(choose_qparams, rejects) {
  etr_tensor_t *scale = tt_out(ETR_DOUBLE, TT_SIZES(1), 0);
  etr_tensor_t *zp = tt_out(ETR_LONG, TT_SIZES(1), 0);
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(2), TT_VALUES(-1, 2));
  tt_expect_status(choose(tt_tensor(ETR_FLOAT, TT_SIZES(2), TT_VALUES(NAN, 1)),
                          -128, 127, scale, zp),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(choose(tt_tensor(ETR_FLOAT, TT_SIZES(2),
                                    TT_VALUES(1, INFINITY)),
                          -128, 127, scale, zp),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(choose(tt_tensor(ETR_FLOAT, TT_SIZES(0), NULL), -128, 127,
                          scale, zp),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(choose(tt_cast(x, ETR_HALF), -128, 127, scale, zp),
                   ETR_ERR_NOT_SUPPORTED);
  tt_expect_status(choose(x, 5, 5, scale, zp), ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(choose(x, INT64_MIN, INT64_MAX, scale, zp),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(choose(x, -128, 127, tt_out(ETR_FLOAT, TT_SIZES(1), 0), zp),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(choose(x, -128, 127, scale, tt_out(ETR_INT, TT_SIZES(1), 0)),
                   ETR_ERR_INVALID_ARGUMENT);
}

static etr_error_t choose_per_token(etr_tensor_t *x, etr_tensor_t *scale,
                                    etr_tensor_t *zp) {
  etr_evalue_t *outs = tt_ev_tensor_list(TT_TENSORS(scale, zp));
  return TT_CALL(CQPT, tt_ev_tensor(x), tt_ev_int(ETR_CHAR),
                 tt_ev_tensor(scale), tt_ev_tensor(zp), outs);
}

TT_TEST(choose_qparams_per_token_asymmetric, rows_and_rejects) {
  // Row 0 = [-1, 2] (scale 3/255, zp -43), row 1 zeros (0.1, 127); the
  // input is transposed in memory.
  etr_tensor_t *x = tt_noncontiguous(
      tt_tensor(ETR_FLOAT, TT_SIZES(2, 2), TT_VALUES(-1, 2, 0, 0)));
  etr_tensor_t *scale = tt_out(ETR_DOUBLE, TT_SIZES(4), 0);
  etr_tensor_t *zp = tt_out(ETR_LONG, TT_SIZES(4), 0);
  tt_expect_status(choose_per_token(x, scale, zp), ETR_OK);
  tt_expect_shape(scale, TT_SIZES(2, 1));
  tt_expect_shape(zp, TT_SIZES(2, 1));
  tt_expect_values(scale, TT_VALUES(3.0 / 255.0, 0.1), 2);
  tt_expect_values(zp, TT_VALUES(-43, 127), 2);
  tt_expect_status(choose_per_token(tt_scalar_tensor(ETR_FLOAT, 1), scale, zp),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(choose_per_token(tt_tensor(ETR_FLOAT, TT_SIZES(2, 0), NULL),
                                    scale, zp),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(choose_per_token(tt_cast(x, ETR_DOUBLE), scale, zp),
                   ETR_ERR_NOT_SUPPORTED);
  tt_expect_status(choose_per_token(x, tt_out(ETR_FLOAT, TT_SIZES(2), 0), zp),
                   ETR_ERR_INVALID_ARGUMENT);
}

TT_TEST(per_token, quantize_and_dequantize) {
  // Two tokens of three, scales 0.5 / 0.25, zero points 1 / -1; a tie
  // rounds before the zero point: 0.75 / 0.5 = 1.5 -> 2 -> 3.
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, TT_SIZES(2, 3),
                              TT_VALUES(0.75, -1, 0, 0.125, 1, -0.25));
  etr_tensor_t *scales = tt_tensor(ETR_DOUBLE, TT_SIZES(2, 1),
                                   TT_VALUES(0.5, 0.25));
  etr_tensor_t *zps = tt_tensor(ETR_LONG, TT_SIZES(2, 1), TT_VALUES(1, -1));
  for (int layout = 0; layout < TT_NUM_LAYOUTS; ++layout) {
    etr_tensor_t *q = tt_out(ETR_CHAR, TT_SIZES(6), 0);
    tt_expect_status(TT_CALL(QTOK, tt_ev_tensor(tt_relayout(x, layout)),
                             tt_ev_tensor(scales), tt_ev_tensor(zps),
                             tt_ev_int(-128), tt_ev_int(127),
                             tt_ev_int(ETR_CHAR), tt_ev_tensor(q),
                             tt_ev_tensor(q)),
                     ETR_OK);
    tt_expect_values(q, TT_VALUES(3, -1, 1, -1, 3, -2), 6);
    etr_tensor_t *back = tt_out(ETR_FLOAT, TT_SIZES(6), 0);
    tt_expect_status(TT_CALL(DQTOK, tt_ev_tensor(tt_relayout(q, layout)),
                             tt_ev_tensor(tt_cast(scales, ETR_FLOAT)),
                             tt_ev_tensor(tt_cast(zps, ETR_INT)),
                             tt_ev_int(-128), tt_ev_int(127),
                             tt_ev_int(ETR_CHAR), tt_ev_int(ETR_FLOAT),
                             tt_ev_tensor(back), tt_ev_tensor(back)),
                     ETR_OK);
    tt_expect_values(back, TT_VALUES(1, -1, 0, 0, 1, -0.25), 6);
  }
  etr_tensor_t *q = tt_out(ETR_CHAR, TT_SIZES(6), 0);
  tt_expect_status(TT_CALL(QTOK, tt_ev_tensor(x),
                           tt_ev_tensor(tt_tensor(ETR_DOUBLE, TT_SIZES(3),
                                                  NULL)),
                           tt_ev_tensor(zps), tt_ev_int(-128), tt_ev_int(127),
                           tt_ev_int(ETR_CHAR), tt_ev_tensor(q),
                           tt_ev_tensor(q)),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(TT_CALL(DQTOK, tt_ev_tensor(q), tt_ev_tensor(scales),
                           tt_ev_tensor(zps), tt_ev_int(-128), tt_ev_int(127),
                           tt_ev_int(ETR_CHAR), tt_ev_int(ETR_HALF),
                           tt_ev_tensor(tt_out(ETR_FLOAT, TT_SIZES(6), 0)),
                           tt_ev_tensor(tt_out(ETR_FLOAT, TT_SIZES(6), 0))),
                   ETR_ERR_INVALID_ARGUMENT);
  tt_expect_status(TT_CALL(QTOK, tt_ev_tensor(tt_scalar_tensor(ETR_FLOAT, 1)),
                           tt_ev_tensor(scales), tt_ev_tensor(zps),
                           tt_ev_int(-128), tt_ev_int(127),
                           tt_ev_int(ETR_CHAR), tt_ev_tensor(q),
                           tt_ev_tensor(q)),
                   ETR_ERR_INVALID_ARGUMENT);
}
