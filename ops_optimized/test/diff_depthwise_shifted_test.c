// SPDX-License-Identifier: Apache-2.0
//
// The stride-1 shifted-rows depthwise kernel
// (ops_optimized/conv/depthwise_shifted_avx512.c) through
// aten::convolution.out against the reference kernel on every ISA of this
// machine (conv_test_util.h), on the geometries the band kernel
// (depthwise_bands_avx512.c) leaves to it: 4x4, 6x6, 3x5, 1x5 and 2x2
// kernels and dilation 2, on planes whose padded rows are one or two
// vectors wide, blocks of 8 out vectors and their remainders, padding 0
// to 4, a channel multiplier of 2, a batch of 2. Each case: random
// floats within the accumulation bound, exact small integers with NaN,
// +-inf and -0.0 in the input bit for bit, and one inf weight (the op's
// weight scan then sends padded cases to the GEMM: NaN borders). On x86
// the test first checks that the kernel takes each geometry.
#include <criterion/criterion.h>

#include "ops_optimized/test/conv_test_util.h"

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

// The kernel's test of a geometry, where this build has the kernel: it
// applies and the band kernel, dispatched first, declines.
#if defined(__x86_64__)
static bool takes(const etr_conv2d_geometry_t *g) {
  return etr_depthwise_shifted_nchw_avx512_applies(g) &&
         !etr_depthwise_bands_nchw_avx512_applies(g);
}
#define TAKES takes
#define APPLIES etr_depthwise_shifted_nchw_avx512_applies
#else
#define TAKES NULL
#define APPLIES NULL
#endif

TT_TEST(diff_depthwise_shifted, kernels_planes_blocks) {
  // n, c, h, w, oc, kh, kw, stride, pad, dilation, groups, bias
  static const conv_case_t cases[] = {
      {1, 24, 14, 14, 24, 4, 4, 1, 2, 1, 24, true},   // 4x4, 15 vectors
      {1, 8, 13, 13, 8, 6, 6, 1, 2, 1, 8, false},     // 6x6, 12
      {1, 8, 12, 12, 8, 3, 5, 1, 2, 1, 8, true},      // 3x5, 12
      {1, 4, 30, 30, 4, 4, 4, 1, 2, 1, 4, false},     // rows of 2 vectors
      {1, 4, 28, 28, 4, 5, 5, 1, 4, 2, 4, true},      // dilation 2
      {1, 6, 14, 14, 6, 1, 5, 1, 2, 1, 6, false},     // 1x5
      {2, 6, 15, 15, 6, 2, 2, 1, 0, 1, 6, true},      // 2x2, no padding
      {1, 6, 14, 14, 12, 4, 4, 1, 2, 1, 6, true},     // multiplier 2
      {2, 5, 14, 14, 5, 4, 4, 1, 1, 1, 5, false},     // batch 2, padding 1
  };
  int failures = run_taken_cases(cases, COUNT(cases), TAKES);
  cr_assert_eq(failures, 0, "%d shifted depthwise cases disagree", failures);
}

// Left to the other kernels: 3x3, stride 2, at most 16 outputs (the
// phase kernel's one-vector planes), rows mostly padding (8x8: 8 of 16
// lanes), planes past the stack buffer.
TT_TEST(diff_depthwise_shifted, declines) {
  static const conv_case_t cases[] = {
      {1, 8, 14, 14, 8, 3, 3, 1, 1, 1, 8, false},
      {1, 8, 14, 14, 8, 5, 5, 2, 2, 1, 8, false},
      {1, 8, 4, 4, 8, 5, 5, 1, 2, 1, 8, false},
      {1, 8, 8, 8, 8, 5, 5, 1, 2, 1, 8, false},
      {1, 8, 56, 56, 8, 5, 5, 1, 2, 1, 8, false},
  };
  check_declined(cases, COUNT(cases), APPLIES);
}
