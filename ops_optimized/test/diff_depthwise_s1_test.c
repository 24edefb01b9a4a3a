// SPDX-License-Identifier: Apache-2.0
//
// The stride-1, padding-1 depthwise 3x3 kernels (fp32 NCHW) against the
// reference, on every ISA of this machine (diff.h): every plane shape
// from the widths and heights 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31,
// 32, 33, 112 (on AVX-512: planes of at most 64 in registers, rows of
// 8..16 one vector each, wider rows walked row by row, two at a time),
// 1..4 channels, a channel multiplier of 1 or 2, bias or none; random
// data within the accumulation bound, small integers bit for bit with
// NaN, +-inf and -0.0 poked in; channels-last and strided inputs (other
// kernels). Then the kernels called directly with gaps between the rows
// of the input and of the out, which must stay untouched.
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/isa.h"
#include "ops_optimized/test/diff.h"

static uint64_t g_seed = 91000;

typedef struct plane_case {
  int64_t channels, height, width, multiplier;
  bool bias;
  etr_diff_layout_t layout;
  etr_diff_layout_t weight_layout;
  etr_diff_fill_t fill;
  bool specials;  // NaN, inf and -0.0 in the (exact) input
} plane_case_t;

// aten::convolution.out, 3x3, stride 1, padding 1, groups = channels.
static int run_case(const plane_case_t *p) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::convolution.out", g_seed++,
                 "dw3x3 s1 [1,%lld,%lld,%lld] x%lld%s l%d w%d f%d%s",
                 (long long)p->channels, (long long)p->height,
                 (long long)p->width, (long long)p->multiplier,
                 p->bias ? " bias" : "", (int)p->layout,
                 (int)p->weight_layout, (int)p->fill,
                 p->specials ? " specials" : "");
  const int64_t out_channels = p->channels * p->multiplier;
  etr_tensor_t *input = etr_diff_input(
      &c, ETR_FLOAT, 4,
      (const int64_t[]){1, p->channels, p->height, p->width}, p->layout,
      p->fill);
  if (p->specials) {
    float *data = (float *)input->data;
    const int64_t numel = etr_tensor_numel(input);
    data[numel / 2] = NAN;
    data[numel - 1] = INFINITY;
    data[numel / 3] = -INFINITY;
    data[0] = -0.0f;
    data[numel / 5] = -0.0f;
  }
  etr_diff_input(&c, ETR_FLOAT, 4, (const int64_t[]){out_channels, 1, 3, 3},
                 p->weight_layout, p->fill);
  if (p->bias) {
    etr_diff_input(&c, ETR_FLOAT, 1, (const int64_t[]){out_channels},
                   ETR_DIFF_CONTIGUOUS, p->fill);
  } else {
    etr_diff_arg(&c, tt_ev_none());
  }
  c.layout = p->layout;
  c.dtype = ETR_FLOAT;
  etr_diff_arg(&c, TT_EV_INTS(1, 1));  // stride
  etr_diff_arg(&c, TT_EV_INTS(1, 1));  // padding
  etr_diff_arg(&c, TT_EV_INTS(1, 1));  // dilation
  etr_diff_arg(&c, tt_ev_bool(false));
  etr_diff_arg(&c, TT_EV_INTS(0, 0));
  etr_diff_arg(&c, tt_ev_int(p->channels));
  etr_diff_out(&c, ETR_FLOAT, 4,
               (const int64_t[]){1, out_channels, p->height, p->width},
               p->layout == ETR_DIFF_CHANNELS_LAST ? p->layout
                                                   : ETR_DIFF_CONTIGUOUS,
               0);
  etr_diff_return(&c, 9);
  if (p->fill == ETR_FILL_EXACT_INT) {
    etr_diff_tolerance_exact(&c);
  } else {  // nine products and the bias
    etr_diff_tolerance_bound(
        &c, etr_diff_accumulation_bound(ETR_FLOAT, 10, 1.0, 1.0) + 0x1p-24,
        0x1p-23);
  }
  return etr_diff_run(&c);
}

static const int64_t kSizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32,
                                 33, 112};
enum { kNumSizes = sizeof(kSizes) / sizeof(kSizes[0]) };

// Every width x height of kSizes (112 x 112 once, the rest with
// 1..4 channels in turn), contiguous, random and exact data.
TT_TEST(diff_depthwise_s1, plane_shapes) {
  int failures = 0;
  int run = 0;
  for (int i = 0; i < kNumSizes; ++i) {
    for (int j = 0; j < kNumSizes; ++j) {
      ++run;
      const bool large = kSizes[i] * kSizes[j] > 64 * 64;
      plane_case_t p = {large ? 2 : 1 + run % 4,
                        kSizes[i],
                        kSizes[j],
                        1 + run % 2 * (large ? 0 : 1),
                        run % 3 != 0,
                        ETR_DIFF_CONTIGUOUS,
                        ETR_DIFF_CONTIGUOUS,
                        ETR_FILL_RANDOM,
                        false};
      failures += run_case(&p);
      p.fill = ETR_FILL_EXACT_INT;
      p.specials = true;
      p.bias = !p.bias;
      failures += run_case(&p);
    }
  }
  cr_assert_eq(failures, 0, "%d depthwise cases disagree", failures);
}

// Many channels (the register-plane kernels take two per iteration; odd
// counts leave one), the other input layouts, which other kernels take,
// and a strided weight (taps not at constant offsets).
TT_TEST(diff_depthwise_s1, channels_and_layouts) {
  static const int64_t shapes[][2] = {{4, 4},  {8, 8},   {16, 16},
                                      {32, 32}, {5, 40}, {3, 17}};
  int failures = 0;
  for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); ++s) {
    for (int64_t channels = 1; channels <= 9; channels += 2) {
      // Layouts 0..2 of the input, then a contiguous input with a
      // strided weight (the register-plane kernel's general taps).
      for (int layout = 0; layout < 4; ++layout) {
        plane_case_t p = {channels,
                          shapes[s][0],
                          shapes[s][1],
                          1 + channels % 2,
                          channels % 3 == 0,
                          (etr_diff_layout_t)(layout % 3),
                          layout == 3 ? ETR_DIFF_NONCONTIGUOUS
                                      : ETR_DIFF_CONTIGUOUS,
                          ETR_FILL_RANDOM,
                          false};
        failures += run_case(&p);
        p.fill = ETR_FILL_EXACT_INT;
        p.specials = layout == ETR_DIFF_CONTIGUOUS;
        failures += run_case(&p);
      }
    }
  }
  cr_assert_eq(failures, 0, "%d depthwise cases disagree", failures);
}

// out[c] of input channel c / multiplier, 3x3 taps inside the image,
// exact data: any order gives these bits.
static float expected(const float *in, int64_t in_row, const float *w,
                      const float *bias, int64_t h, int64_t width,
                      int64_t oh, int64_t ow) {
  float sum = 0.0f;
  for (int64_t kh = 0; kh < 3; ++kh) {
    for (int64_t kw = 0; kw < 3; ++kw) {
      const int64_t ih = oh + kh - 1;
      const int64_t iw = ow + kw - 1;
      if (ih >= 0 && ih < h && iw >= 0 && iw < width) {
        sum += w[kh * 3 + kw] * in[ih * in_row + iw];
      }
    }
  }
  return bias != NULL ? sum + *bias : sum;
}

// The kernel of each ISA called directly with input rows `in_row` floats
// apart (wider than the plane's), and on AVX-512 with rows wider than 16
// out rows `out_row` apart: the gaps are not the plane's and must keep
// their values. Three channels.
TT_TEST(diff_depthwise_s1, kernel_row_gaps) {
  static const int64_t shapes[][2] = {{1, 17}, {2, 33}, {5, 31}, {6, 16},
                                      {3, 9},  {7, 64}, {4, 112}, {8, 8}};
  enum { kChannels = 3, kGap = 5, kMax = 8 * (112 + kGap) };
  static float input[kChannels * kMax];
  static float out[kChannels * kMax];
  static float weight[kChannels * 9];
  static float bias[kChannels];
  for (int64_t i = 0; i < kChannels * kMax; ++i) {
    input[i] = (float)((i * 7919) % 9) - 4.0f;
  }
  for (int64_t i = 0; i < kChannels * 9; ++i) {
    weight[i] = (float)((i * 31) % 7) - 3.0f;
  }
  for (int64_t i = 0; i < kChannels; ++i) {
    bias[i] = (float)i - 1.0f;
  }
  int checked = 0;
  for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
    if (!etr_isa_available((etr_isa_t)isa)) {
      continue;
    }
    etr_depthwise_fn kernel = etr_depthwise_for((etr_isa_t)isa, false);
    for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); ++s) {
      const int64_t h = shapes[s][0];
      const int64_t width = shapes[s][1];
      const int64_t in_row = width + kGap;
      // Rows apart in the out too for the row-by-row kernel (the others
      // write dense planes, as the op's outs are).
      const int64_t out_row =
          isa == ETR_ISA_AVX512 && width > 16 ? width + kGap - 2 : width;
      etr_conv2d_geometry_t g = {
          .channels = 1, .in_h = h, .in_w = width, .out_h = h,
          .out_w = width, .kernel_h = 3, .kernel_w = 3, .stride_h = 1,
          .stride_w = 1, .pad_h = 1, .pad_w = 1, .dilation_h = 1,
          .dilation_w = 1, .in_stride_c = h * in_row, .in_stride_h = in_row,
          .in_stride_w = 1, .w_stride_oc = 9, .w_stride_c = 9,
          .w_stride_h = 3, .w_stride_w = 1};
      for (int64_t e = 0; e < kChannels * kMax; ++e) {
        out[e] = 12345.0f;
      }
      const bool with_bias = s % 2 == 0;
      etr_depthwise_args_t a = {
          .geometry = &g, .input = input, .weight = weight,
          .bias = with_bias ? bias : NULL, .bias_stride = 1, .out = out,
          .out_stride_c = h * out_row, .out_stride_h = out_row,
          .out_stride_w = 1, .channels = kChannels, .multiplier = 1};
      kernel(&a);
      for (int64_t c = 0; c < kChannels; ++c) {
        for (int64_t oh = 0; oh < h; ++oh) {
          for (int64_t ow = 0; ow < a.out_stride_h; ++ow) {
            const float got =
                out[c * a.out_stride_c + oh * a.out_stride_h + ow];
            const float want =
                ow >= width ? 12345.0f
                            : expected(input + c * g.in_stride_c, in_row,
                                       weight + c * 9,
                                       with_bias ? bias + c : NULL, h, width,
                                       oh, ow);
            cr_expect(got == want,
                      "isa %d %lldx%lld channel %lld at (%lld, %lld): %g vs "
                      "%g",
                      isa, (long long)h, (long long)width, (long long)c,
                      (long long)oh, (long long)ow, (double)got,
                      (double)want);
            ++checked;
          }
        }
      }
      cr_expect(out[kChannels * a.out_stride_c] == 12345.0f,
                "isa %d: wrote past the last plane", isa);
    }
  }
  cr_assert_gt(checked, 0);
}
