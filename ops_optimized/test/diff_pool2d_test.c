// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the optimized 2-D pooling drivers (max_pool2d with
// indices, avg_pool2d and _adaptive_avg_pool2d; ops_optimized/pool/)
// against the reference kernels, on every ISA this machine has. The 2x2
// stride-2 kernels have diff_pool2x2_test.c, the 1-D ops diff_pool1d_test.c.
//
// Sweeps: output widths over the tile edges of 8 and 16 lanes (the NCHW
// row kernels) and channel counts over them (the NHWC pixel kernels);
// kernels 1x1, 2x2, 3x3, 1x3, 3x2; strides 1, 2 (vectorized) and 3
// (portable rows); padding 0 and 1; ceil_mode both ways; dilation 1 and 2
// (max); count_include_pad and divisor_override (avg); 3-D and 4-D,
// contiguous and channels-last inputs (outs laid out alike), non-contiguous
// inputs and Double (fallback); Half and BFloat16 (staged through fp32:
// every window and layout, chunks of several planes, planes and images
// larger than a chunk, an image too large for ctx->temp, which falls
// back); the CNN's and MobileNetV2's shapes; random, special (NaN, +-inf,
// -0.0) and integer data; argument errors.
//
// Tolerances: max pooling and its indices exact (NaN placement and
// first-position ties included); averages exact for integer data, else
// |opt - ref| <= 2 gamma_k k max|x| + 2u |ref| with k the window size
// (fp32 window sums in another order than the reference's double sum;
// adaptive windows: k = (H / out_h + 1) (W / out_w + 1)); Half and
// BFloat16 averages one ulp of the dtype more (pool_test_util.h).
#include <criterion/criterion.h>
#include <string.h>

#include "ops_optimized/test/diff.h"
#include "ops_optimized/test/pool_test_util.h"

static int run_adaptive(etr_scalar_type_t dtype, const int64_t *sizes,
                        etr_diff_layout_t layout, etr_diff_fill_t fill,
                        int64_t out_h, int64_t out_w, uint64_t seed) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::_adaptive_avg_pool2d.out", seed,
                 "[%lld %lld %lld %lld] -> %lldx%lld", (long long)sizes[0],
                 (long long)sizes[1], (long long)sizes[2],
                 (long long)sizes[3], (long long)out_h, (long long)out_w);
  etr_tensor_t *self = etr_diff_input(&c, dtype, 4, sizes, layout, fill);
  etr_diff_arg(&c, tt_ev_int_list(2, (const int64_t[]){out_h, out_w}));
  if (layout == ETR_DIFF_CHANNELS_LAST) {
    int64_t out_sizes[4] = {sizes[0], sizes[1], out_h, out_w};
    etr_diff_out(&c, dtype, 4, out_sizes, ETR_DIFF_CHANNELS_LAST, 0);
  } else {
    etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, 0,
                 etr_tensor_numel(self) + 8);
  }
  etr_diff_return(&c, 2);
  if (fill == ETR_FILL_EXACT_INT) {
    etr_diff_tolerance_exact(&c);
  } else {
    int64_t k = (sizes[2] / out_h + 1) * (sizes[3] / out_w + 1);
    pool_average_tolerance(&c, k, fill);
  }
  return etr_diff_run(&c);
}

TT_TEST(diff_pool2d, windows_and_widths) {
  int failures = 0;
  uint64_t seed = 1;
  // Input widths giving output widths around the 8/16-lane edges, and
  // past 48 and 64 at stride 2 (three whole blocks and a partial one).
  static const int64_t kWidths[] = {1,  2,  7,  15, 16,  17,
                                    33, 34, 35, 67, 112, 131};
  static const etr_diff_fill_t kFills[] = {ETR_FILL_RANDOM, ETR_FILL_SPECIAL,
                                           ETR_FILL_EXACT_INT};
  for (size_t op = 0; op < 2; ++op) {
    for (size_t w = 0; w < POOL_NUM_WINDOWS; ++w) {
      for (size_t width = 0; width < sizeof(kWidths) / sizeof(kWidths[0]);
           ++width) {
        for (int ceil = 0; ceil < 2; ++ceil) {
          const window_case_t *win = &kPoolWindows[w];
          pool_spec_t s = {kPoolOps[op], ETR_FLOAT, 4,
                           {2, 3, 6, kWidths[width]}, 0,
                           kFills[(width + (size_t)ceil) % 3],
                           {win->kernel[0], win->kernel[1]},
                           {win->stride[0], win->stride[1]},
                           {win->padding[0], win->padding[1]},
                           {op == 0 ? win->dilation[0] : 1,
                            op == 0 ? win->dilation[1] : 1},
                           ceil == 1, width % 2 == 0,
                           (op == 1 && w == 1 && ceil == 1) ? 5 : 0, false,
                           PATTERN_NONE, 0};
          failures += run_pool(&s, seed++);
        }
      }
    }
  }
  cr_assert_eq(failures, 0, "%d pooling cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

TT_TEST(diff_pool2d, layouts_and_models) {
  int failures = 0;
  uint64_t seed = 10000;
  int64_t channels[16];
  size_t count = etr_diff_edge_sizes(16, channels);
  for (size_t op = 0; op < 2; ++op) {
    // Channels-last: channel counts over the lane edges, every window.
    for (size_t k = 0; k < count; ++k) {
      int64_t c = channels[k] > 0 ? channels[k] : 1;
      if (c > 200) {
        c = 200;
      }
      for (size_t w = 0; w < POOL_NUM_WINDOWS; ++w) {
        const window_case_t *win = &kPoolWindows[w];
        pool_spec_t s = {kPoolOps[op], ETR_FLOAT, 4, {2, c, 5, 7},
                         ETR_DIFF_CHANNELS_LAST,
                         w % 2 ? ETR_FILL_SPECIAL : ETR_FILL_EXACT_INT,
                         {win->kernel[0], win->kernel[1]},
                         {win->stride[0], win->stride[1]},
                         {win->padding[0], win->padding[1]},
                         {op == 0 ? win->dilation[0] : 1,
                          op == 0 ? win->dilation[1] : 1},
                         w % 3 == 0, w % 2 == 1, 0, false, PATTERN_NONE, 0};
        failures += run_pool(&s, seed++);
      }
    }
    // The CNN's pools and a 3x3/2 padded one, each layout and dtype.
    static const etr_scalar_type_t kDtypes[] = {ETR_FLOAT, ETR_HALF,
                                                ETR_DOUBLE};
    for (size_t t = 0; t < 3; ++t) {
      for (int layout = 0; layout < 3; ++layout) {
        pool_spec_t cnn = {kPoolOps[op], kDtypes[t], 4, {1, 16, 32, 32},
                           (etr_diff_layout_t)layout, ETR_FILL_RANDOM,
                           {2, 2}, {2, 2}, {0, 0}, {1, 1}, false, true, 0,
                           false, PATTERN_NONE, 0};
        failures += run_pool(&cnn, seed++);
        pool_spec_t padded = {kPoolOps[op], kDtypes[t], 3, {4, 17, 19},
                              (etr_diff_layout_t)layout, ETR_FILL_SPECIAL,
                              {3, 3}, {2, 2}, {1, 1}, {1, 1}, true, false, 0,
                              false, PATTERN_NONE, 0};
        failures += run_pool(&padded, seed++);
      }
    }
    // Windows with several NaNs (ATen keeps the last), windows that miss
    // the input (kernel 2, dilation 3, padding 1 on 2x2: -inf and the
    // first tap's index), each layout.
    for (int layout = 0; layout < 3; layout += 2) {
      pool_spec_t nans = {kPoolOps[op], ETR_FLOAT, 4, {2, 19, 9, 37},
                          (etr_diff_layout_t)layout, ETR_FILL_RANDOM,
                          {3, 3}, {1, 2}, {1, 1}, {1, 1}, true, true, 0,
                          true, PATTERN_NONE, 0};
      failures += run_pool(&nans, seed++);
      if (op == 0) {
        pool_spec_t miss = {kPoolOps[op], ETR_FLOAT, 4, {1, 3, 2, 2},
                            (etr_diff_layout_t)layout, ETR_FILL_RANDOM,
                            {2, 2}, {1, 1}, {1, 1}, {3, 3}, false, true, 0,
                            false, PATTERN_NONE, 0};
        failures += run_pool(&miss, seed++);
      }
    }
    // Errors: padding above half the kernel; a zero stride.
    pool_spec_t bad_padding = {kPoolOps[op], ETR_FLOAT, 4, {1, 2, 5, 5}, 0,
                               ETR_FILL_RANDOM, {2, 2}, {1, 1}, {2, 2},
                               {1, 1}, false, true, 0, false, PATTERN_NONE, 0};
    failures += run_pool(&bad_padding, seed++);
    pool_spec_t bad_stride = {kPoolOps[op], ETR_FLOAT, 4, {1, 2, 5, 5}, 0,
                              ETR_FILL_RANDOM, {2, 2}, {0, 1}, {0, 0},
                              {1, 1}, false, true, 0, false, PATTERN_NONE, 0};
    failures += run_pool(&bad_stride, seed++);
  }
  // Adaptive average: global (MobileNet's head), evenly dividing, uneven
  // (fallback), each layout.
  static const int64_t kOutputs[][2] = {{1, 1}, {2, 2}, {4, 1}, {3, 5}};
  int64_t image[4] = {2, 21, 8, 12};
  for (size_t o = 0; o < 4; ++o) {
    for (int layout = 0; layout < 3; ++layout) {
      for (int exact = 0; exact < 2; ++exact) {
        failures += run_adaptive(
            ETR_FLOAT, image, (etr_diff_layout_t)layout,
            exact ? ETR_FILL_EXACT_INT : ETR_FILL_RANDOM, kOutputs[o][0],
            kOutputs[o][1], seed++);
      }
    }
  }
  int64_t head[4] = {1, 1280, 7, 7};
  failures += run_adaptive(ETR_FLOAT, head, 0, ETR_FILL_RANDOM, 1, 1, seed++);
  failures += run_adaptive(ETR_FLOAT, head, ETR_DIFF_CHANNELS_LAST,
                           ETR_FILL_RANDOM, 1, 1, seed++);
  failures += run_adaptive(ETR_HALF, image, 0, ETR_FILL_RANDOM, 1, 1, seed++);
  cr_assert_eq(failures, 0, "%d pooling cases disagree", failures);
}

// The AVX-512 average planes kernel (pool_avg_planes_avx512.c: every
// window in one vector loop, taps outside the plane as +0.0, blocks inside
// the row unmasked) on the windows CNNs use and their edges: 3x3/1 and
// 3x3/2 padding 1, 5x5/2 padding 2, 2x2/1, 4x4/2 padding 1, 7x7/1 padding
// 3, 3x3/2 unpadded, 1x3 and 3x1, 5x3 and 4x3 over 3- and 4-row planes
// (3 rows inside two windows apart), and column stride 3, 17-column windows
// and rows of more than 1024 outputs, which take the row kernels; rows of
// 1 to 69 outputs (every run of inside blocks and each tail), ceil_mode
// overhangs; divided by the padded or the inside window, or an override;
// random, special and integer data, all -0.0 (a +0.0 average), all 3e38
// (fp32 sums overflow: redone in double) and every other element -inf.
TT_TEST(diff_pool2d, avg_planes_windows) {
  static const int64_t kWindows[][3][2] = {
      {{3, 3}, {1, 1}, {1, 1}},   {{3, 3}, {2, 2}, {1, 1}},
      {{5, 5}, {2, 2}, {2, 2}},   {{2, 2}, {1, 1}, {0, 0}},
      {{4, 4}, {2, 2}, {1, 1}},   {{7, 7}, {1, 1}, {3, 3}},
      {{3, 3}, {2, 2}, {0, 0}},   {{1, 3}, {1, 1}, {0, 1}},
      {{3, 1}, {2, 1}, {1, 0}},   {{3, 3}, {3, 3}, {1, 1}},
      {{17, 17}, {1, 1}, {8, 8}}, {{5, 3}, {1, 1}, {2, 1}},
      {{4, 3}, {1, 2}, {2, 1}},
  };
  static const int64_t kShapes[][4] = {
      {1, 8, 12, 56}, {1, 3, 5, 7},  {2, 3, 9, 33}, {1, 2, 6, 69},
      {1, 1, 3, 1},   {1, 2, 7, 31}, {1, 1, 9, 66}, {1, 2, 3, 2100},
      {1, 2, 18, 18}, {1, 2, 3, 40}, {1, 1, 4, 17},
  };
  static const etr_diff_fill_t kFills[] = {ETR_FILL_RANDOM, ETR_FILL_SPECIAL,
                                           ETR_FILL_EXACT_INT};
  static const pattern_t kPatterns[] = {PATTERN_NONE, PATTERN_NEGATIVE_ZERO,
                                        PATTERN_HUGE, PATTERN_NEGATIVE_INF};
  int failures = 0;
  uint64_t seed = 60000;
  int variant = 0;
  uint64_t specialized = etr_diff_stats()->specialized;
  for (size_t w = 0; w < sizeof(kWindows) / sizeof(kWindows[0]); ++w) {
    for (size_t s = 0; s < sizeof(kShapes) / sizeof(kShapes[0]); ++s) {
      const int64_t(*win)[2] = kWindows[w];
      const int64_t *sizes = kShapes[s];
      if (sizes[2] + 2 * win[2][0] < win[0][0] ||
          sizes[3] + 2 * win[2][1] < win[0][1]) {
        continue;  // PyTorch asks a window that fits the padded input
      }
      for (int k = 0; k < 2; ++k) {
        ++variant;
        pool_spec_t spec = {kPoolOps[1], ETR_FLOAT, 4,
                            {sizes[0], sizes[1], sizes[2], sizes[3]}, 0,
                            kFills[variant % 3],
                            {win[0][0], win[0][1]}, {win[1][0], win[1][1]},
                            {win[2][0], win[2][1]}, {1, 1},
                            variant % 3 == 1, k == 0,
                            variant % 7 == 0 ? 5 : 0, false,
                            kPatterns[variant % 11 < 4 ? variant % 11 : 0],
                            0};
        failures += run_pool(&spec, seed++);
      }
    }
  }
  cr_assert_gt(variant, 150);
  cr_assert_gt(etr_diff_stats()->specialized, specialized);
  cr_assert_eq(failures, 0, "%d average planes cases disagree", failures);
}

// Half and BFloat16, staged through fp32 in ctx->temp (pool_driver.c).
TT_TEST(diff_pool2d, half_and_bfloat16) {
  static const etr_scalar_type_t kNarrow[] = {ETR_HALF, ETR_BFLOAT16};
  static const etr_diff_fill_t kFills[] = {ETR_FILL_RANDOM, ETR_FILL_SPECIAL,
                                           ETR_FILL_EXACT_INT};
  int failures = 0;
  uint64_t seed = 30000;
  for (size_t t = 0; t < 2; ++t) {
    uint64_t specialized = etr_diff_stats()->specialized;
    for (size_t op = 0; op < 2; ++op) {
      // Every window, each layout (non-contiguous falls back); 19
      // channels cross the NHWC lane edges.
      for (size_t w = 0; w < POOL_NUM_WINDOWS; ++w) {
        for (int layout = 0; layout < 3; ++layout) {
          const window_case_t *win = &kPoolWindows[w];
          pool_spec_t s = {kPoolOps[op], kNarrow[t], 4, {2, 19, 9, 37},
                           (etr_diff_layout_t)layout,
                           kFills[(w + (size_t)layout) % 3],
                           {win->kernel[0], win->kernel[1]},
                           {win->stride[0], win->stride[1]},
                           {win->padding[0], win->padding[1]},
                           {op == 0 ? win->dilation[0] : 1,
                            op == 0 ? win->dilation[1] : 1},
                           w % 3 == 0, w % 2 == 1, 0, false, PATTERN_NONE,
                           0};
          failures += run_pool(&s, seed++);
        }
      }
      // Chunks: two 160x160 planes a chunk (the last one short); 300x300
      // planes larger than a chunk; 40x40x24 NHWC images a chunk each.
      pool_spec_t pairs = {kPoolOps[op], kNarrow[t], 4, {1, 5, 160, 160}, 0,
                           ETR_FILL_RANDOM, {3, 3}, {2, 2}, {1, 1}, {1, 1},
                           false, true, 0, false, PATTERN_NONE, 0};
      failures += run_pool(&pairs, seed++);
      pool_spec_t large = {kPoolOps[op], kNarrow[t], 3, {2, 300, 300}, 0,
                           ETR_FILL_EXACT_INT, {2, 2}, {2, 2}, {0, 0},
                           {1, 1}, false, true, 0, false, PATTERN_NONE, 0};
      failures += run_pool(&large, seed++);
      pool_spec_t images = {kPoolOps[op], kNarrow[t], 4, {3, 24, 40, 40},
                            ETR_DIFF_CHANNELS_LAST, ETR_FILL_SPECIAL,
                            {3, 3}, {1, 1}, {1, 1}, {1, 1}, true, false, 0,
                            false, PATTERN_NONE, 0};
      failures += run_pool(&images, seed++);
    }
    // Adaptive: global, evenly dividing, uneven (fallback), each layout.
    static const int64_t kOutputs[][2] = {{1, 1}, {2, 2}, {4, 1}, {3, 5}};
    int64_t image[4] = {2, 21, 8, 12};
    for (size_t o = 0; o < 4; ++o) {
      for (int layout = 0; layout < 3; ++layout) {
        failures += run_adaptive(kNarrow[t], image, (etr_diff_layout_t)layout,
                                 kFills[(o + (size_t)layout) % 3],
                                 kOutputs[o][0], kOutputs[o][1], seed++);
      }
    }
    cr_expect_gt(etr_diff_stats()->specialized, specialized,
                 "no %s pool took the optimized path",
                 etr_scalar_type_name(kNarrow[t]));
  }
  // An NHWC image whose fp32 copy does not fit ctx->temp's 4 MiB: falls
  // back, with nothing written by the optimized path.
  pool_spec_t huge = {kPoolOps[0], ETR_HALF, 4, {1, 16, 260, 260},
                      ETR_DIFF_CHANNELS_LAST, ETR_FILL_RANDOM, {2, 2},
                      {2, 2}, {0, 0}, {1, 1}, false, true, 0, false,
                      PATTERN_NONE, 0};
  failures += run_pool(&huge, seed++);
  cr_assert_eq(failures, 0, "%d Half/BFloat16 pooling cases disagree",
               failures);
}
