// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the optimized 2x2 stride-2 pooling kernels
// (ops_optimized/pool/: the row kernels pool2x2_<isa>.c, the whole-tensor
// planes kernels, and etr_pool_max2d_values_only, the fused max pool
// without indices) against the reference kernels, on every ISA this
// machine has: output widths 1 to 35 around the 8- and 16-lane edges, odd
// heights and widths, ceil_mode, divisor_override, presized and too-tall
// outs, 3-D and 4-D, and planted data (NaN-heavy, -inf-heavy, all -0.0,
// ties, sums that overflow fp32). The general 2-D sweeps are in
// diff_pool2d_test.c.
//
// Tolerances: max pooling and its indices exact (NaN placement and
// first-position ties included; values-only: bit for bit, NaN signs
// included); averages exact for the planted patterns other than -inf,
// else |opt - ref| <= 2 gamma_4 4 max|x| + 2u |ref| (fp32 window sums in
// another order than the reference's double sum).
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "ops_optimized/pool/pool.h"
#include "ops_optimized/test/diff.h"
#include "ops_optimized/test/pool_test_util.h"
#include "ops_reference/ops_reference.h"

// The 2x2 stride-2 row kernels (pool2x2_<isa>.c): every output width
// from 1 to 35 (the 8- and 16-lane tails, and 32 + 1..3), even and odd
// input widths (the odd column unused, or a ceil_mode border output), odd
// heights, divisor_override, and planted data: NaN-heavy, -inf-heavy,
// all -0.0, ties, and sums that overflow fp32 (the driver's double redo).
TT_TEST(diff_pool2x2, two_by_two_stride_two) {
  int failures = 0;
  uint64_t seed = 20000;
  for (size_t op = 0; op < 2; ++op) {
    for (int64_t out_width = 1; out_width <= 35; ++out_width) {
      for (int odd = 0; odd < 2; ++odd) {
        pattern_t pattern = (pattern_t)((out_width + odd) % 5);
        pool_spec_t s = {kPoolOps[op], ETR_FLOAT, 4,
                         {1, 3, 5 + 2 * odd, 2 * out_width + odd}, 0,
                         out_width % 3 == 0 ? ETR_FILL_SPECIAL
                                            : ETR_FILL_RANDOM,
                         {2, 2}, {2, 2}, {0, 0}, {1, 1},
                         odd == 1 && out_width % 2 == 0, out_width % 2 == 1,
                         op == 1 && out_width % 4 == 3 ? 3 : 0,
                         out_width % 7 == 0, pattern, 0};
        failures += run_pool(&s, seed++);
      }
    }
  }
  cr_assert_eq(failures, 0, "%d 2x2 pooling cases disagree", failures);
}

// The whole-tensor 2x2 stride-2 max (the planes kernels: rows of more than
// 8 outputs in one loop of unmasked 16-output blocks plus a masked tail,
// rows of up to 8 two to a vector): many planes, so rows follow rows
// across planes; plane sizes whose H * W falls on and beside the vector
// edges; odd H and W (the unused last row and column) and ceil_mode (the
// border outputs the driver adds); each planted pattern, NaN-heavy data,
// and the CNN's shape. Outs empty (resized by the reference's dry run) or
// already of the result's shape (variants 7..9: the op skips the dry run
// for floor mode, and must not for ceil_mode on odd sizes), 4-D and 3-D,
// or one row too tall (variant 10: the dry run must shrink them); the
// average too for those.
static const int64_t kWholeTensorShapes[][4] = {
    {1, 16, 32, 32}, {2, 17, 33, 32}, {1, 5, 4, 64},  {1, 3, 8, 96},
    {1, 7, 9, 97},   {3, 2, 6, 130},  {1, 9, 2, 16},  {1, 33, 16, 16},
    {1, 4, 5, 31},   {2, 3, 7, 66},   {1, 1, 2, 34},  {1, 6, 3, 18},
};

TT_TEST(diff_pool2x2, two_by_two_stride_two_whole_tensor) {
  int failures = 0;
  uint64_t seed = 30000;
  size_t count = sizeof(kWholeTensorShapes) / sizeof(kWholeTensorShapes[0]);
  for (size_t i = 0; i < count; ++i) {
    for (int variant = 0; variant < 11; ++variant) {
      const int64_t *sizes = kWholeTensorShapes[i];
      bool three_d = variant == 8 && sizes[0] == 1;
      pool_spec_t s = {kPoolOps[0], ETR_FLOAT, three_d ? 3 : 4,
                       {sizes[0], sizes[1], sizes[2], sizes[3]}, 0,
                       variant == 5 ? ETR_FILL_SPECIAL : ETR_FILL_RANDOM,
                       {2, 2}, {2, 2}, {0, 0}, {1, 1},
                       variant == 6 || variant == 9 ||
                           (i % 2 == 1 && variant == 0),
                       true, 0, variant == 0 || variant == 7,
                       variant >= 1 && variant <= 4 ? (pattern_t)variant
                       : variant == 8               ? PATTERN_TIES
                                                    : PATTERN_NONE,
                       variant == 10 ? 2 : variant >= 7 ? 1 : 0};
      if (three_d) {
        memmove(s.sizes, s.sizes + 1, 3 * sizeof(int64_t));
      }
      failures += run_pool(&s, seed++);
      if (variant >= 7) {
        // avg_pool2d skips its dry run alike (divisor_override too).
        s.op = kPoolOps[1];
        s.divisor = variant == 9 ? 3 : 0;
        failures += run_pool(&s, seed++);
      }
    }
  }
  cr_assert_eq(failures, 0, "%d whole-tensor 2x2 cases disagree", failures);
}

// What values_only_case plants over the pattern: nothing; NaN and -NaN
// at every third element; or, over negative values, one +0.0 per plane at
// a random place and a -0.0 a row down and a column right, so that a
// window holding both gives +0.0 only taken in the reference's row-major
// order (a plane kernel that sees no -0.0 may take the taps in any order,
// and one -0.0 must not go unseen).
typedef enum plant { PLANT_NONE, PLANT_NAN, PLANT_SIGNED_ZERO } plant_t;

// etr_pool_max2d_values_only (the fused max pool whose indices nobody
// reads; ops_optimized/fuse/fuse_fold.c) writes the same values as the
// reference's max_pool2d_with_indices, bit for bit (NaN signs included),
// on every ISA, for the whole-tensor shapes above and a padded 3x3/2 and
// channels-last case (the general drivers), with planted data. `window_h`
// and `window_w` are {kernel, stride, padding, dilation} along each dim.
static int values_only_case_hw(const int64_t *sizes, bool channels_last,
                               const int64_t *window_h,
                               const int64_t *window_w, bool ceil_mode,
                               pattern_t pattern, plant_t plant,
                               uint64_t seed) {
  etr_tensor_t *self = tt_tensor(ETR_FLOAT, 4, sizes, NULL);
  float *x = (float *)self->data;
  int64_t n = etr_tensor_numel(self);
  uint64_t state = seed * 0x9e3779b97f4a7c15ull + 1;
  for (int64_t i = 0; i < n; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    x[i] = (float)((int64_t)(state >> 40) % 2001 - 1000) / 500.0f;
    switch (pattern) {
      case PATTERN_NEGATIVE_ZERO: x[i] = i % 3 == 0 ? 0.0f : -0.0f; break;
      case PATTERN_NEGATIVE_INF:
        x[i] = i % 2 == 0 || i % 7 == 1 ? -INFINITY : x[i];
        break;
      case PATTERN_TIES: x[i] = (float)((i % 5) / 2); break;
      default: break;
    }
    if (plant == PLANT_NAN && i % 3 == 0) {
      x[i] = i % 2 == 0 ? NAN : -NAN;
    }
    if (plant == PLANT_SIGNED_ZERO) {
      x[i] = -fabsf(x[i]) - 0.25f;
    }
  }
  const int64_t height = sizes[2], width = sizes[3];
  for (int64_t p = 0; plant == PLANT_SIGNED_ZERO && height > 1 && width > 1 &&
                      p < n / (height * width);
       ++p) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    int64_t r = (int64_t)(state >> 33) % (height - 1);
    int64_t c = (int64_t)(state >> 13) % (width - 1);
    float *plane = x + p * height * width;
    plane[r * width + c] = 0.0f;
    plane[(r + 1) * width + c + 1] = -0.0f;
  }
  if (channels_last) {
    self = tt_channels_last(self);
  }
  int64_t out_sizes[4] = {sizes[0], sizes[1], 0, 0};
  for (int d = 0; d < 2; ++d) {
    const int64_t *window = d == 0 ? window_h : window_w;
    int64_t k = window[0], stride = window[1], pad = window[2];
    int64_t span = window[3] * (k - 1) + 1;
    int64_t in = sizes[2 + d];
    int64_t size = (in + 2 * pad - span + (ceil_mode ? stride - 1 : 0)) /
                       stride + 1;
    if (ceil_mode && (size - 1) * stride >= in + pad) {
      --size;
    }
    out_sizes[2 + d] = size;
  }
  static const uint8_t kChannelsLast[4] = {0, 2, 3, 1};
  static const uint8_t kContiguous[4] = {0, 1, 2, 3};
  const uint8_t *order = channels_last ? kChannelsLast : kContiguous;
  etr_tensor_t *outs[4];
  for (int k = 0; k < 4; ++k) {
    outs[k] = tt_out_dim_order(k % 2 == 0 ? ETR_FLOAT : ETR_LONG, 4,
                               out_sizes, order);
  }
  int64_t pair[4][2] = {{window_h[0], window_w[0]},
                        {window_h[1], window_w[1]},
                        {window_h[2], window_w[2]},
                        {window_h[3], window_w[3]}};
  etr_evalue_t *args[2][9];
  for (int r = 0; r < 2; ++r) {
    args[r][0] = tt_ev_tensor(self);
    for (int k = 0; k < 4; ++k) {
      args[r][1 + k] = tt_ev_int_list(2, pair[k]);
    }
    args[r][5] = tt_ev_bool(ceil_mode);
    args[r][6] = tt_ev_tensor(outs[2 * r]);
    args[r][7] = tt_ev_tensor(outs[2 * r + 1]);
    args[r][8] = tt_ev_tensor_list(2, &outs[2 * r]);
  }
  etr_diag_t diag;
  memset(&diag, 0, sizeof(diag));
  etr_kernel_context_t ctx;
  memset(&ctx, 0, sizeof(ctx));
  ctx.diag = &diag;
  ctx.op_name = "aten::max_pool2d_with_indices.out";
  if (etr_ref_max_pool2d_with_indices_out(&ctx, args[0], 9) != ETR_OK) {
    return 1;
  }
  int failures = 0;
  const float *expected = (const float *)outs[0]->data;
  int64_t m = etr_tensor_numel(outs[0]);
  for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
    if (!etr_isa_available((etr_isa_t)isa)) {
      continue;
    }
    etr_isa_force((etr_isa_t)isa);
    memset(outs[2]->data, 0x55, (size_t)m * sizeof(float));
    etr_error_t status = etr_pool_max2d_values_only(&ctx, args[1], 9);
    const float *got = (const float *)outs[2]->data;
    for (int64_t i = 0; i < m && status == ETR_OK; ++i) {
      // NaN bits too: NaN and -NaN are planted, and the winning tap's
      // sign must come through.
      if (memcmp(&expected[i], &got[i], sizeof(float)) != 0) {
        cr_log_error("values_only [%lld %lld %lld %lld]%s isa %s: "
                     "output %lld is %a, reference %a",
                     (long long)sizes[0], (long long)sizes[1],
                     (long long)sizes[2], (long long)sizes[3],
                     channels_last ? " channels-last" : "",
                     etr_isa_name((etr_isa_t)isa), (long long)i,
                     (double)got[i], (double)expected[i]);
        ++failures;
        break;
      }
    }
    failures += status != ETR_OK;
  }
  etr_isa_reset();
  return failures;
}

// The same window along both dims.
static int values_only_case(const int64_t *sizes, bool channels_last,
                            const int64_t *window, bool ceil_mode,
                            pattern_t pattern, plant_t plant,
                            uint64_t seed) {
  return values_only_case_hw(sizes, channels_last, window, window,
                             ceil_mode, pattern, plant, seed);
}

TT_TEST(diff_pool2x2, max_values_only) {
  int failures = 0;
  uint64_t seed = 40000;
  static const int64_t kTwoByTwo[4] = {2, 2, 0, 1};
  static const int64_t kPadded[4] = {3, 2, 1, 1};
  size_t count = sizeof(kWholeTensorShapes) / sizeof(kWholeTensorShapes[0]);
  for (size_t i = 0; i < count; ++i) {
    for (int variant = 0; variant < 6; ++variant) {
      pattern_t pattern = variant >= 1 && variant <= 4 ? (pattern_t)variant
                                                       : PATTERN_NONE;
      if (pattern == PATTERN_HUGE) {
        pattern = PATTERN_NONE;
      }
      failures += values_only_case(kWholeTensorShapes[i], false, kTwoByTwo,
                                   variant == 5, pattern,
                                   variant == 0 ? PLANT_NAN : PLANT_NONE,
                                   seed++);
    }
    failures += values_only_case(kWholeTensorShapes[i], i % 2 == 0,
                                 kPadded, i % 3 == 0, PATTERN_NONE,
                                 PLANT_NAN, seed++);
  }
  cr_assert_eq(failures, 0, "%d values-only max pool cases disagree",
               failures);
}

// The values-only planes kernel (pool_values_avx512.c: every window in one
// vector loop, taps outside the input as -inf) on the windows CNNs use and
// their edges: ResNet's 3x3/2 padding 1 on its 32 x 48 x 48 stem output,
// 3x3/1 padding 1, 5x5/2 padding 2, 2x2/1, 4x4/2, 7x7/1 padding 3, dilation
// 2, ceil_mode windows that overhang the input, and a window larger than
// the input; rows of 1 to 35 outputs (one and two 16-lane blocks and their
// tails). Column stride 3, 17-column windows and rows of more than 1024
// outputs take the row kernels (checked the same way).
TT_TEST(diff_pool2x2, max_values_only_windows) {
  static const int64_t kWindows[][4] = {
      {3, 2, 1, 1}, {3, 1, 1, 1}, {5, 2, 2, 1}, {2, 1, 0, 1}, {4, 2, 1, 1},
      {7, 1, 3, 1}, {3, 2, 1, 2}, {3, 2, 0, 1}, {3, 3, 1, 1}, {17, 1, 8, 1},
  };
  static const int64_t kShapes[][4] = {
      {1, 32, 48, 48}, {1, 3, 5, 7},  {2, 3, 9, 33}, {1, 2, 6, 69},
      {1, 1, 3, 1},    {1, 2, 7, 31}, {1, 1, 9, 66}, {1, 2, 3, 2100},
  };
  int failures = 0;
  uint64_t seed = 50000;
  int variant = 0;
  for (size_t w = 0; w < sizeof(kWindows) / sizeof(kWindows[0]); ++w) {
    for (size_t s = 0; s < sizeof(kShapes) / sizeof(kShapes[0]); ++s) {
      const int64_t *sizes = kShapes[s];
      const int64_t *window = kWindows[w];
      int64_t span = window[3] * (window[0] - 1) + 1;
      // PyTorch asks padding <= half the kernel and a window that fits
      // the padded input.
      if (sizes[2] + 2 * window[2] < span || sizes[3] + 2 * window[2] < span) {
        continue;
      }
      ++variant;
      pattern_t pattern = (pattern_t)(variant % 5);
      plant_t plant = variant % 3 == 0 ? PLANT_NAN : PLANT_NONE;
      if (pattern == PATTERN_HUGE) {
        pattern = PATTERN_NONE;
        plant = PLANT_SIGNED_ZERO;
      }
      bool ceil_mode = w == 7 || variant % 4 == 0;
      failures += values_only_case(sizes, false, window, ceil_mode, pattern,
                                   plant, seed++);
    }
  }
  cr_assert_eq(failures, 0, "%d values-only max pool windows disagree",
               failures);
}

// Windows whose rows and columns differ (pool_values_avx512.c's separated
// 3-column stride-2 loop takes any rows: a 1-row window, row stride 1 or
// 3, dilated rows, padding on one dim only) on ResNet's stem pool shape
// and row tails, each planted with nothing, NaN and signed zeros.
TT_TEST(diff_pool2x2, max_values_only_rectangular) {
  static const int64_t kWindows[][2][4] = {
      {{3, 2, 1, 1}, {3, 2, 0, 1}}, {{2, 2, 0, 1}, {3, 2, 1, 1}},
      {{3, 1, 1, 2}, {3, 2, 1, 1}}, {{1, 1, 0, 1}, {3, 2, 1, 1}},
      {{5, 3, 2, 1}, {3, 2, 0, 1}}, {{3, 2, 1, 1}, {5, 1, 2, 1}},
  };
  static const int64_t kShapes[][4] = {
      {1, 32, 48, 48}, {2, 3, 9, 33}, {1, 2, 7, 31},
      {1, 1, 9, 66},   {1, 3, 5, 7},  {1, 2, 6, 69},
  };
  int failures = 0;
  uint64_t seed = 60000;
  int variant = 0;
  for (size_t w = 0; w < sizeof(kWindows) / sizeof(kWindows[0]); ++w) {
    for (size_t s = 0; s < sizeof(kShapes) / sizeof(kShapes[0]); ++s) {
      for (int p = 0; p < 3; ++p) {
        ++variant;
        failures += values_only_case_hw(
            kShapes[s], false, kWindows[w][0], kWindows[w][1],
            variant % 4 == 0, variant % 5 == 4 ? PATTERN_TIES : PATTERN_NONE,
            (plant_t)p, seed++);
      }
    }
  }
  cr_assert_eq(failures, 0, "%d values-only max pool windows disagree",
               failures);
}
