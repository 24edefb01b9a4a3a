// SPDX-License-Identifier: Apache-2.0
//
// The 5x5 stride-2 depthwise kernel on wide rows
// (ops_optimized/conv/depthwise5x5_s2_wide_avx512.c) through
// aten::convolution.out against the reference kernel on every ISA of this
// machine (conv_test_util.h): row widths around its blocks of 32 inputs
// and 16 outputs (33 its least, 48 and 64 a block's end, 1025 many blocks
// and a one-input tail), heights 1 to 9 (one output row alone, pairs of
// output rows and a last odd one, input rows above and below the image),
// the bench's 72x56x56 and EfficientNet's 144x56x56 layers, a channel
// multiplier, bias or none, a batch of 2. Each case: random floats within
// the accumulation bound, exact small integers with NaN, +-inf and -0.0
// in the input bit for bit, and one inf weight (the op takes that to a
// path that multiplies the padding in). On x86 the test first checks that
// the kernel takes each geometry, and that it leaves other ones alone.
#include <criterion/criterion.h>

#include "ops_optimized/test/conv_test_util.h"

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

#if defined(__x86_64__)
#define TAKES etr_depthwise5x5_s2_wide_nchw_avx512_applies
#else
#define TAKES NULL
#endif

static const int64_t kWidths[] = {33, 34, 35,  47,  48,  49,   56,  63,
                                  64, 65, 66,  95,  96,  97,   112, 113,
                                  127, 128, 129, 1024, 1025};

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
      {1, 16, 56, 32, 16, 5, 5, 2, 2, 1, 16, true},
      {1, 16, 56, 56, 16, 5, 5, 2, 1, 1, 16, true},
      {1, 16, 56, 56, 16, 5, 5, 1, 2, 1, 16, true},
      {1, 16, 56, 56, 16, 3, 3, 2, 1, 1, 16, true},
      {1, 16, 56, 56, 16, 7, 7, 2, 3, 1, 16, true},
      {1, 16, 56, 56, 16, 5, 5, 2, 2, 2, 16, true},
  };
  check_declined(cases, COUNT(cases), TAKES);
}
