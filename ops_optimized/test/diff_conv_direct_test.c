// SPDX-License-Identifier: Apache-2.0
//
// The direct 3x3 stem kernels and the pointwise kernel at their edges,
// through aten::convolution.out against the reference kernel on every ISA
// of this machine (conv_test_util.h).
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/isa.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/test/conv_test_util.h"
#include "ops_optimized/test/diff.h"
#include "ops_reference/ops_reference.h"

// The direct kernel's 3x3 stem variants (3 input channels, every loop
// unrolled; 2 and 4 channels keep the channel loop): out rows of 8, 15,
// 16, 17, 31 and 33 columns, and 63 to 129 (the banded kernel's rows of
// 64 and up, its chunks of 128 and their edges), 1 to 4 rows (tiles of
// 3), stride 1 and 2, padding 0 and 1, 16, 19 and 67 outs (blocks of 64),
// bias or none, NaN and inf inputs.
TT_TEST(diff_conv, direct_stem) {
  // 63 and up: the banded kernel (stem_avx512.c), chunks of 128.
  static const int64_t widths[] = {8,  15, 16, 17, 31, 33,  63,
                                   64, 65, 80, 127, 128, 129};
  int failures = 0;
  int run = 0;
  for (size_t i = 0; i < sizeof(widths) / sizeof(widths[0]); ++i) {
    for (int64_t stride = 1; stride <= 2; ++stride) {
      for (int64_t pad = 0; pad <= 1; ++pad) {
        ++run;
        int64_t out_h = 1 + run % 4;
        int64_t in_c = run % 5 == 0 ? 2 : run % 7 == 0 ? 4 : 3;
        conv_case_t p = {1, in_c, (out_h - 1) * stride + 3 - 2 * pad,
                         (widths[i] - 1) * stride + 3 - 2 * pad,
                         run % 3 == 0 ? 19 : run % 11 == 0 ? 67 : 16, 3, 3,
                         stride, pad, 1, 1,
                         run % 2 == 0};
        failures += run_conv_random_and_specials(&p);
      }
    }
  }
  cr_assert_eq(failures, 0, "%d direct convolution cases disagree",
               failures);
}

// The pointwise kernel (pointwise_avx512.c: 1x1, stride 1, no padding, one
// group, at most 256 input channels and 32 KiB of weights): pixel counts
// 1, 15, 16 and 17 (images of at most 16 pixels hold the input channels
// in registers, 16 at a time: 1, 15, 16, 17, 33 channels), 31, 32, 33,
// 64, 65 (tiles of 32 pixels, 12 or 8 out channels: 1, 7, 8, 9, 12, 13,
// 24, 25 outs), 1-D, two images, bias or none; every layout (channels-last
// and non-contiguous inputs take the GEMM), exact data with NaN and inf
// poked in, and -0.0/inf/NaN from the special fill over one input channel.
// Past the limits (257 input channels, 33 KiB of weights) the GEMM again.
TT_TEST(diff_conv, pointwise_tile_edges) {
  static const int64_t planes[][2] = {{1, 1},  {3, 5}, {4, 4}, {1, 17},
                                      {1, 31}, {4, 8}, {3, 11}, {8, 8},
                                      {5, 13}, {0, 40}};
  static const int64_t channels[] = {1, 7, 15, 16, 17, 33, 48};
  static const int64_t outs[] = {1, 7, 8, 9, 12, 13, 24, 25};
  int failures = 0;
  int run = 0;
  for (size_t i = 0; i < sizeof(planes) / sizeof(planes[0]); ++i) {
    for (size_t c = 0; c < sizeof(channels) / sizeof(channels[0]); ++c) {
      ++run;
      conv_case_t p = {1 + (run % 5 == 0), channels[c], planes[i][0],
                       planes[i][1], outs[run % 8], 0, 1, 1, 0, 1, 1,
                       run % 2 == 0};
      p.kh = p.h == 0 ? 0 : 1;
      for (int layout = 0; layout < 3; ++layout) {
        if (layout == ETR_DIFF_CHANNELS_LAST && p.h == 0) {
          continue;
        }
        failures += run_conv(&p, ETR_FLOAT, (etr_diff_layout_t)layout,
                             ETR_FILL_RANDOM, ETR_FILL_RANDOM, false);
      }
      g_poke_specials = true;
      failures += run_conv(&p, ETR_FLOAT, ETR_DIFF_CONTIGUOUS,
                           ETR_FILL_EXACT_INT, ETR_FILL_EXACT_INT, false);
      g_poke_specials = false;
    }
  }
  // One product per output (no bias: the special fill's fractions would
  // round twice in the reference): NaN, +-inf, -0.0 inputs and weights.
  static const conv_case_t special[] = {
      {1, 1, 4, 4, 24, 1, 1, 1, 0, 1, 1, false},
      {1, 1, 5, 7, 13, 1, 1, 1, 0, 1, 1, false},
      {2, 1, 3, 3, 9, 1, 1, 1, 0, 1, 1, false},
  };
  for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); ++i) {
    failures += run_conv(&special[i], ETR_FLOAT, ETR_DIFF_CONTIGUOUS,
                         ETR_FILL_SPECIAL, ETR_FILL_SPECIAL, false);
    failures += run_conv(&special[i], ETR_FLOAT, ETR_DIFF_CONTIGUOUS,
                         ETR_FILL_SPECIAL, ETR_FILL_EXACT_INT, false);
  }
  // Past the kernel's limits, and a larger model-like layer inside them.
  static const conv_case_t limits[] = {
      {1, 257, 2, 3, 5, 1, 1, 1, 0, 1, 1, true},
      {1, 64, 4, 4, 129, 1, 1, 1, 0, 1, 1, true},
      {1, 144, 4, 4, 32, 1, 1, 1, 0, 1, 1, false},
      {1, 24, 4, 4, 144, 1, 1, 1, 0, 1, 1, true},
  };
  for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); ++i) {
    for (int fill = 0; fill < 2; ++fill) {
      etr_diff_fill_t data = fill ? ETR_FILL_EXACT_INT : ETR_FILL_RANDOM;
      failures += run_conv(&limits[i], ETR_FLOAT, ETR_DIFF_CONTIGUOUS, data,
                           data, false);
    }
  }
  cr_assert_eq(failures, 0, "%d pointwise cases disagree", failures);
}
