// SPDX-License-Identifier: Apache-2.0
//
// The shifted-rows convolution (ops_optimized/conv/shifted_avx512.c)
// through aten::convolution.out against the reference kernel on every ISA
// of this machine (conv_test_util.h): ResNet's 32x24x24, 64x12x12 and
// 128x6x6 layers; out channels around its tile of 8 (1, 7, 9, 17); planes
// whose last tile has 1, 2 or 3 vectors of positions; padding 0 (the
// input read in place, batches of 2), 1 and 2 (5x5; 3x3 at dilation 2);
// 1x3 and 3x1 kernels; two groups; up to 29 KB of padded rows a tile;
// packed rows (widths 2 to 48 that divide a tile). Each case: random
// floats within the accumulation bound, exact
// small integers with NaN, +-inf and -0.0 in the input bit for bit, and
// exact integers with one inf weight (NaN where it meets the padding's
// zeros, as PyTorch's). On x86 the test first checks that the kernel
// takes each geometry, so the cases cannot drift onto the GEMM path.
// The Winograd kernel, which would take its 3x3 stride-1 cases first, is
// off in these tests (etr_conv_winograd_allow).
#include <criterion/criterion.h>

#include "ops_optimized/test/conv_test_util.h"

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

// The Winograd kernel (conv/winograd_avx512.c) would take the 3x3
// stride-1 cases first: off for the tests that run this kernel.
static void no_winograd(void) { etr_conv_winograd_allow(false); }

// The kernel's test of a geometry, where this build has the kernel.
#if defined(__x86_64__)
#define TAKES etr_conv_shifted_nchw_avx512_applies
#else
#define TAKES NULL
#endif

TT_TEST(diff_conv_shifted, tiles_paddings_kernels, .init = no_winograd) {
  // n, c, h, w, oc, kh, kw, stride, pad, dilation, groups, bias
  static const conv_case_t cases[] = {
      {1, 32, 24, 24, 32, 3, 3, 1, 1, 1, 1, true},     // ResNet stage 1
      {1, 128, 6, 6, 128, 3, 3, 1, 1, 1, 1, false},    // ResNet stage 3
      {1, 16, 20, 20, 1, 3, 3, 1, 1, 1, 1, true},      // out channel tails
      {1, 16, 20, 20, 7, 3, 3, 1, 1, 1, 1, false},
      {1, 16, 20, 20, 9, 3, 3, 1, 1, 1, 1, true},
      {1, 16, 20, 20, 17, 3, 3, 1, 1, 1, 1, false},
      {1, 8, 18, 18, 8, 3, 3, 1, 1, 1, 1, true},       // last tile: 1 vector
      {1, 8, 40, 40, 8, 3, 3, 1, 1, 1, 1, false},
      {1, 64, 10, 10, 32, 3, 3, 1, 1, 1, 1, true},
      {1, 8, 22, 22, 8, 3, 3, 1, 1, 1, 1, false},      // 2 vectors
      {1, 8, 30, 30, 12, 3, 3, 1, 1, 1, 1, true},
      {1, 8, 19, 19, 8, 3, 3, 1, 1, 1, 1, true},       // 3 vectors
      {1, 8, 34, 34, 8, 3, 3, 1, 1, 1, 1, false},
      {1, 4, 24, 24, 8, 5, 5, 1, 2, 1, 1, true},       // 5x5, padding 2
      {1, 8, 24, 24, 8, 3, 3, 1, 2, 2, 1, false},      // dilation 2
      {1, 12, 20, 20, 8, 1, 3, 1, 1, 1, 1, true},      // 1x3
      {2, 16, 20, 20, 8, 3, 1, 1, 0, 1, 1, false},     // 3x1, in place
      {2, 16, 26, 26, 8, 3, 3, 1, 0, 1, 1, true},      // 3x3, in place
      {2, 32, 20, 20, 16, 3, 3, 1, 1, 1, 2, true},     // two groups
      {1, 80, 20, 20, 16, 3, 3, 1, 1, 1, 1, true},     // 29 KB of rows
      {1, 40, 24, 24, 9, 5, 5, 1, 2, 1, 1, false},     // 25 KB, 5x5
  };
  int failures = run_taken_cases(cases, COUNT(cases), TAKES);
  cr_assert_eq(failures, 0, "%d shifted-rows cases disagree", failures);
}

// Packed rows (3x3, padding 1, rows whose width divides the tile's 48
// positions: no padding columns, kernel columns 0 and 2 masked at the
// rows' ends): each such width, heights that leave a last tile of 1, 2
// or 3 vectors, out channel tails, a batch of 2, ResNet's 64x12x12 (the
// GEMM's before) and a 48-wide row (one row a tile).
TT_TEST(diff_conv_shifted, packed_rows, .init = no_winograd) {
  // n, c, h, w, oc, kh, kw, stride, pad, dilation, groups, bias
  static const conv_case_t cases[] = {
      {1, 64, 12, 12, 64, 3, 3, 1, 1, 1, 1, false},    // ResNet stage 2
      {1, 16, 9, 12, 9, 3, 3, 1, 1, 1, 1, true},       // 108: 2 tiles + 12
      {2, 8, 7, 16, 8, 3, 3, 1, 1, 1, 1, true},        // 112: 2 + 16
      {1, 8, 5, 24, 17, 3, 3, 1, 1, 1, 1, false},      // 120: 2 + 24
      {1, 16, 3, 48, 8, 3, 3, 1, 1, 1, 1, true},       // one row a tile
      {1, 32, 11, 8, 7, 3, 3, 1, 1, 1, 1, false},      // 88: 1 + 40
      {1, 32, 13, 4, 8, 3, 3, 1, 1, 1, 1, true},       // 52: 1 + 4
      {1, 32, 1, 6, 8, 3, 3, 1, 1, 1, 1, true},        // one row
      {1, 32, 2, 2, 8, 3, 3, 1, 1, 1, 1, false},       // 2x2
  };
  int failures = run_taken_cases(cases, COUNT(cases), TAKES);
  cr_assert_eq(failures, 0, "%d shifted-rows cases disagree", failures);
}

// Geometries it must leave to the GEMM: stride 2, too few products per
// output, a 3x1 kernel with padding (no padding columns to share), rows
// past L1 (128x28x28), a padded copy past the scratch limit (128x34x34),
// a 1x1 kernel (the GEMM reads its input as the im2col panel).
TT_TEST(diff_conv_shifted, declines) {
  static const conv_case_t cases[] = {
      {1, 32, 24, 24, 32, 3, 3, 2, 1, 1, 1, false},
      {1, 3, 24, 24, 8, 3, 3, 1, 1, 1, 1, false},
      {1, 16, 20, 20, 8, 3, 1, 1, 1, 1, 1, false},
      {1, 128, 28, 28, 128, 3, 3, 1, 1, 1, 1, false},
      {1, 128, 34, 34, 128, 3, 3, 1, 1, 1, 1, false},
      {1, 64, 40, 40, 256, 1, 1, 1, 0, 1, 1, true},
  };
  check_declined(cases, COUNT(cases), TAKES);
}
