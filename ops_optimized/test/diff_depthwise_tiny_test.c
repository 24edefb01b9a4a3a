// SPDX-License-Identifier: Apache-2.0
//
// The tiny-plane depthwise kernel (ops_optimized/conv/depthwise_tiny_avx512.c)
// through aten::convolution.out against the reference kernel on every ISA
// of this machine (conv_test_util.h): planes of one, two and four vectors
// of input (4x4, 5x5, 6x6 to 8x8), 2 to 16 outputs, 5x5 and 7x7 kernels
// at stride 1, 2 and 3, 2x2 and 4x4 kernels, dilation 2, padding 0 to 3,
// channel counts that leave a tail after the groups of 4 and 8, a channel
// multiplier of 2, a batch of 2. Each case: random floats within the
// accumulation bound, exact small integers with NaN, +-inf and -0.0 in the
// input bit for bit, and one inf weight. On x86 the test first checks
// that the kernel takes each geometry.
#include <criterion/criterion.h>

#include "ops_optimized/test/conv_test_util.h"

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

#if defined(__x86_64__)
#define TAKES etr_depthwise_tiny_nchw_avx512_applies
#else
#define TAKES NULL
#endif

TT_TEST(diff_depthwise_tiny, kernels_planes_groups) {
  // n, c, h, w, oc, kh, kw, stride, pad, dilation, groups, bias
  static const conv_case_t cases[] = {
      {1, 120, 4, 4, 120, 5, 5, 1, 2, 1, 120, true},  // 1 vector, 15 x 8
      {1, 96, 8, 8, 96, 5, 5, 2, 2, 1, 96, true},     // 4 vectors, 24 x 4
      {1, 13, 5, 5, 13, 5, 5, 2, 2, 1, 13, false},    // 2 vectors, 3x3 out
      {1, 9, 7, 7, 9, 7, 7, 2, 3, 1, 9, true},        // 7x7 s2, 4x4 out
      {1, 11, 4, 4, 11, 7, 7, 1, 3, 1, 11, false},    // 7x7 s1, 49 taps
      {1, 8, 4, 4, 8, 3, 3, 1, 2, 2, 8, true},        // dilation 2
      {1, 8, 4, 4, 8, 2, 2, 1, 0, 1, 8, false},       // 2x2, no padding
      {1, 8, 8, 8, 8, 4, 4, 3, 1, 1, 8, true},        // stride 3
      {1, 6, 4, 4, 12, 5, 5, 1, 2, 1, 6, true},       // multiplier 2
      {2, 10, 6, 6, 10, 5, 5, 2, 2, 1, 10, false},    // batch 2, 36 inputs
      {1, 5, 3, 3, 5, 5, 5, 1, 1, 1, 5, true},        // 3x3 -> 1x1 outputs
  };
  int failures = run_taken_cases(cases, COUNT(cases), TAKES);
  cr_assert_eq(failures, 0, "%d tiny depthwise cases disagree", failures);
}

// Left to the other kernels: more than 16 outputs, more than 64 inputs.
TT_TEST(diff_depthwise_tiny, declines) {
  static const conv_case_t cases[] = {
      {1, 8, 8, 8, 8, 5, 5, 1, 2, 1, 8, false},
      {1, 8, 9, 9, 8, 5, 5, 3, 2, 1, 8, false},
      {1, 8, 14, 14, 8, 5, 5, 2, 2, 1, 8, false},
  };
  check_declined(cases, COUNT(cases), TAKES);
}
