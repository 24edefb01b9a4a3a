// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the optimized quantize / dequantize kernels
// (ops_optimized/quant/: quantized_decomposed::quantize_per_tensor,
// quantize_per_channel, dequantize_per_tensor, dequantize_per_channel and
// the .Tensor_out overloads) against the reference kernels, on every ISA
// this machine has. Every comparison is exact: the optimized kernels
// compute the reference's float arithmetic step for step.
//
// Sweeps: the 4/8/16-lane edges of the microkernels; the cnn_quantized
// model's shapes; scales that make exact ties (powers of two with inputs
// on half-integers, so round half to even is probed), ordinary ones, tiny
// ones (saturation) and 0; zero points inside and far outside the range;
// quant_min > quant_max; Char and Byte; NaN, infinities, -0.0, denormals
// and extremes (NaN goes to quant_min as in the reference); every int8 /
// uint8 value for dequantize; contiguous, channels-last (per channel:
// along every axis, the channel axis innermost in memory included) and
// non-contiguous inputs (fallback); Half inputs, Short and Int quantized
// dtypes, a Double out (fallback); zero points past 2^30 (fallback) and
// past int32 (both refuse); argument errors.
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "ops_optimized/test/diff.h"

static uint64_t g_seed = 71000;

// Writes input values that are exact ties of x * (1 / scale) for a
// power-of-two `scale`: (k + 0.5) * scale for small k, both signs.
static void fill_ties(etr_tensor_t *input, double scale) {
  int64_t numel = etr_tensor_numel(input);
  if (input->dtype != ETR_FLOAT || !etr_tensor_is_dense(input)) {
    return;
  }
  float *x = (float *)input->data;
  for (int64_t i = 0; i < numel; ++i) {
    double k = (double)(i % 41) - 20.0;
    x[i] = (float)((k + 0.5) * scale);
  }
}

// Writes every value of an int8 / uint8 input in turn.
static void fill_all_bytes(etr_tensor_t *input) {
  if ((input->dtype != ETR_CHAR && input->dtype != ETR_BYTE) ||
      !etr_tensor_is_dense(input)) {
    return;
  }
  int64_t numel = etr_tensor_numel(input);
  uint8_t *q = (uint8_t *)input->data;
  for (int64_t i = 0; i < numel; ++i) {
    q[i] = (uint8_t)(i * 37 + 11);
  }
}

typedef struct quant_case {
  etr_scalar_type_t float_dtype;  // quantize input / dequantize out
  etr_scalar_type_t quant_dtype;  // quantize out / dequantize input
  double scale;
  int64_t zero_point;
  int64_t quant_min;
  int64_t quant_max;
  etr_diff_layout_t layout;
  etr_diff_fill_t fill;
  bool ties;        // fill_ties / fill_all_bytes
  bool tensor_out;  // the .Tensor_out overload
} quant_case_t;

static void add_out(etr_diff_case_t *c, etr_scalar_type_t dtype,
                    int32_t rank, const int64_t *sizes,
                    etr_diff_layout_t layout, const etr_tensor_t *input) {
  if (rank == 4 && layout == ETR_DIFF_CHANNELS_LAST) {
    etr_diff_out(c, dtype, 4, sizes, ETR_DIFF_CHANNELS_LAST, 0);
  } else {
    etr_diff_out(c, dtype, 1, (const int64_t[]){0}, 0,
                 etr_tensor_numel(input) + 8);
  }
}

static void add_scale_zero_point(etr_diff_case_t *c, const quant_case_t *q) {
  if (q->tensor_out) {
    etr_diff_arg(c, tt_ev_tensor(tt_tensor(ETR_DOUBLE, 1, (const int64_t[]){1},
                                           (const double[]){q->scale})));
    etr_diff_arg(c, tt_ev_tensor(tt_tensor_i64(ETR_LONG, 1,
                                               (const int64_t[]){1},
                                               &q->zero_point)));
  } else {
    etr_diff_arg(c, tt_ev_double(q->scale));
    etr_diff_arg(c, tt_ev_int(q->zero_point));
  }
}

static int run_quantize(const quant_case_t *q, int32_t rank,
                        const int64_t *sizes) {
  etr_diff_case_t c;
  etr_diff_begin(&c,
                 q->tensor_out ? "quantized_decomposed::quantize_per_tensor."
                                 "Tensor_out"
                               : "quantized_decomposed::quantize_per_tensor."
                                 "out",
                 g_seed++,
                 "%s->%s rank %d [%lld..%lld] scale %g zp %lld [%lld, %lld]",
                 etr_scalar_type_name(q->float_dtype),
                 etr_scalar_type_name(q->quant_dtype), (int)rank,
                 (long long)(rank > 0 ? sizes[0] : 0),
                 (long long)(rank > 0 ? sizes[rank - 1] : 0), q->scale,
                 (long long)q->zero_point, (long long)q->quant_min,
                 (long long)q->quant_max);
  etr_tensor_t *input =
      etr_diff_input(&c, q->float_dtype, rank, sizes, q->layout, q->fill);
  if (q->ties) {
    fill_ties(input, q->scale);
  }
  add_scale_zero_point(&c, q);
  etr_diff_arg(&c, tt_ev_int(q->quant_min));
  etr_diff_arg(&c, tt_ev_int(q->quant_max));
  etr_diff_arg(&c, tt_ev_int(q->quant_dtype));
  add_out(&c, q->quant_dtype, rank, sizes, q->layout, input);
  etr_diff_return(&c, 6);
  etr_diff_tolerance_exact(&c);
  return etr_diff_run(&c);
}

static int run_dequantize(const quant_case_t *q, int32_t rank,
                          const int64_t *sizes, bool with_out_dtype) {
  etr_diff_case_t c;
  etr_diff_begin(
      &c,
      q->tensor_out ? "quantized_decomposed::dequantize_per_tensor.Tensor_out"
                    : "quantized_decomposed::dequantize_per_tensor.out",
      g_seed++, "%s->%s rank %d [%lld..%lld] scale %g zp %lld",
      etr_scalar_type_name(q->quant_dtype),
      etr_scalar_type_name(q->float_dtype), (int)rank,
      (long long)(rank > 0 ? sizes[0] : 0),
      (long long)(rank > 0 ? sizes[rank - 1] : 0), q->scale,
      (long long)q->zero_point);
  etr_tensor_t *input =
      etr_diff_input(&c, q->quant_dtype, rank, sizes, q->layout, q->fill);
  if (q->ties) {
    fill_all_bytes(input);
  }
  add_scale_zero_point(&c, q);
  etr_diff_arg(&c, tt_ev_int(q->quant_min));
  etr_diff_arg(&c, tt_ev_int(q->quant_max));
  etr_diff_arg(&c, tt_ev_int(q->quant_dtype));
  etr_diff_arg(&c, with_out_dtype ? tt_ev_int(q->float_dtype) : tt_ev_none());
  add_out(&c, q->float_dtype, rank, sizes, q->layout, input);
  etr_diff_return(&c, 7);
  etr_diff_tolerance_exact(&c);
  return etr_diff_run(&c);
}

// Per channel: scales / zero points drawn from the case's generator.
typedef struct channel_case {
  etr_scalar_type_t float_dtype;
  etr_scalar_type_t quant_dtype;
  etr_scalar_type_t scales_dtype;       // Double (or Float: dequantize)
  etr_scalar_type_t zero_points_dtype;  // Long (or Int: dequantize);
                                        // ETR_NUM_SCALAR_TYPES: None
  int64_t zero_point_spread;            // zero points in [-s, s]
  int64_t quant_min;
  int64_t quant_max;
  etr_diff_layout_t layout;
  etr_diff_fill_t fill;
} channel_case_t;

static void add_channel_params(etr_diff_case_t *c, const channel_case_t *q,
                               int64_t channels) {
  double *scales = tt_alloc((size_t)(channels + 1) * sizeof(double));
  int64_t *zero_points = tt_alloc((size_t)(channels + 1) * sizeof(int64_t));
  for (int64_t i = 0; i < channels; ++i) {
    // Powers of two (ties on exact inputs) and ordinary scales mixed.
    scales[i] = (i % 3 == 0) ? ldexp(1.0, -(int)etr_diff_range(c, 2, 8))
                             : 0.001 + (double)etr_diff_range(c, 1, 500) * 1e-4;
    zero_points[i] =
        etr_diff_range(c, -q->zero_point_spread, q->zero_point_spread);
  }
  const int64_t sizes[1] = {channels};
  etr_diff_arg(c, tt_ev_tensor(tt_tensor(q->scales_dtype, 1, sizes, scales)));
  if (q->zero_points_dtype == ETR_NUM_SCALAR_TYPES) {
    etr_diff_arg(c, tt_ev_none());
  } else {
    etr_diff_arg(c, tt_ev_tensor(tt_tensor_i64(q->zero_points_dtype, 1, sizes,
                                               zero_points)));
  }
}

static int run_channel(const channel_case_t *q, bool quantize, int32_t rank,
                       const int64_t *sizes, int64_t axis) {
  etr_diff_case_t c;
  etr_diff_begin(&c,
                 quantize ? "quantized_decomposed::quantize_per_channel.out"
                          : "quantized_decomposed::dequantize_per_channel.out",
                 g_seed++, "%s rank %d [%lld..%lld] axis %lld layout %d",
                 etr_scalar_type_name(quantize ? q->float_dtype
                                               : q->quant_dtype),
                 (int)rank, (long long)(rank > 0 ? sizes[0] : 0),
                 (long long)(rank > 0 ? sizes[rank - 1] : 0),
                 (long long)axis, (int)q->layout);
  etr_tensor_t *input =
      etr_diff_input(&c, quantize ? q->float_dtype : q->quant_dtype, rank,
                     sizes, q->layout, q->fill);
  int32_t a = rank > 0 ? (int32_t)((axis + rank) % rank) : 0;
  int64_t channels = rank > 0 && axis >= -rank && axis < rank ? sizes[a] : 1;
  add_channel_params(&c, q, channels);
  etr_diff_arg(&c, tt_ev_int(axis));
  etr_diff_arg(&c, tt_ev_int(q->quant_min));
  etr_diff_arg(&c, tt_ev_int(q->quant_max));
  etr_diff_arg(&c, tt_ev_int(q->quant_dtype));
  if (!quantize) {
    etr_diff_arg(&c, tt_ev_none());
  }
  add_out(&c, quantize ? q->quant_dtype : q->float_dtype, rank, sizes,
          q->layout, input);
  etr_diff_return(&c, quantize ? 7 : 8);
  etr_diff_tolerance_exact(&c);
  return etr_diff_run(&c);
}

static const int64_t kEdges[] = {0, 1, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31,
                                 32, 33, 67, 1031};

TT_TEST(diff_quantize, quantize_per_tensor) {
  int failures = 0;
  static const quant_case_t kCases[] = {
      {ETR_FLOAT, ETR_CHAR, 0.0123, 3, -128, 127, 0, ETR_FILL_RANDOM, false,
       false},
      {ETR_FLOAT, ETR_BYTE, 0.0078125, 128, 0, 255, 0, ETR_FILL_RANDOM, true,
       false},
      {ETR_FLOAT, ETR_CHAR, 0.25, 0, -128, 127, 0, ETR_FILL_RANDOM, true,
       false},
      {ETR_FLOAT, ETR_CHAR, 1e-3, -5, -127, 127, 0, ETR_FILL_SPECIAL, false,
       false},
      {ETR_FLOAT, ETR_BYTE, 1e-3, 200, 0, 255, 0, ETR_FILL_SPECIAL, false,
       true},
      {ETR_FLOAT, ETR_CHAR, 0.5, 100000, -128, 127, 0, ETR_FILL_RANDOM, false,
       true},
      {ETR_FLOAT, ETR_CHAR, 0.01, 0, 10, 5, 0, ETR_FILL_SPECIAL, false,
       false},
      {ETR_FLOAT, ETR_BYTE, 0.0, 7, 3, 250, 0, ETR_FILL_SPECIAL, false,
       false},
  };
  for (size_t k = 0; k < sizeof(kCases) / sizeof(kCases[0]); ++k) {
    for (size_t e = 0; e < sizeof(kEdges) / sizeof(kEdges[0]); ++e) {
      failures += run_quantize(&kCases[k], 1, &kEdges[e]);
    }
  }
  // The model's shapes; channels-last and non-contiguous (fallback);
  // 0-dim; Half input and Short / Int outs (fallback).
  static const int64_t kImage[4] = {1, 16, 32, 32};
  static const int64_t kOdd[4] = {2, 9, 5, 6};
  for (int layout = 0; layout < 3; ++layout) {
    quant_case_t q = kCases[layout % 2];
    q.layout = (etr_diff_layout_t)layout;
    failures += run_quantize(&q, 4, kImage);
    failures += run_quantize(&q, 4, kOdd);
  }
  failures += run_quantize(&kCases[0], 2, (const int64_t[]){1, 10});
  failures += run_quantize(&kCases[0], 0, NULL);
  quant_case_t half = kCases[0];
  half.float_dtype = ETR_HALF;
  failures += run_quantize(&half, 1, &kEdges[9]);
  quant_case_t wide = kCases[0];
  wide.quant_dtype = ETR_SHORT;
  wide.quant_min = -1000;
  wide.quant_max = 1000;
  failures += run_quantize(&wide, 1, &kEdges[9]);
  wide.quant_dtype = ETR_INT;
  failures += run_quantize(&wide, 1, &kEdges[9]);
  // Errors both refuse: bounds outside the dtype, a zero point past int32
  // (the Tensor_out overload checks it after the dry run).
  quant_case_t bad = kCases[1];
  bad.quant_min = -1;
  failures += run_quantize(&bad, 1, &kEdges[9]);
  bad = kCases[0];
  bad.tensor_out = true;
  bad.zero_point = (int64_t)1 << 40;
  failures += run_quantize(&bad, 1, &kEdges[9]);
  // Bounds both accept although quant_max lies below the out dtype's
  // range: every value becomes quant_max, wrapped to the dtype (the
  // fallback; a fuzzer's find: the float clamp converted it out of range).
  static const int64_t kBelow[][2] = {{ETR_CHAR, -1000},
                                      {ETR_CHAR, INT64_MIN},
                                      {ETR_BYTE, -5}};
  for (size_t i = 0; i < 3; ++i) {
    quant_case_t below = kCases[kBelow[i][0] == ETR_CHAR ? 0 : 1];
    below.quant_max = kBelow[i][1];
    failures += run_quantize(&below, 1, &kEdges[9]);
  }
  cr_assert_eq(failures, 0, "%d quantize cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

TT_TEST(diff_quantize, dequantize_per_tensor) {
  int failures = 0;
  static const quant_case_t kCases[] = {
      {ETR_FLOAT, ETR_CHAR, 0.0123, 3, -128, 127, 0, ETR_FILL_RANDOM, true,
       false},
      {ETR_FLOAT, ETR_BYTE, 0.0078125, 128, 0, 255, 0, ETR_FILL_RANDOM, true,
       false},
      {ETR_FLOAT, ETR_CHAR, 3.1e-5, -100, -128, 127, 0, ETR_FILL_SPECIAL,
       false, true},
      {ETR_FLOAT, ETR_BYTE, 1e30, 1 << 29, 0, 255, 0, ETR_FILL_SPECIAL, false,
       true},
      {ETR_FLOAT, ETR_CHAR, 0.7, (1 << 30) + 1, -128, 127, 0,
       ETR_FILL_RANDOM, true, false},
  };
  for (size_t k = 0; k < sizeof(kCases) / sizeof(kCases[0]); ++k) {
    for (size_t e = 0; e < sizeof(kEdges) / sizeof(kEdges[0]); ++e) {
      failures += run_dequantize(&kCases[k], 1, &kEdges[e], e % 2 == 0);
    }
  }
  static const int64_t kImage[4] = {1, 16, 16, 16};
  static const int64_t kOdd[4] = {2, 9, 5, 6};
  for (int layout = 0; layout < 3; ++layout) {
    quant_case_t q = kCases[layout % 2];
    q.layout = (etr_diff_layout_t)layout;
    failures += run_dequantize(&q, 4, kImage, false);
    failures += run_dequantize(&q, 4, kOdd, true);
  }
  failures += run_dequantize(&kCases[0], 2, (const int64_t[]){1, 10}, false);
  failures += run_dequantize(&kCases[0], 0, NULL, false);
  // A Double, Half and BFloat16 out and a Short input (fallback); errors:
  // quant_min > quant_max, a zero point past int32.
  quant_case_t other = kCases[0];
  static const etr_scalar_type_t kOuts[] = {ETR_DOUBLE, ETR_HALF,
                                            ETR_BFLOAT16};
  for (size_t i = 0; i < 3; ++i) {
    other.float_dtype = kOuts[i];
    failures += run_dequantize(&other, 1, &kEdges[9], i == 0);
  }
  other = kCases[0];
  other.quant_dtype = ETR_SHORT;
  failures += run_dequantize(&other, 1, &kEdges[9], false);
  quant_case_t bad = kCases[0];
  bad.quant_min = 5;
  bad.quant_max = 4;
  failures += run_dequantize(&bad, 1, &kEdges[9], false);
  bad = kCases[0];
  bad.zero_point = -((int64_t)1 << 33);
  failures += run_dequantize(&bad, 1, &kEdges[9], false);
  bad.tensor_out = true;
  failures += run_dequantize(&bad, 1, &kEdges[9], false);
  cr_assert_eq(failures, 0, "%d dequantize cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

static int sweep_channels(bool quantize, const channel_case_t *base) {
  int failures = 0;
  // The model's weights ([16, 3, 3, 3], [32, 16, 3, 3], [10, 2048] along
  // axis 0), inner sizes over the lane edges, every axis.
  failures += run_channel(base, quantize, 4, (const int64_t[]){16, 3, 3, 3}, 0);
  failures +=
      run_channel(base, quantize, 4, (const int64_t[]){32, 16, 3, 3}, 0);
  failures += run_channel(base, quantize, 2, (const int64_t[]){10, 2048}, 0);
  for (size_t e = 0; e < sizeof(kEdges) / sizeof(kEdges[0]); ++e) {
    int64_t sizes[3] = {2, 5, kEdges[e] > 100 ? 37 : kEdges[e]};
    for (int64_t axis = -1; axis < 3; ++axis) {
      failures += run_channel(base, quantize, 3, sizes, axis);
    }
  }
  static const int64_t kOdd[4] = {2, 9, 5, 6};
  for (int layout = 0; layout < 3; ++layout) {
    channel_case_t q = *base;
    q.layout = (etr_diff_layout_t)layout;
    for (int64_t axis = 0; axis < 4; ++axis) {
      failures += run_channel(&q, quantize, 4, kOdd, axis);
    }
  }
  // A bad axis and a 0-dim input (both refuse).
  failures += run_channel(base, quantize, 2, (const int64_t[]){3, 4}, 2);
  failures += run_channel(base, quantize, 0, NULL, 0);
  return failures;
}

TT_TEST(diff_quantize, quantize_per_channel) {
  int failures = 0;
  static const channel_case_t kCases[] = {
      {ETR_FLOAT, ETR_CHAR, ETR_DOUBLE, ETR_LONG, 0, -127, 127, 0,
       ETR_FILL_RANDOM},
      {ETR_FLOAT, ETR_BYTE, ETR_DOUBLE, ETR_LONG, 100, 0, 255, 0,
       ETR_FILL_SPECIAL},
      {ETR_FLOAT, ETR_CHAR, ETR_DOUBLE, ETR_LONG, 5, -128, 127, 0,
       ETR_FILL_EXACT_INT},
  };
  for (size_t k = 0; k < sizeof(kCases) / sizeof(kCases[0]); ++k) {
    failures += sweep_channels(true, &kCases[k]);
  }
  // Half input and a Short out (fallback).
  channel_case_t other = kCases[0];
  other.float_dtype = ETR_HALF;
  failures += run_channel(&other, true, 2, (const int64_t[]){4, 17}, 0);
  other = kCases[0];
  other.quant_dtype = ETR_SHORT;
  failures += run_channel(&other, true, 2, (const int64_t[]){4, 17}, 0);
  cr_assert_eq(failures, 0, "%d quantize_per_channel cases disagree",
               failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

TT_TEST(diff_quantize, dequantize_per_channel) {
  int failures = 0;
  static const channel_case_t kCases[] = {
      {ETR_FLOAT, ETR_CHAR, ETR_DOUBLE, ETR_LONG, 0, -127, 127, 0,
       ETR_FILL_SPECIAL},
      {ETR_FLOAT, ETR_BYTE, ETR_FLOAT, ETR_INT, 100, 0, 255, 0,
       ETR_FILL_RANDOM},
      {ETR_FLOAT, ETR_CHAR, ETR_DOUBLE, ETR_NUM_SCALAR_TYPES, 0, -128, 127,
       0, ETR_FILL_RANDOM},
  };
  for (size_t k = 0; k < sizeof(kCases) / sizeof(kCases[0]); ++k) {
    failures += sweep_channels(false, &kCases[k]);
  }
  // A Double out, zero points past 2^30 (fallback) and past int32 (both
  // refuse).
  channel_case_t other = kCases[0];
  other.float_dtype = ETR_DOUBLE;
  failures += run_channel(&other, false, 2, (const int64_t[]){4, 17}, 0);
  other = kCases[0];
  other.zero_point_spread = (int64_t)1 << 31;
  failures += run_channel(&other, false, 2, (const int64_t[]){4, 17}, 0);
  other.zero_point_spread = (int64_t)1 << 40;
  failures += run_channel(&other, false, 2, (const int64_t[]){4, 17}, 0);
  cr_assert_eq(failures, 0, "%d dequantize_per_channel cases disagree",
               failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}
