// SPDX-License-Identifier: Apache-2.0
//
// The 16-channel whole-plane depthwise kernel
// (ops_optimized/conv/depthwise_channel_planes_avx512.c) through
// aten::convolution.out against the reference kernel on every ISA of this
// machine (conv_test_util.h): the shape it compiles (5x5 at stride 1 on
// 4x4, padding 2) with channel counts that are and are not multiples of 16
// (a last group of 1 to 15 channels: 17, 31, 33, and the datasets' 120),
// bias or none, a batch of 2. Each case:
// random floats within the accumulation bound, exact small integers with
// NaN, +-inf and -0.0 in the input bit for bit, and one inf weight (the op
// takes that to a path that multiplies the padding in). On x86 the test
// first checks that the kernel takes each geometry, and that it leaves
// other shapes to the other kernels.
#include <criterion/criterion.h>

#include "ops_optimized/test/conv_test_util.h"

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

#if defined(__x86_64__)
#define TAKES etr_depthwise_channel_planes_nchw_avx512_applies
#else
#define TAKES NULL
#endif

TT_TEST(diff_depthwise_channel_planes, shapes_and_channels) {
  // n, c, h, w, oc, kh, kw, stride, pad, dilation, groups, bias
  static const conv_case_t cases[] = {
      {1, 120, 4, 4, 120, 5, 5, 1, 2, 1, 120, false},   // the datasets'
      {1, 16, 4, 4, 16, 5, 5, 1, 2, 1, 16, true},       // one group
      {1, 17, 4, 4, 17, 5, 5, 1, 2, 1, 17, true},       // 16 + 1
      {2, 31, 4, 4, 31, 5, 5, 1, 2, 1, 31, false},      // 16 + 15, batch 2
      {1, 33, 4, 4, 33, 5, 5, 1, 2, 1, 33, true},       // 2 x 16 + 1
      {2, 24, 4, 4, 24, 5, 5, 1, 2, 1, 24, true},       // batch 2
      {1, 64, 4, 4, 64, 5, 5, 1, 2, 1, 64, false},
  };
  int failures = run_taken_cases(cases, COUNT(cases), TAKES);
  cr_assert_eq(failures, 0, "%d whole-plane depthwise cases disagree",
               failures);
}

// Shapes without a compiled kernel: other sizes, padding, strides,
// kernels and dilation, and 8x8 at stride 2 (the parity-split plane
// kernel's since 2026-12-05).
TT_TEST(diff_depthwise_channel_planes, declines) {
  static const conv_case_t cases[] = {
      {1, 96, 8, 8, 96, 5, 5, 2, 2, 1, 96, false},
      {1, 32, 7, 7, 32, 5, 5, 2, 2, 1, 32, true},
      {1, 32, 8, 8, 32, 5, 5, 1, 2, 1, 32, true},
      {1, 32, 4, 4, 32, 5, 5, 2, 2, 1, 32, true},
      {1, 32, 8, 8, 32, 5, 5, 2, 1, 1, 32, true},
      {1, 32, 8, 8, 32, 3, 3, 2, 1, 1, 32, true},
      {1, 32, 4, 4, 32, 3, 3, 1, 1, 1, 32, true},
      {1, 32, 8, 8, 32, 5, 5, 2, 4, 2, 32, true},
      {1, 32, 8, 4, 32, 5, 5, 2, 2, 1, 32, true},
  };
  check_declined(cases, COUNT(cases), TAKES);
}
