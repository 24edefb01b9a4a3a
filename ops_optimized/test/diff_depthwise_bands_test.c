// SPDX-License-Identifier: Apache-2.0
//
// The stride-1 band depthwise kernel
// (ops_optimized/conv/depthwise_bands_avx512.c) through
// aten::convolution.out against the reference kernel on every ISA of this
// machine (conv_test_util.h): 5x5 and 7x7 kernels (and 5x3, 7x1, 5x1) at
// stride 1 and 2 on planes of one to four column vectors (the last one
// partial), one to five bands of out rows (and a shorter last band),
// padding 0 to 4 (past the kernel's reach: reads run into the next row's
// left padding), odd and even padding and widths at stride 2 (the copy's
// split into even and odd columns, in chunks of 32), a channel multiplier
// of 2, a batch of 2. Each case:
// random floats within the accumulation bound, exact small integers with
// NaN, +-inf and -0.0 in the input bit for bit, and one inf weight (the
// op's weight scan then sends padded cases to the GEMM: NaN borders). On
// x86 the test first checks that the kernel takes each geometry.
#include <criterion/criterion.h>

#include "ops_optimized/test/conv_test_util.h"

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

#if defined(__x86_64__)
#define TAKES etr_depthwise_bands_nchw_avx512_applies
#else
#define TAKES NULL
#endif

TT_TEST(diff_depthwise_bands, kernels_planes_bands) {
  // n, c, h, w, oc, kh, kw, stride, pad, dilation, groups, bias
  static const conv_case_t cases[] = {
      {1, 12, 13, 14, 12, 5, 5, 1, 2, 1, 12, true},   // one band, 14 wide
      {1, 4, 30, 30, 4, 5, 5, 1, 2, 1, 4, false},     // 2 columns, 15 + 15
      {1, 3, 33, 20, 3, 5, 5, 1, 2, 1, 3, true},      // 3 bands of 11
      {1, 2, 56, 56, 2, 7, 7, 1, 3, 1, 2, true},      // 4 x 14, 4 columns
      {1, 8, 12, 12, 8, 7, 7, 1, 3, 1, 8, false},     // 7x7, 12 rows
      {1, 5, 17, 17, 5, 7, 7, 1, 3, 1, 5, true},      // 9 + 8 rows
      {1, 6, 20, 20, 6, 5, 5, 1, 0, 1, 6, false},     // no padding: 16x16
      {1, 6, 12, 12, 6, 5, 5, 1, 4, 1, 6, true},      // padding 4: 16x16
      {1, 6, 14, 14, 6, 5, 3, 1, 2, 1, 6, false},     // 5x3
      {1, 6, 18, 18, 6, 7, 1, 1, 3, 1, 6, true},      // 7x1
      {1, 6, 14, 14, 6, 5, 1, 1, 2, 1, 6, false},     // 5x1
      {1, 6, 8, 8, 6, 5, 5, 1, 2, 1, 6, true},        // 8x8: half a vector
      {1, 6, 15, 14, 12, 5, 5, 1, 2, 1, 6, true},     // multiplier 2
      {2, 5, 15, 15, 5, 5, 5, 1, 1, 1, 5, false},     // batch 2, padding 1
      // stride 2: rows split into even and odd columns
      {1, 4, 56, 56, 4, 5, 5, 2, 2, 1, 4, true},      // 4 x 7 rows, 28 cols
      {1, 3, 40, 40, 3, 5, 5, 2, 1, 1, 3, false},     // odd padding, 19
      {1, 3, 41, 41, 3, 7, 7, 2, 3, 1, 3, true},      // 7x7, odd width
      {1, 3, 40, 40, 3, 5, 3, 2, 1, 1, 3, false},     // 5x3
      {2, 3, 36, 36, 6, 5, 5, 2, 2, 1, 3, true},      // batch 2, mult. 2
      {1, 2, 70, 70, 2, 5, 5, 2, 2, 1, 2, true},      // 35 cols, 5 x 7 rows
  };
  int failures = run_taken_cases(cases, COUNT(cases), TAKES);
  cr_assert_eq(failures, 0, "%d band depthwise cases disagree", failures);
}

// Left to the other kernels: 3x3 and 2x2, rows less than half a vector
// (stride 2 on 14x14: 7 of 16 lanes; 6x6: 6), dilation 2 along rows, at
// most 16 outputs, planes past the stack buffer.
TT_TEST(diff_depthwise_bands, declines) {
  static const conv_case_t cases[] = {
      {1, 8, 14, 14, 8, 3, 3, 1, 1, 1, 8, false},
      {1, 8, 14, 14, 8, 2, 2, 1, 0, 1, 8, false},
      {1, 8, 14, 14, 8, 5, 5, 2, 2, 1, 8, false},
      {1, 4, 28, 28, 4, 5, 5, 1, 4, 2, 4, false},
      {1, 8, 6, 6, 8, 5, 5, 1, 2, 1, 8, false},
      {1, 8, 4, 4, 8, 5, 5, 1, 2, 1, 8, false},
      {1, 8, 112, 112, 8, 5, 5, 1, 2, 1, 8, false},
  };
  check_declined(cases, COUNT(cases), TAKES);
}
