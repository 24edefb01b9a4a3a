// SPDX-License-Identifier: Apache-2.0
//
// The 5x5 stride-2 depthwise kernel on wide rows
// (ops_optimized/conv/depthwise5x5_s2_wide_avx512.c) through
// aten::convolution.out against the reference kernel on every ISA of this
// machine (conv_test_util.h): row widths around its blocks of 32 inputs
// and 16 outputs (17 its least, 32, 48 and 64 a block's end, 1025 many
// blocks and a one-input tail; up to 32 and up to 64 its loops of a row's
// one or two blocks at once),
// heights 1 to 9 (one output row alone, pairs of output rows and a last
// odd one, input rows above and below the image),
// the bench's 72x56x56 and EfficientNet's 144x56x56 layers, a channel
// multiplier, bias or none, a batch of 2. Each case: random floats within
// the accumulation bound, exact small integers with NaN, +-inf and -0.0
// in the input bit for bit, and one inf weight (the op takes that to a
// path that multiplies the padding in). On x86 the test first checks that
// the kernel takes each geometry, and that it leaves other ones alone.
// The same for the register-plane kernel of even planes of at most 64
// inputs (depthwise5x5_s2_plane_avx512.c): every such shape (the 8x8
// in-lane split and the generic one, planes of at most 32 inputs in two
// vectors), channel counts 1 to 5 and the datasets' 96 (odd tails of its
// two-channel steps), a multiplier, batches of 2. And the stride-1 kernel
// of square planes of 12 to 16 (depthwise5x5_same_avx512.c): every size
// with 1 to 3 and 17 channels (its out rows of 12 to 16 lanes, the
// masked loads of each kernel column at both edges), a multiplier, bias
// or none, batches of 2, the 672x14x14 and 256x16x16 layers; and the
// geometries it leaves to the others.
#include <criterion/criterion.h>

#include "ops_optimized/test/conv_test_util.h"

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

#if defined(__x86_64__)
#define TAKES etr_depthwise5x5_s2_wide_nchw_avx512_applies
#define TAKES_PLANE etr_depthwise5x5_s2_plane_nchw_avx512_applies
#define TAKES_SAME etr_depthwise5x5_same_nchw_avx512_applies
#else
#define TAKES NULL
#define TAKES_PLANE NULL
#define TAKES_SAME NULL
#endif

static const int64_t kWidths[] = {17,  18,  19,  24,  28,  31,  32,
                                  33,  34,  35,  47,  48,  49,  56,
                                  63,  64,  65,  66,  95,  96,  97,
                                  112, 113, 127, 128, 129, 1024, 1025};

TT_TEST(diff_depthwise5x5_s2, widths_and_heights) {
  int failures = 0;
  int run = 0;
  for (size_t i = 0; i < COUNT(kWidths); ++i) {
    const int64_t w = kWidths[i];
    const int64_t top = w > 200 ? 3 : 9;
    for (int64_t h = 1; h <= top; ++h) {
      ++run;
      const int64_t c = 1 + run % 3;
      const int64_t multiplier = run % 4 == 0 ? 2 : 1;
      // n, c, h, w, oc, kh, kw, stride, pad, dilation, groups, bias
      const conv_case_t p = {1 + (run % 13 == 0), c, h, w, c * multiplier,
                             5, 5, 2, 2, 1, c, run % 2 == 0};
      failures += run_taken_cases(&p, 1, TAKES);
    }
  }
  cr_assert_gt(run, 150);
  cr_assert_eq(failures, 0, "%d 5x5 stride-2 cases disagree", failures);
}

TT_TEST(diff_depthwise5x5_s2, layer_shapes) {
  // n, c, h, w, oc, kh, kw, stride, pad, dilation, groups, bias
  static const conv_case_t cases[] = {
      {1, 72, 56, 56, 72, 5, 5, 2, 2, 1, 72, true},
      {1, 144, 56, 56, 144, 5, 5, 2, 2, 1, 144, false},
      {1, 8, 57, 41, 8, 5, 5, 2, 2, 1, 8, true},   // odd sizes
      {2, 3, 20, 70, 6, 5, 5, 2, 2, 1, 3, false},  // multiplier 2
  };
  int failures = run_taken_cases(cases, COUNT(cases), TAKES);
  cr_assert_eq(failures, 0, "%d 5x5 stride-2 layers disagree", failures);
}

// Narrow rows, other padding, stride, kernel size and dilation go to the
// other kernels.
TT_TEST(diff_depthwise5x5_s2, declines) {
  static const conv_case_t cases[] = {
      {1, 16, 56, 16, 16, 5, 5, 2, 2, 1, 16, true},
      {1, 16, 56, 56, 16, 5, 5, 2, 1, 1, 16, true},
      {1, 16, 56, 56, 16, 5, 5, 1, 2, 1, 16, true},
      {1, 16, 56, 56, 16, 3, 3, 2, 1, 1, 16, true},
      {1, 16, 56, 56, 16, 7, 7, 2, 3, 1, 16, true},
      {1, 16, 56, 56, 16, 5, 5, 2, 2, 2, 16, true},
  };
  check_declined(cases, COUNT(cases), TAKES);
}

TT_TEST(diff_depthwise5x5_s2, register_planes) {
  int failures = 0;
  int run = 0;
  for (int64_t h = 2; h <= 32; h += 2) {
    for (int64_t w = 2; h * w <= 64; w += 2) {
      for (int64_t c = 1; c <= 5; c += 2) {
        ++run;
        const int64_t multiplier = run % 4 == 0 ? 2 : 1;
        // n, c, h, w, oc, kh, kw, stride, pad, dilation, groups, bias
        const conv_case_t p = {1 + (run % 5 == 0), c + run % 2, h, w,
                               (c + run % 2) * multiplier, 5, 5, 2, 2, 1,
                               c + run % 2, run % 3 != 0};
        failures += run_taken_cases(&p, 1, TAKES_PLANE);
      }
    }
  }
  // n, c, h, w, oc, kh, kw, stride, pad, dilation, groups, bias
  static const conv_case_t layers[] = {
      {1, 96, 8, 8, 96, 5, 5, 2, 2, 1, 96, false},  // the datasets'
      {2, 33, 8, 8, 33, 5, 5, 2, 2, 1, 33, true},
      {1, 7, 8, 8, 21, 5, 5, 2, 2, 1, 7, true},     // multiplier 3
      {1, 96, 6, 6, 96, 5, 5, 2, 2, 1, 96, true},
      {1, 96, 4, 4, 96, 5, 5, 2, 2, 1, 96, false},
  };
  failures += run_taken_cases(layers, COUNT(layers), TAKES_PLANE);
  cr_assert_gt(run, 50);
  cr_assert_eq(failures, 0, "%d 5x5 stride-2 plane cases disagree",
               failures);
}

// One register-plane case with the weight strided (the 8x8 split's loop
// for weights other than 25 dense floats a channel): random floats within
// the bound, then exact integers bit for bit.
static int run_strided_weight(int64_t channels, int64_t h, int64_t w,
                              bool bias) {
  int failures = 0;
  for (int f = 0; f < 2; ++f) {
    const etr_diff_fill_t fill = f == 0 ? ETR_FILL_RANDOM : ETR_FILL_EXACT_INT;
    etr_diff_case_t c;
    etr_diff_begin(&c, "aten::convolution.out", g_seed++,
                   "dw5x5 s2 plane c%lld %lldx%lld%s strided weight f%d",
                   (long long)channels, (long long)h, (long long)w,
                   bias ? " bias" : "", (int)fill);
    etr_diff_input(&c, ETR_FLOAT, 4, (const int64_t[]){1, channels, h, w},
                   ETR_DIFF_CONTIGUOUS, fill);
    etr_diff_input(&c, ETR_FLOAT, 4, (const int64_t[]){channels, 1, 5, 5},
                   ETR_DIFF_NONCONTIGUOUS, fill);
    if (bias) {
      etr_diff_input(&c, ETR_FLOAT, 1, (const int64_t[]){channels},
                     ETR_DIFF_CONTIGUOUS, fill);
    } else {
      etr_diff_arg(&c, tt_ev_none());
    }
    etr_diff_arg(&c, TT_EV_INTS(2, 2));
    etr_diff_arg(&c, TT_EV_INTS(2, 2));
    etr_diff_arg(&c, TT_EV_INTS(1, 1));
    etr_diff_arg(&c, tt_ev_bool(false));
    etr_diff_arg(&c, TT_EV_INTS(0, 0));
    etr_diff_arg(&c, tt_ev_int(channels));
    etr_diff_out(&c, ETR_FLOAT, 4,
                 (const int64_t[]){1, channels, h / 2, w / 2},
                 ETR_DIFF_CONTIGUOUS, 0);
    etr_diff_return(&c, 9);
    c.dtype = ETR_FLOAT;
    if (fill == ETR_FILL_RANDOM) {
      etr_diff_tolerance_bound(
          &c, etr_diff_accumulation_bound(ETR_FLOAT, 26, 1.0, 1.0) + 0x1p-24,
          2.0 * 0x1p-24);
    } else {
      etr_diff_tolerance_exact(&c);
    }
    failures += etr_diff_run(&c);
  }
  return failures;
}

TT_TEST(diff_depthwise5x5_s2, register_planes_strided_weight) {
  int failures = 0;
  for (int64_t channels = 1; channels <= 5; ++channels) {
    failures += run_strided_weight(channels, 8, 8, channels % 2 == 1);
    failures += run_strided_weight(channels, 6, 4, channels % 2 == 0);
  }
  failures += run_strided_weight(96, 8, 8, true);
  cr_assert_eq(failures, 0, "%d strided-weight plane cases disagree",
               failures);
}

// Odd sizes, planes past 64 inputs, other padding or strides.
TT_TEST(diff_depthwise5x5_s2, register_planes_decline) {
  static const conv_case_t cases[] = {
      {1, 16, 7, 7, 16, 5, 5, 2, 2, 1, 16, true},
      {1, 16, 8, 10, 16, 5, 5, 2, 2, 1, 16, true},
      {1, 16, 2, 34, 16, 5, 5, 2, 2, 1, 16, true},
      {1, 16, 8, 8, 16, 5, 5, 2, 1, 1, 16, true},
      {1, 16, 8, 8, 16, 5, 5, 1, 2, 1, 16, true},
      {1, 16, 8, 8, 16, 3, 3, 2, 1, 1, 16, true},
      {1, 16, 8, 8, 16, 5, 5, 2, 2, 2, 16, true},
  };
  check_declined(cases, COUNT(cases), TAKES_PLANE);
}

TT_TEST(diff_depthwise5x5_same, sizes_and_channels) {
  static const int64_t kChannels[] = {1, 2, 3, 17};
  int failures = 0;
  int run = 0;
  for (int64_t size = 12; size <= 16; ++size) {
    for (size_t i = 0; i < COUNT(kChannels); ++i) {
      ++run;
      const int64_t c = kChannels[i];
      const int64_t multiplier = run % 3 == 0 ? 2 : 1;
      // n, c, h, w, oc, kh, kw, stride, pad, dilation, groups, bias
      const conv_case_t p = {1 + (run % 4 == 0), c, size, size,
                             c * multiplier, 5, 5, 1, 2, 1, c,
                             run % 2 == 0};
      failures += run_taken_cases(&p, 1, TAKES_SAME);
    }
  }
  // n, c, h, w, oc, kh, kw, stride, pad, dilation, groups, bias
  static const conv_case_t layers[] = {
      {1, 672, 14, 14, 672, 5, 5, 1, 2, 1, 672, false},
      {1, 256, 16, 16, 256, 5, 5, 1, 2, 1, 256, true},
  };
  failures += run_taken_cases(layers, COUNT(layers), TAKES_SAME);
  cr_assert_eq(run, 20);
  cr_assert_eq(failures, 0, "%d 5x5 stride-1 square-plane cases disagree",
               failures);
}

// Other sizes, non-square planes, stride, padding, kernel size and
// dilation go to the other kernels.
TT_TEST(diff_depthwise5x5_same, declines) {
  // n, c, h, w, oc, kh, kw, stride, pad, dilation, groups, bias
  static const conv_case_t cases[] = {
      {1, 16, 11, 11, 16, 5, 5, 1, 2, 1, 16, true},
      {1, 16, 17, 17, 16, 5, 5, 1, 2, 1, 16, true},
      {1, 16, 14, 13, 16, 5, 5, 1, 2, 1, 16, true},
      {1, 16, 14, 14, 16, 5, 5, 2, 2, 1, 16, true},
      {1, 16, 14, 14, 16, 5, 5, 1, 1, 1, 16, true},
      {1, 16, 14, 14, 16, 3, 3, 1, 1, 1, 16, true},
      {1, 16, 14, 14, 16, 7, 7, 1, 3, 1, 16, true},
      {1, 16, 14, 14, 16, 5, 5, 1, 2, 2, 16, true},
  };
  check_declined(cases, COUNT(cases), TAKES_SAME);
}
