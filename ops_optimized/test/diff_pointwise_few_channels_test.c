// SPDX-License-Identifier: Apache-2.0
//
// The pointwise kernel (pointwise_avx512.c) with few input channels, where
// out channels that are a multiple of 24 take tiles of 8 rows instead of
// 12 (8 input rows and 12 out rows 4 KiB apart outnumbered L1's ways), and
// its tiles' weight rows and biases worked out once per row block, through
// aten::convolution.out against the reference kernel on every ISA of this
// machine (conv_test_util.h): 1 to 9 input channels (9: back to 12 rows),
// 23 to 73 out channels, images of 1024 pixels (32x32: blocks aligned to
// the cache line) and of 289, 64 and 33 pixels, bias or none; random data
// within the accumulation bound, exact integers with NaN, inf and -0.0 in
// the input bit for bit; two images; a non-contiguous input beside them.
// On AVX2 (pointwise_avx2.c) the same cases run its 4 x 3 tiles (fewer
// than 32 input channels, 256 pixels or more) and their 1-3 row
// remainders, and its 6 x 2 tiles on the smaller images.
#include <criterion/criterion.h>

#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/test/conv_test_util.h"
#include "ops_optimized/test/diff.h"

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

TT_TEST(diff_pointwise_few_channels, row_blocks) {
  static const int64_t channels[] = {1, 2, 7, 8, 9};
  static const int64_t outs[] = {24, 48, 72, 23, 25, 47, 73};
  static const int64_t planes[][2] = {{32, 32}, {17, 17}, {8, 8}, {3, 11}};
  int failures = 0;
  int run = 0;
  for (size_t c = 0; c < COUNT(channels); ++c) {
    for (size_t o = 0; o < COUNT(outs); ++o) {
      ++run;
      const int64_t *plane = planes[run % COUNT(planes)];
      conv_case_t p = {1 + (run % 7 == 0), channels[c], plane[0], plane[1],
                       outs[o], 1, 1, 1, 0, 1, 1, run % 2 == 0};
      failures += run_conv_random_and_specials(&p);
    }
  }
  // mobilenet_v2's 8x32x32 -> 48, with and without bias, and strided.
  conv_case_t layer = {1, 8, 32, 32, 48, 1, 1, 1, 0, 1, 1, false};
  failures += run_conv_random_and_specials(&layer);
  layer.bias = true;
  failures += run_conv_random_and_specials(&layer);
  failures += run_conv(&layer, ETR_FLOAT, ETR_DIFF_NONCONTIGUOUS,
                       ETR_FILL_RANDOM, ETR_FILL_RANDOM, false);
  cr_assert_eq(failures, 0, "%d pointwise cases disagree", failures);
}
