// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the optimized aten::convolution.out against the
// reference kernel, on every ISA of this machine (diff.h): 1-D and 2-D, NCHW
// and channels-last, stride, padding, dilation, groups, depthwise (with and
// without a channel multiplier), pointwise, bias or none, the mobilenet_v2 and
// cnn dataset shapes, Float/Half/BFloat16, transposed convolutions, and the
// cases that fall back (3-D, mixed layouts, non-contiguous inputs, other
// dtypes, Half or channels-last transposed). The sweeps of single kernels'
// edges are in diff_conv_depthwise_kernels_test.c and diff_conv_direct_test.c;
// tolerances in conv_test_util.h.
#include <criterion/criterion.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/arena.h"
#include "ops_optimized/conv/conv.h"
#include "ops_optimized/isa.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/test/conv_test_util.h"
#include "ops_optimized/test/diff.h"
#include "ops_reference/ops_reference.h"

static const conv_case_t kGeneral[] = {
    // n, c, h, w, oc, kh, kw, stride, pad, dilation, groups, bias
    {1, 3, 32, 32, 16, 3, 3, 1, 1, 1, 1, true},   // cnn conv1
    {1, 16, 16, 16, 32, 3, 3, 1, 1, 1, 1, true},  // cnn conv2
    {1, 3, 64, 64, 16, 3, 3, 2, 1, 1, 1, false},  // mobilenet stem
    {2, 5, 9, 11, 7, 3, 3, 1, 0, 1, 1, true},
    {1, 4, 10, 13, 6, 5, 3, 2, 2, 1, 1, true},
    {1, 6, 12, 12, 4, 3, 3, 1, 2, 2, 1, false},   // dilation
    {2, 6, 7, 9, 9, 3, 3, 3, 1, 1, 3, true},      // groups, stride 3
    {1, 8, 6, 6, 4, 2, 2, 2, 0, 1, 2, true},
    {1, 1, 5, 5, 1, 1, 1, 1, 0, 1, 1, true},
    {1, 17, 7, 5, 33, 1, 1, 1, 0, 1, 1, true},    // pointwise
    {2, 16, 32, 32, 8, 1, 1, 1, 0, 1, 1, false},  // mobilenet pointwise
    {1, 96, 8, 8, 16, 1, 1, 1, 0, 1, 1, false},
    {1, 8, 9, 9, 12, 1, 1, 2, 1, 1, 1, true},     // 1x1 strided, padded
    // 1x1 strided without padding on the pointwise kernel (subsampled
    // input): two images, odd widths (the stride-2 copy's tail), stride 3.
    {2, 16, 16, 16, 32, 1, 1, 2, 0, 1, 1, true},
    {1, 8, 19, 17, 24, 1, 1, 2, 0, 1, 1, false},
    {1, 4, 25, 26, 8, 1, 1, 3, 0, 1, 1, true},
    {1, 3, 23, 23, 8, 3, 3, 2, 1, 1, 1, true},    // 12-wide rows, stride 2
    {1, 2, 5, 56, 4, 3, 3, 1, 1, 1, 1, false},    // 16-lane groups straddle
    {1, 2, 4, 111, 3, 3, 3, 2, 0, 1, 1, true},    // rows, stride 1 and 2
    {1, 2, 6, 20, 3, 2, 4, 3, 1, 1, 1, true},     // stride 3 gathers
    {1, 3, 7, 8, 5, 3, 3, 1, 0, 1, 1, true},      // few channels, no pad
    {2, 4, 9, 9, 20, 2, 2, 1, 1, 2, 1, true},     // 20 outs, dilation 2
    {1, 3, 0, 37, 5, 0, 4, 2, 1, 1, 1, true},     // 1-D
    {2, 6, 0, 20, 4, 0, 3, 1, 2, 2, 2, false},    // 1-D, groups, dilation
    // The direct kernel along rows (few channels, rows of >= 8 outputs,
    // stride 1 or 2): dilation, 17 outs (a second block of 1), a 2x2
    // kernel without padding, 1-D, groups, an out row of exactly 8.
    {1, 2, 11, 40, 5, 3, 3, 2, 2, 2, 1, true},
    {1, 4, 5, 8, 17, 3, 3, 1, 1, 1, 1, true},
    {1, 3, 9, 34, 6, 2, 2, 2, 0, 1, 1, false},
    {1, 3, 0, 40, 4, 0, 5, 2, 2, 1, 1, true},
    {2, 4, 6, 19, 6, 3, 3, 2, 1, 1, 2, true},
    {1, 3, 6, 16, 33, 3, 3, 2, 1, 1, 1, false},
    // K = 32 x 9 = 288: two K blocks, so the im2col packer starts a block
    // at k0 = 144 (mid-tap channel ranges); 16-pixel rows, stride 1.
    {1, 32, 5, 16, 9, 3, 3, 1, 1, 1, 1, true},
    {1, 29, 4, 7, 13, 3, 3, 1, 0, 1, 1, false},
};

static const conv_case_t kDepthwise[] = {
    {1, 16, 32, 32, 16, 3, 3, 1, 1, 1, 16, false},  // mobilenet shapes
    {1, 48, 32, 32, 48, 3, 3, 2, 1, 1, 48, false},
    {1, 72, 16, 16, 72, 3, 3, 2, 1, 1, 72, true},
    {1, 144, 4, 4, 144, 3, 3, 1, 1, 1, 144, true},
    {2, 5, 17, 19, 5, 3, 3, 1, 1, 1, 5, true},
    {1, 3, 9, 40, 6, 3, 5, 1, 2, 1, 3, true},       // multiplier 2
    {1, 17, 11, 37, 17, 5, 5, 3, 2, 2, 17, false},
    {1, 33, 6, 3, 33, 3, 3, 1, 1, 1, 33, true},     // rows narrower than pad
    {2, 7, 13, 11, 7, 3, 3, 2, 1, 1, 7, true},      // stride 2, odd rows
    {1, 5, 12, 40, 5, 3, 3, 2, 0, 2, 5, false},     // stride 2, dilation 2
    {1, 6, 9, 9, 6, 3, 3, 1, 1, 1, 6, true},        // planes of 81 pixels
    {1, 9, 8, 8, 9, 3, 3, 2, 1, 1, 9, true},        // stride 2 to 4 x 4
    {1, 10, 9, 9, 10, 3, 3, 2, 1, 1, 10, false},    // stride 2 to 5 x 5
    {1, 4, 0, 50, 4, 0, 7, 2, 3, 1, 4, true},       // 1-D depthwise
    // The 3x3 row kernel (rows of >= 8 outputs): tails of 1 and 15
    // columns, no padding, padding 2, a multiplier, stride 2 over odd and
    // even widths, 8-wide rows.
    {1, 3, 5, 17, 3, 3, 3, 1, 1, 1, 3, true},
    {2, 4, 6, 33, 4, 3, 3, 1, 0, 1, 4, false},
    {1, 5, 4, 31, 5, 3, 3, 1, 2, 1, 5, true},
    {1, 3, 7, 20, 6, 3, 3, 1, 1, 1, 3, true},       // multiplier 2
    {1, 6, 9, 37, 6, 3, 3, 2, 1, 1, 6, true},
    {1, 5, 8, 64, 5, 3, 3, 2, 0, 1, 5, false},
    {1, 4, 10, 34, 8, 3, 3, 2, 2, 1, 4, true},      // multiplier 2
    {1, 7, 8, 8, 7, 3, 3, 1, 1, 1, 7, false},
    {1, 3, 3, 16, 3, 3, 3, 2, 1, 1, 3, true},       // 8 outputs per row
    {1, 2, 1, 12, 2, 3, 3, 1, 1, 1, 2, true},       // one input row
    // Small stride-1 planes taken flat (<= 64 outputs): dilation 2, a
    // multiplier, 7x7 (a tail block of 1), 2x5.
    {1, 4, 5, 5, 4, 3, 3, 1, 2, 2, 4, true},
    {1, 3, 4, 4, 6, 3, 3, 1, 1, 1, 3, true},
    {1, 9, 7, 7, 9, 3, 3, 1, 1, 1, 9, false},
    {2, 5, 2, 5, 5, 3, 3, 1, 1, 1, 5, true},
    // Planes held in registers (<= 64 inputs, <= 16 outputs): stride 3,
    // dilation 2 with a multiplier, 7x9 to 3x4 without padding, one row.
    {1, 7, 8, 8, 7, 3, 3, 3, 1, 1, 7, true},
    {1, 4, 4, 4, 8, 3, 3, 1, 2, 2, 4, true},
    {2, 5, 7, 9, 5, 3, 3, 2, 0, 1, 5, false},
    {1, 3, 1, 10, 3, 3, 3, 1, 1, 1, 3, true},
    // Rows kept in registers across output rows (stride 1 down the
    // columns): padding 0, 1 and 2 over 2, 3 and 4 input rows.
    {1, 3, 2, 20, 3, 3, 3, 1, 2, 1, 3, true},
    {1, 3, 3, 24, 3, 3, 3, 1, 0, 1, 3, false},
    {1, 2, 4, 18, 4, 3, 3, 1, 1, 1, 2, true},
};

TT_TEST(diff_conv, general_and_pointwise) {
  int failures = 0;
  for (size_t i = 0; i < sizeof(kGeneral) / sizeof(kGeneral[0]); ++i) {
    for (int layout = 0; layout < 3; ++layout) {
      if (layout == ETR_DIFF_CHANNELS_LAST && kGeneral[i].h == 0) {
        continue;
      }
      for (int fill = 0; fill < 2; ++fill) {
        etr_diff_fill_t data = fill ? ETR_FILL_EXACT_INT : ETR_FILL_RANDOM;
        failures += run_conv(&kGeneral[i], ETR_FLOAT,
                             (etr_diff_layout_t)layout, data, data, false);
      }
    }
  }
  cr_assert_eq(failures, 0, "%d convolution cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

TT_TEST(diff_conv, depthwise) {
  int failures = 0;
  for (size_t i = 0; i < sizeof(kDepthwise) / sizeof(kDepthwise[0]); ++i) {
    for (int layout = 0; layout < 3; ++layout) {
      if (layout == ETR_DIFF_CHANNELS_LAST && kDepthwise[i].h == 0) {
        continue;
      }
      for (int fill = 0; fill < 2; ++fill) {
        etr_diff_fill_t data = fill ? ETR_FILL_EXACT_INT : ETR_FILL_RANDOM;
        failures += run_conv(&kDepthwise[i], ETR_FLOAT,
                             (etr_diff_layout_t)layout, data, data, false);
      }
    }
  }
  // inf/NaN weights against padding: 0 * inf is NaN at the border, as in
  // PyTorch (the depthwise kernels skip padded taps, so op_convolution.c
  // routes these to the GEMM path). 1-tap kernels: one product per output.
  static const conv_case_t padded[] = {
      {1, 8, 5, 6, 8, 1, 1, 1, 1, 1, 8, false},
      {2, 3, 4, 7, 6, 1, 1, 2, 2, 1, 3, false},
      {1, 20, 3, 3, 20, 1, 1, 1, 1, 1, 20, false},
      {1, 43, 2, 3, 43, 1, 1, 1, 1, 1, 43, false},  // 8-wide scan + tail
      {1, 1, 4, 5, 4, 1, 1, 1, 1, 1, 1, false},     // the direct kernel
  };
  for (size_t i = 0; i < sizeof(padded) / sizeof(padded[0]); ++i) {
    for (int layout = 0; layout < 3; layout += 2) {
      failures += run_conv(&padded[i], ETR_FLOAT, (etr_diff_layout_t)layout,
                           ETR_FILL_EXACT_INT, ETR_FILL_SPECIAL, false);
    }
  }
  // A stride far past the input, so a dim has one output (the kernel
  // fuzzer's fault-6a2cd470d9: the AVX2 depthwise kernel's row step, a
  // stride of 2^60 + 2 times the padded width, overflowed int64): along H
  // only (the rows and padded-plane kernels, stride 1 along W) and along
  // both dims; depthwise, a few-channel direct and a general convolution,
  // NCHW and channels-last.
  const int64_t huge = ((int64_t)1 << 60) + 2;
  const conv_case_t strided[] = {
      {1, 8, 3, 20, 8, 3, 3, 1, 1, 1, 8, true},
      {1, 8, 5, 40, 8, 3, 3, 1, 0, 1, 8, false},
      {1, 2, 5, 12, 2, 5, 5, 1, 2, 1, 2, true},
      {1, 3, 4, 9, 3, 2, 3, 1, 1, 2, 3, false},
      {2, 1, 6, 30, 1, 4, 4, 1, 1, 1, 1, true},
      {1, 3, 5, 19, 4, 3, 3, 1, 1, 1, 1, true},
      {1, 16, 4, 24, 8, 3, 3, 1, 1, 1, 1, true},
      {1, 8, 3, 3, 8, 3, 3, huge, 0, 1, 8, true},
      {1, 16, 4, 4, 8, 3, 3, huge, 1, 1, 1, true},
  };
  for (size_t i = 0; i < sizeof(strided) / sizeof(strided[0]); ++i) {
    g_stride_h = i < 7 ? huge : 0;
    for (int layout = 0; layout < 3; layout += 2) {
      failures += run_conv(&strided[i], ETR_FLOAT, (etr_diff_layout_t)layout,
                           ETR_FILL_RANDOM, ETR_FILL_RANDOM, false);
    }
  }
  g_stride_h = 0;
  cr_assert_eq(failures, 0, "%d depthwise cases disagree", failures);
}

TT_TEST(diff_conv, half_bfloat16_special_and_fallbacks) {
  static const etr_scalar_type_t dtypes[] = {ETR_HALF, ETR_BFLOAT16};
  int failures = 0;
  for (size_t d = 0; d < 2; ++d) {
    for (int fill = 0; fill < 2; ++fill) {
      etr_diff_fill_t data = fill ? ETR_FILL_EXACT_INT : ETR_FILL_RANDOM;
      for (int layout = 0; layout < 3; layout += 2) {
        failures += run_conv(&kGeneral[3], dtypes[d],
                             (etr_diff_layout_t)layout, data, data, false);
        failures += run_conv(&kGeneral[6], dtypes[d],
                             (etr_diff_layout_t)layout, data, data, false);
        failures += run_conv(&kGeneral[9], dtypes[d],
                             (etr_diff_layout_t)layout, data, data, false);
        failures += run_conv(&kDepthwise[4], dtypes[d],
                             (etr_diff_layout_t)layout, data, data, false);
      }
    }
  }
  // Special input values, one product per output.
  static const conv_case_t special[] = {
      {2, 3, 7, 9, 6, 1, 1, 1, 0, 1, 3, false},
      {1, 4, 6, 6, 4, 1, 1, 2, 0, 1, 4, false},
      {1, 1, 5, 5, 3, 1, 1, 1, 0, 1, 1, false},
  };
  for (size_t i = 0; i < 3; ++i) {
    for (int layout = 0; layout < 3; layout += 2) {
      failures += run_conv(&special[i], ETR_FLOAT, (etr_diff_layout_t)layout,
                           ETR_FILL_SPECIAL, ETR_FILL_EXACT_INT, false);
    }
  }
  // Cases that fall back: Half and channels-last transposed, Double, Int.
  const conv_case_t up = {1, 4, 5, 5, 6, 3, 3, 2, 1, 1, 2, true};
  failures += run_conv(&up, ETR_HALF, ETR_DIFF_CONTIGUOUS,
                       ETR_FILL_EXACT_INT, ETR_FILL_EXACT_INT, true);
  failures += run_conv(&up, ETR_FLOAT, ETR_DIFF_CHANNELS_LAST,
                       ETR_FILL_EXACT_INT, ETR_FILL_EXACT_INT, true);
  failures += run_conv(&kGeneral[3], ETR_DOUBLE, ETR_DIFF_CONTIGUOUS,
                       ETR_FILL_RANDOM, ETR_FILL_RANDOM, false);
  failures += run_conv(&kGeneral[3], ETR_INT, ETR_DIFF_CONTIGUOUS,
                       ETR_FILL_RANDOM, ETR_FILL_RANDOM, false);
  cr_assert_eq(failures, 0, "%d convolution cases disagree", failures);
}

// Transposed convolutions (conv/conv_transposed.c): the decoder shapes
// (2x2 stride 2, 4x4 stride 2 padding 1), stride 1 and 3 (gaps no tap
// lands in: bias only), padding past the kernel's reach, dilation,
// output_padding, groups, 1-D, several images, a 1x1 kernel, stride-2
// column pairs with tails and unequal ranges (rows of 37 too), and
// blocks:
// 64 x 64 pixels and 512 out channels x 16 taps overflow the cols block
// (several pixel blocks; rows split too). Random data within the bound,
// exact data bit for bit, NaN/inf/-0.0 poked into exact data, and special
// values through a 1x1 kernel. Every Float contiguous run must take the
// kernel, not the reference.
TT_TEST(diff_conv, transposed) {
  static const conv_case_t cases[] = {
      // n, c, h, w, oc, kh, kw, stride, pad, dilation, groups, bias
      {1, 32, 16, 16, 16, 2, 2, 2, 0, 1, 1, true},   // UNet up-sampling
      {2, 8, 7, 9, 4, 4, 4, 2, 1, 1, 1, true},      // DCGAN-style
      {1, 5, 6, 5, 7, 3, 3, 1, 1, 1, 1, false},
      {1, 4, 5, 6, 6, 2, 3, 3, 0, 1, 2, true},      // gaps, groups
      {1, 3, 4, 4, 2, 3, 3, 2, 3, 1, 1, true},      // pad past the taps
      {1, 6, 5, 5, 3, 3, 3, 2, 1, 2, 3, true},      // dilation, groups
      {1, 3, 0, 17, 4, 0, 5, 2, 2, 1, 1, true},     // 1-D
      {2, 4, 0, 9, 6, 0, 3, 3, 1, 2, 2, false},     // 1-D, groups
      {1, 16, 64, 64, 8, 2, 2, 2, 0, 1, 1, true},   // several pixel blocks
      {1, 8, 3, 5, 512, 4, 4, 1, 0, 1, 1, false},   // rows split
      {1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, true},
      // Stride 2: kernel columns added in pairs (add_pairs) over rows of
      // 37 (two vectors and a tail) and 9, a 3-wide kernel (one column
      // alone), padding 1 and 2 (pairs whose valid columns differ).
      {1, 4, 5, 37, 6, 2, 2, 2, 0, 1, 1, true},
      {1, 3, 4, 9, 5, 3, 3, 2, 1, 1, 1, true},
      {2, 2, 3, 21, 3, 4, 4, 2, 2, 1, 1, false},
      // 4x4 padding 1 over rows of 37: each pair's plane (pair_plane on
      // AVX-512) in three chunks, the first and last clipped.
      {1, 4, 3, 37, 5, 4, 4, 2, 1, 1, 1, true},
      // One out row (one out column) from two: the stride still places
      // the second input row (column) past the out.
      {1, 2, 2, 5, 3, 1, 1, 2, 1, 1, 1, true},
      {1, 2, 5, 2, 3, 1, 1, 2, 1, 1, 1, false},
      {1, 2, 2, 3, 3, 1, 2, 2, 1, 1, 1, false},
  };
  const size_t count = sizeof(cases) / sizeof(cases[0]);
  int failures = 0;
  const etr_diff_stats_t before = *etr_diff_stats();
  for (size_t i = 0; i < count; ++i) {
    failures += run_conv(&cases[i], ETR_FLOAT, ETR_DIFF_CONTIGUOUS,
                         ETR_FILL_RANDOM, ETR_FILL_RANDOM, true);
    failures += run_conv(&cases[i], ETR_FLOAT, ETR_DIFF_CONTIGUOUS,
                         ETR_FILL_EXACT_INT, ETR_FILL_EXACT_INT, true);
    g_poke_specials = true;
    failures += run_conv(&cases[i], ETR_FLOAT, ETR_DIFF_CONTIGUOUS,
                         ETR_FILL_EXACT_INT, ETR_FILL_EXACT_INT, true);
    g_poke_specials = false;
  }
  // output_padding 1 (stride 2 and 3) and 2 (stride 3).
  static const int64_t out_pads[][2] = {{0, 1}, {3, 1}, {3, 2}, {6, 1}};
  for (size_t i = 0; i < sizeof(out_pads) / sizeof(out_pads[0]); ++i) {
    g_output_padding = out_pads[i][1];
    failures += run_conv(&cases[out_pads[i][0]], ETR_FLOAT,
                         ETR_DIFF_CONTIGUOUS, ETR_FILL_EXACT_INT,
                         ETR_FILL_EXACT_INT, true);
    g_output_padding = 0;
  }
  // NaN, +-inf, -0.0 and denormals as inputs, one product per output (no
  // bias: x w + b rounds once in the reference, twice here).
  static const conv_case_t special[] = {
      {1, 1, 5, 6, 3, 1, 1, 2, 0, 1, 1, false},
      {2, 3, 4, 4, 6, 1, 1, 1, 0, 1, 3, false},
  };
  for (size_t i = 0; i < 2; ++i) {
    failures += run_conv(&special[i], ETR_FLOAT, ETR_DIFF_CONTIGUOUS,
                         ETR_FILL_SPECIAL, ETR_FILL_EXACT_INT, true);
  }
  const etr_diff_stats_t *after = etr_diff_stats();
  cr_assert_gt(after->runs, before.runs);
  cr_assert_eq(after->specialized - before.specialized,
               after->runs - before.runs,
               "%llu of %llu transposed runs fell back to the reference",
               (unsigned long long)(after->runs - before.runs -
                                    (after->specialized -
                                     before.specialized)),
               (unsigned long long)(after->runs - before.runs));
  cr_assert_eq(failures, 0, "%d transposed cases disagree", failures);
}

// The 2x2 stride-2 scatter that stores instead of adding (scatter_put,
// each out element one tap), called directly with a cols block of 2064
// floats: 160 cols rows x 16 pixels do not fit, so the block is 129 rows
// (an odd count: the pair of taps 128, 129 split between blocks) by 16
// pixels (two thirds of a 24-pixel row), and rows [0, 22) x pixels of
// several blocks meet in each out row. Small integers, so every sum is
// exact: each element must be ((+0.0 + sum) + bias) bit for bit, a -0.0
// bias and no bias included, on every ISA this machine has.
TT_TEST(diff_conv, transposed_exact_pairs_blocks) {
  enum { C = 3, H = 22, W = 24, OC = 40 };
  static float x[C * H * W];
  static float w[C * OC * 4];
  static float b[OC];
  static float y[OC * 2 * H * 2 * W];
  static float want[OC * 2 * H * 2 * W];
  for (int i = 0; i < C * H * W; ++i) {
    x[i] = (float)((i * 3) % 7 - 3);
  }
  for (int i = 0; i < C * OC * 4; ++i) {
    w[i] = (float)((i * 3 + 1) % 5 - 2);
  }
  for (int i = 0; i < OC; ++i) {
    b[i] = i % 4 == 0 ? -0.0f : (float)(i % 9 - 4);
  }
  etr_tensor_t *input = tt_tensor(ETR_FLOAT, TT_SIZES(1, C, H, W), NULL);
  etr_tensor_t *weight = tt_tensor(ETR_FLOAT, TT_SIZES(C, OC, 2, 2), NULL);
  etr_tensor_t *bias = tt_tensor(ETR_FLOAT, TT_SIZES(OC), NULL);
  etr_tensor_t *out = tt_tensor(ETR_FLOAT, TT_SIZES(1, OC, 2 * H, 2 * W), NULL);
  memcpy(input->data, x, sizeof(x));
  memcpy(weight->data, w, sizeof(w));
  memcpy(bias->data, b, sizeof(b));
  const etr_conv2d_geometry_t g = {
      .channels = C, .in_h = H, .in_w = W, .out_h = 2 * H, .out_w = 2 * W,
      .kernel_h = 2, .kernel_w = 2, .stride_h = 2, .stride_w = 2,
      .pad_h = 0, .pad_w = 0, .dilation_h = 1, .dilation_w = 1,
      .in_stride_c = H * W, .in_stride_h = W, .in_stride_w = 1,
      .w_stride_oc = 4, .w_stride_c = OC * 4, .w_stride_h = 2,
      .w_stride_w = 1};
  // Twice the cols block: the function takes half of what is free.
  _Alignas(64) static unsigned char buffer[2 * 2064 * sizeof(float)];
  int failures = 0;
  for (int with_bias = 0; with_bias < 2; ++with_bias) {
    for (int oc = 0; oc < OC; ++oc) {
      for (int oh = 0; oh < 2 * H; ++oh) {
        for (int ow = 0; ow < 2 * W; ++ow) {
          float sum = 0.0f;
          for (int c = 0; c < C; ++c) {
            sum += x[(c * H + oh / 2) * W + ow / 2] *
                   w[((c * OC + oc) * 2 + oh % 2) * 2 + ow % 2];
          }
          float v = 0.0f + sum;
          if (with_bias) {
            v += b[oc];
          }
          want[(oc * 2 * H + oh) * 2 * W + ow] = v;
        }
      }
    }
    for (int isa = ETR_ISA_SCALAR; isa <= ETR_ISA_NEON; ++isa) {
      if (!etr_isa_available((etr_isa_t)isa)) {
        continue;
      }
      etr_arena_t arena;
      etr_arena_init(&arena, buffer, sizeof(buffer));
      memset(out->data, 0x5a, sizeof(y));  // no stale zeros to lean on
      cr_assert(etr_conv_transposed_nchw(&arena, (etr_isa_t)isa, input,
                                         weight, with_bias ? bias : NULL,
                                         out, 1, &g, NULL));
      memcpy(y, out->data, sizeof(y));
      for (size_t i = 0; i < sizeof(y) / sizeof(y[0]); ++i) {
        if (memcmp(&y[i], &want[i], sizeof(float)) != 0) {
          if (failures++ < 5) {
            cr_log_error("%s bias %d: out[%zu] = %a, want %a",
                         etr_isa_name((etr_isa_t)isa), with_bias, i,
                         (double)y[i], (double)want[i]);
          }
        }
      }
    }
  }
  cr_assert_eq(failures, 0, "%d out elements differ", failures);
}

// A transposed convolution's weight packed at load as its GEMM's A
// (etr_conv_transposed_prepack), called directly on every ISA this
// machine has: the 4x4 stride-2 decoder (1024 cols rows by 256 pixels:
// two blocks of 8 input rows with a 2 MiB arena), the 2x2 stride-2
// up-sampling, a 3x3 stride 1 and a dilated 5x5 stride 2, two images.
// 2x2 stride-2 cases (stored from the GEMM's tiles where the ISA has a
// pairs tile) add 600 input channels (two K blocks of the packed weight),
// rows of 7 and 1 pixels (tiles across input rows), an odd width and two
// images, 96 out channels (12-row panels). Random floats: the out must
// have the bits of the call that packs per call (which splits the weight's
// rows instead of the pixels), with the arena and with one of 64 KiB
// (smaller blocks, where the panels may not fit the call's microkernel).
// There, past one K block of the packed weight (512), the unpacked GEMM
// may cut K finer for its scratch, so each out need only lie within the
// accumulation bound 2 K eps sum |w x| of the packed call's (inputs in
// [-1, 1): 2 K^2 eps). Zeroed panels must change the out.
TT_TEST(diff_conv, transposed_weight_packed_at_load) {
  // n, c, h, w, oc, k, stride, pad, dilation
  static const int64_t cases[][9] = {
      {1, 128, 16, 16, 64, 4, 2, 1, 1}, {1, 64, 28, 28, 32, 2, 2, 0, 1},
      {2, 24, 20, 20, 40, 3, 1, 1, 1},  {1, 16, 13, 13, 24, 5, 2, 2, 2},
      {1, 600, 9, 7, 12, 2, 2, 0, 1}, {2, 8, 5, 33, 6, 2, 2, 0, 1},
      {1, 16, 3, 1, 8, 2, 2, 0, 1},    {1, 40, 12, 12, 96, 2, 2, 0, 1}};
  static unsigned char arena_buffer[(2u << 20) + 64];
  static unsigned char pack_buffer[(1u << 20) + 4096];
  uint32_t s = 4242u;
  int failures = 0;
  for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); ++i) {
    const int64_t *q = cases[i];
    const int64_t n = q[0], c = q[1], h = q[2], w = q[3], oc = q[4];
    const int64_t k = q[5], st = q[6], pad = q[7], dil = q[8];
    const int64_t oh = (h - 1) * st - 2 * pad + dil * (k - 1) + 1;
    const int64_t ow = (w - 1) * st - 2 * pad + dil * (k - 1) + 1;
    etr_tensor_t *input = tt_tensor(ETR_FLOAT, TT_SIZES(n, c, h, w), NULL);
    etr_tensor_t *weight = tt_tensor(ETR_FLOAT, TT_SIZES(c, oc, k, k), NULL);
    etr_tensor_t *bias = tt_tensor(ETR_FLOAT, TT_SIZES(oc), NULL);
    etr_tensor_t *out = tt_tensor(ETR_FLOAT, TT_SIZES(n, oc, oh, ow), NULL);
    etr_tensor_t *tensors[] = {input, weight, bias};
    for (size_t t = 0; t < 3; ++t) {
      float *data = (float *)tensors[t]->data;
      for (int64_t e = 0; e < etr_tensor_numel(tensors[t]); ++e) {
        s = s * 1664525u + 1013904223u;
        data[e] = (float)(s >> 8) / 8388608.0f - 1.0f;
      }
    }
    const size_t out_bytes = etr_tensor_nbytes(out);
    float *want = tt_alloc(out_bytes);
    const etr_conv2d_geometry_t g = {
        .channels = c, .in_h = h, .in_w = w, .out_h = oh, .out_w = ow,
        .kernel_h = k, .kernel_w = k, .stride_h = st, .stride_w = st,
        .pad_h = pad, .pad_w = pad, .dilation_h = dil, .dilation_w = dil,
        .in_stride_c = h * w, .in_stride_h = w, .in_stride_w = 1,
        .w_stride_oc = k * k, .w_stride_c = oc * k * k, .w_stride_h = k,
        .w_stride_w = 1};
    for (int isa = ETR_ISA_SCALAR; isa <= ETR_ISA_NEON; ++isa) {
      if (!etr_isa_available((etr_isa_t)isa)) {
        continue;
      }
      const char *name = etr_isa_name((etr_isa_t)isa);
      etr_arena_t pack_arena;
      etr_arena_init(&pack_arena, pack_buffer, sizeof(pack_buffer));
      const etr_gemm_packed_a_t *packed = etr_conv_transposed_prepack(
          &pack_arena, (etr_isa_t)isa, input, weight, out, 1, &g);
      cr_assert_not_null(packed, "case %zu %s: not packed", i, name);
      static const size_t arenas[] = {2u << 20, 64u << 10};
      for (size_t a = 0; a < 2; ++a) {
        etr_arena_t temp;
        etr_arena_init(&temp, arena_buffer, arenas[a]);
        memset(out->data, 0x5a, out_bytes);
        cr_assert(etr_conv_transposed_nchw(&temp, (etr_isa_t)isa, input,
                                           weight, bias, out, 1, &g, NULL));
        memcpy(want, out->data, out_bytes);
        etr_arena_init(&temp, arena_buffer, arenas[a]);
        memset(out->data, 0x5a, out_bytes);
        cr_assert(etr_conv_transposed_nchw(&temp, (etr_isa_t)isa, input,
                                           weight, bias, out, 1, &g,
                                           packed));
        if (a == 1 && c > 512) {
          const float *got = (const float *)out->data;
          const double bound = 2.0 * (double)c * (double)c * FLT_EPSILON;
          for (int64_t e = 0; e < etr_tensor_numel(out); ++e) {
            if (!(fabs((double)got[e] - (double)want[e]) <= bound)) {
              ++failures;
              cr_log_error("case %zu %s arena %zu: out %lld = %g, unpacked "
                           "%g (bound %g)",
                           i, name, arenas[a], (long long)e, got[e], want[e],
                           bound);
              break;
            }
          }
        } else if (memcmp(out->data, want, out_bytes) != 0) {
          ++failures;
          cr_log_error("case %zu %s arena %zu: packed weight, other bits", i,
                       name, arenas[a]);
        }
      }
      memset((float *)packed->panels, 0, 4 * sizeof(float));
      etr_arena_t temp;
      etr_arena_init(&temp, arena_buffer, arenas[0]);
      cr_assert(etr_conv_transposed_nchw(&temp, (etr_isa_t)isa, input,
                                         weight, bias, out, 1, &g, packed));
      cr_expect_neq(memcmp(out->data, want, out_bytes), 0,
                    "case %zu %s: zeroed panels changed nothing", i, name);
    }
  }
  cr_assert_eq(failures, 0, "%d packed-weight runs differ", failures);
}

TT_TEST(diff_conv, errors_and_dry_run) {
  // Input channels that do not match the weight: the reference's error.
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, 4, (const int64_t[]){1, 3, 5, 5},
                              NULL);
  etr_tensor_t *w = tt_tensor(ETR_FLOAT, 4, (const int64_t[]){4, 2, 3, 3},
                              NULL);
  etr_tensor_t *out = tt_out(ETR_FLOAT, 4, (const int64_t[]){1, 4, 3, 3},
                             36);
  etr_evalue_t *args[11] = {
      tt_ev_tensor(x),      tt_ev_tensor(w),      tt_ev_none(),
      TT_EV_INTS(1, 1),     TT_EV_INTS(0, 0),     TT_EV_INTS(1, 1),
      tt_ev_bool(false),    TT_EV_INTS(0, 0),     tt_ev_int(1),
      tt_ev_tensor(out),    NULL};
  args[10] = args[9];
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_kernel_context_t ctx = {.diag = &diag};
  cr_assert_eq(etr_opt_convolution_out(&ctx, args, 11),
               ETR_ERR_INVALID_ARGUMENT);
  // Dry run: the out is resized, no data is touched (NULL data).
  etr_tensor_t *w3 = tt_tensor(ETR_FLOAT, 4, (const int64_t[]){4, 3, 3, 3},
                               NULL);
  etr_tensor_t *o = tt_out(ETR_FLOAT, 4, (const int64_t[]){1, 1, 1, 1}, 64);
  x->data = NULL;
  w3->data = NULL;
  o->data = NULL;
  args[1] = tt_ev_tensor(w3);
  args[9] = args[10] = tt_ev_tensor(o);
  ctx.dry_run = true;
  cr_assert_eq(etr_opt_convolution_out(&ctx, args, 11), ETR_OK);
  cr_assert_eq(o->sizes[1], 4);
  cr_assert_eq(o->sizes[2], 3);
}

