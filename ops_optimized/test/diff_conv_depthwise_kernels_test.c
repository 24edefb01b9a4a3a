// SPDX-License-Identifier: Apache-2.0
//
// The depthwise kernels' edges (conv.h, ops_optimized/conv/depthwise*):
// through aten::convolution.out against the reference kernel on every ISA
// of this machine (conv_test_util.h), the planes each kernel takes and the
// ones beside it that go elsewhere; each kernel called one channel plane
// at a time against itself over all channels; and the padding-tap weight
// scan.
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

// The depthwise kernels for small planes and stride 2 (conv.h): planes
// held in registers (3x3, stride 1, padding 1, rows of 2..15, at most 64
// elements: 1 to 4 vectors, pixel counts around 16, 32, 48 and 64), and
// the neighbours they hand over to (rows of 16+, 65+ pixels, padding 0 or
// 2, stride 2 to rows of fewer and more than 8); 1, 3 and 17 channels, a
// multiplier of 2, bias or none; NaN and inf inputs (exact data).
TT_TEST(diff_conv, depthwise_small_planes_and_stride_2) {
  static const int64_t planes[][2] = {
      {1, 2}, {2, 2}, {1, 15}, {3, 5}, {4, 4}, {2, 8}, {1, 16}, {1, 17},
      {2, 9}, {3, 11}, {4, 8}, {1, 31}, {6, 8}, {7, 7}, {7, 9}, {8, 8},
      {4, 16}, {5, 13}, {9, 9}, {2, 15}, {15, 2}, {16, 16}, {17, 15},
      {32, 32}, {5, 33}, {3, 64}};
  static const int64_t channels[][2] = {{1, 1}, {3, 6}, {17, 17}};
  int failures = 0;
  int run = 0;
  for (size_t i = 0; i < sizeof(planes) / sizeof(planes[0]); ++i) {
    for (int64_t stride = 1; stride <= 2; ++stride) {
      for (int64_t pad = 0; pad <= 2; ++pad) {
        if (planes[i][0] + 2 * pad < 3 || planes[i][1] + 2 * pad < 3) {
          continue;
        }
        ++run;
        const int64_t *cm = channels[run % 3];
        conv_case_t p = {1 + (run % 5 == 0), cm[0], planes[i][0],
                         planes[i][1], cm[1], 3, 3, stride, pad, 1, cm[0],
                         run % 2 == 0};
        for (int layout = 0; layout < 3; layout += 2) {
          failures += run_conv(&p, ETR_FLOAT, (etr_diff_layout_t)layout,
                               ETR_FILL_RANDOM, ETR_FILL_RANDOM, false);
        }
        g_poke_specials = true;
        failures += run_conv(&p, ETR_FLOAT, ETR_DIFF_CONTIGUOUS,
                             ETR_FILL_EXACT_INT, ETR_FILL_EXACT_INT, false);
        g_poke_specials = false;
      }
    }
  }
  cr_assert_eq(failures, 0, "%d depthwise cases disagree", failures);
}

// The phase-plane kernel (depthwise_padded_avx512.c: square kernels of 2
// and 4 to 7, stride 1 or 2, zero-padded rows of at most 64): every such
// kernel, padding 0, 1, half the kernel and kernel - 1, planes from 3 x 5
// to 56 x 56 (its 4-row blocks and their tails, rows of 1 and 2 vectors),
// a padded row of exactly 64 and, beside it, 65 (the generic kernels);
// a multiplier of 1 and 2, 17 channels, bias or none; random data, and
// exact data with NaN, inf and -0.0 inputs.
TT_TEST(diff_conv, depthwise_padded_phase_planes) {
  static const int64_t kernels[] = {2, 4, 5, 6, 7};
  static const int64_t planes[][2] = {{3, 5},   {7, 7},   {8, 8},
                                      {14, 14}, {16, 16}, {9, 33},
                                      {28, 28}, {56, 56}, {60, 4},
                                      {2, 62},  {2, 63}};
  static const int64_t channels[][2] = {{3, 3}, {2, 4}, {17, 17}};
  int failures = 0;
  int run = 0;
  for (size_t i = 0; i < sizeof(kernels) / sizeof(kernels[0]); ++i) {
    const int64_t k = kernels[i];
    const int64_t pads[] = {0, 1, k / 2, k - 1};
    for (size_t j = 0; j < sizeof(planes) / sizeof(planes[0]); ++j) {
      for (int64_t stride = 1; stride <= 2; ++stride) {
        for (size_t q = 0; q < 4; ++q) {
          const int64_t pad = pads[q];
          if ((q > 0 && pad == pads[q - 1]) || planes[j][0] + 2 * pad < k ||
              planes[j][1] + 2 * pad < k ||
              (planes[j][1] == 62 && pad != 1) ||
              (planes[j][1] == 63 && pad != 1) ||
              (planes[j][0] == 56 && pad > 4)) {
            continue;
          }
          ++run;
          const int64_t *cm = channels[run % 3];
          conv_case_t p = {1 + (run % 7 == 0), cm[0], planes[j][0],
                           planes[j][1], cm[1], k, k, stride, pad, 1,
                           cm[0], run % 2 == 0};
          failures += run_conv(&p, ETR_FLOAT, ETR_DIFF_CONTIGUOUS,
                               ETR_FILL_RANDOM, ETR_FILL_RANDOM, false);
          g_poke_specials = true;
          failures += run_conv(&p, ETR_FLOAT, ETR_DIFF_CONTIGUOUS,
                               ETR_FILL_EXACT_INT, ETR_FILL_EXACT_INT,
                               false);
          g_poke_specials = false;
        }
      }
    }
  }
  cr_assert_eq(failures, 0, "%d of %d phase-plane depthwise cases disagree",
               failures, run);
}

// Case `run` of the 3x3 padding-1 kernel sweeps below: 5 channels, or on
// every third run 2 input channels times 3; bias on even runs.
static conv_case_t sweep_case(int run, int64_t n, int64_t h, int64_t w,
                              int64_t stride) {
  const bool multiplied = run % 3 == 0;
  return (conv_case_t){n, multiplied ? 2 : 5, h, w, multiplied ? 6 : 5,
                       3, 3, stride, 1, 1, multiplied ? 2 : 5, run % 2 == 0};
}

// The register-resident plane kernel (depthwise3x3_plane_avx512.c: 3x3,
// stride 1, padding 1, rows of 2..15, at most 64 elements) on every plane
// it takes, its row-above and row-below permutes and the column shifts
// across 1 to 4 blocks: 5 channels (a multiplier of 1) or 2 input
// channels times 3, bias or none; random data, and exact data with NaN,
// inf and -0.0 inputs; beside it the planes one row taller or wider than
// it takes (65+ elements, rows of 16), which go elsewhere.
TT_TEST(diff_conv, depthwise_3x3_register_planes) {
  int failures = 0;
  int run = 0;
  for (int64_t w = 1; w <= 16; ++w) {
    for (int64_t h = 1; h * w <= 64 + w; ++h) {
      ++run;
      conv_case_t p = sweep_case(run, 1, h, w, 1);
      failures += run_conv_random_and_specials(&p);
    }
  }
  cr_assert_gt(run, 150);
  cr_assert_eq(failures, 0, "%d depthwise cases disagree", failures);
}

// The one-vector-per-row kernel (depthwise3x3_plane_avx512.c: 3x3, stride
// 1, padding 1, rows of 8..16, any height): rows of 7..17 (the ones beside
// it go elsewhere), heights 1..20, 5 channels or 2 x 3, bias or none,
// random data and exact data with NaN, inf and -0.0 inputs.
TT_TEST(diff_conv, depthwise_3x3_row_vectors) {
  int failures = 0;
  int run = 0;
  for (int64_t w = 7; w <= 17; ++w) {
    for (int64_t h = 1; h <= 20; h += 1 + (h > 6)) {
      ++run;
      conv_case_t p = sweep_case(run, 1 + (run % 7 == 0), h, w, 1);
      failures += run_conv_random_and_specials(&p);
    }
  }
  cr_assert_gt(run, 100);
  cr_assert_eq(failures, 0, "%d depthwise cases disagree", failures);
}

// The stride-2 row kernel that splits rows by column parity
// (depthwise3x3_s2_plane_avx512.c: padding 1, rows of 17..32 inputs, any
// height): rows of 15..34 (the ones beside it go elsewhere), odd and even
// heights 1..12, 5 channels or 2 x 3, bias or none, random data and exact
// data with NaN, inf and -0.0 inputs.
TT_TEST(diff_conv, depthwise_3x3_stride_2_row_vectors) {
  int failures = 0;
  int run = 0;
  for (int64_t w = 15; w <= 34; ++w) {
    for (int64_t h = 1; h <= 12; h += 1 + (w % 2)) {
      ++run;
      conv_case_t p = sweep_case(run, 1 + (run % 7 == 0), h, w, 2);
      failures += run_conv_random_and_specials(&p);
    }
  }
  cr_assert_gt(run, 100);
  cr_assert_eq(failures, 0, "%d depthwise cases disagree", failures);
}

// The stride-2 parity-split plane kernel (depthwise3x3_plane_avx512.c:
// padding 1, input planes of even sizes up to 64 elements, split into
// row and column parities with one or two permutes each): every even
// (h, w) it takes, 1x1 to 2x8 outputs, and the odd and larger planes
// beside them, which go elsewhere; 5 channels or 2 x 3, bias or none,
// random data and exact data with NaN, inf and -0.0 inputs.
TT_TEST(diff_conv, depthwise_3x3_stride_2_parity_planes) {
  int failures = 0;
  int run = 0;
  for (int64_t w = 1; w <= 18; ++w) {
    for (int64_t h = 1; h * w <= 64 + 2 * w; ++h) {
      if (h + 2 < 3 || w + 2 < 3 || (h % 2 == 1 && w % 2 == 1 && run % 2)) {
        continue;
      }
      ++run;
      conv_case_t p = sweep_case(run, 1, h, w, 2);
      failures += run_conv_random_and_specials(&p);
    }
  }
  cr_assert_gt(run, 100);
  cr_assert_eq(failures, 0, "%d depthwise cases disagree", failures);
}

// The 3x3 row kernel's whole-vector reads (stride 1: a block of 16
// outputs whose 18 input columns all lie inside the row) beside its
// masked reads: input rows 1..40 wide (blocks at, below and above 16 and
// 32 outputs, so a row mixes both kinds), 1..7 rows, stride 1 and 2,
// padding 0 and 1, a multiplier of 1 or 2, bias or none; NaN and inf
// inputs (exact data), and the non-contiguous layout's fallback.
TT_TEST(diff_conv, depthwise_3x3_row_widths) {
  int failures = 0;
  int run = 0;
  for (int64_t w = 1; w <= 40; ++w) {
    for (int64_t stride = 1; stride <= 2; ++stride) {
      for (int64_t pad = 0; pad <= 1; ++pad) {
        const int64_t h = 1 + (w + stride + pad) % 7;
        if (w + 2 * pad < 3 || h + 2 * pad < 3) {
          continue;
        }
        ++run;
        const int64_t channels = 1 + run % 3;
        const int64_t multiplier = 1 + run % 2;
        conv_case_t p = {1, channels, h, w, channels * multiplier, 3, 3,
                         stride, pad, 1, channels, run % 4 < 2};
        for (int layout = 0; layout < 3; ++layout) {
          failures += run_conv(&p, ETR_FLOAT, (etr_diff_layout_t)layout,
                               ETR_FILL_RANDOM, ETR_FILL_RANDOM, false);
        }
        g_poke_specials = true;
        failures += run_conv(&p, ETR_FLOAT, ETR_DIFF_CONTIGUOUS,
                             ETR_FILL_EXACT_INT, ETR_FILL_EXACT_INT, false);
        g_poke_specials = false;
      }
    }
  }
  cr_assert_gt(run, 100);
  cr_assert_eq(failures, 0, "%d depthwise cases disagree", failures);
}

// The depthwise kernels called as the op may call them, one channel plane
// at a time (channels = 1; out planes apart by more than a plane, whose
// gaps must stay untouched), with and without bias, against the same
// kernel over all channels: bit for bit, on every ISA of this machine.
// Small stride-1 planes, stride 2 to rows of at most 8 (two rows per
// vector), planes held in registers, and the row kernel.
TT_TEST(diff_conv, depthwise_kernel_per_plane) {
  static const int64_t shapes[][4] = {
      // in_h, in_w, stride, pad
      {4, 4, 1, 1}, {8, 8, 1, 1}, {3, 7, 1, 1}, {16, 16, 2, 1},
      {9, 9, 2, 1}, {15, 16, 2, 0}, {8, 8, 2, 1}, {12, 20, 2, 1},
      {6, 17, 1, 1}, {4, 4, 2, 1}, {6, 8, 2, 1}, {2, 16, 2, 1},
      {16, 16, 1, 1}, {9, 12, 1, 1}, {7, 20, 2, 1}};
  enum { kChannels = 5, kSpare = 3, kMaxPlane = 20 * 20 };
  static float input[kChannels * kMaxPlane];
  static float weight[kChannels * 9];
  static float bias[kChannels];
  static float all[kChannels * kMaxPlane];
  static float one[kChannels * (kMaxPlane + kSpare)];
  for (int64_t i = 0; i < kChannels * kMaxPlane; ++i) {
    input[i] = (float)((i * 7919) % 17) / 8.0f - 1.0f;
  }
  for (int64_t i = 0; i < kChannels * 9; ++i) {
    weight[i] = (float)((i * 31) % 11) / 4.0f - 1.25f;
  }
  for (int64_t i = 0; i < kChannels; ++i) {
    bias[i] = (float)i - 2.0f;
  }
  int checked = 0;
  for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
    if (!etr_isa_available((etr_isa_t)isa)) {
      continue;
    }
    etr_depthwise_fn kernel = etr_depthwise_for((etr_isa_t)isa, false);
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); ++i) {
      const int64_t *sh = shapes[i];
      int64_t out_h = out_size(sh[0], 3, sh[2], sh[3], 1);
      int64_t out_w = out_size(sh[1], 3, sh[2], sh[3], 1);
      etr_conv2d_geometry_t g = {
          .channels = 1, .in_h = sh[0], .in_w = sh[1], .out_h = out_h,
          .out_w = out_w, .kernel_h = 3, .kernel_w = 3, .stride_h = sh[2],
          .stride_w = sh[2], .pad_h = sh[3], .pad_w = sh[3],
          .dilation_h = 1, .dilation_w = 1, .in_stride_c = sh[0] * sh[1],
          .in_stride_h = sh[1], .in_stride_w = 1, .w_stride_oc = 9,
          .w_stride_c = 9, .w_stride_h = 3, .w_stride_w = 1};
      int64_t row = out_w;
      int64_t gap = kSpare;  // the per-plane outs' spare elements
      memset(all, 0, sizeof all);
      for (int64_t e = 0; e < kChannels * (out_h * row + gap); ++e) {
        one[e] = 12345.0f;  // the gaps must keep it
      }
      etr_depthwise_args_t a = {
          .geometry = &g, .input = input, .weight = weight, .bias = bias,
          .bias_stride = 1, .out = all, .out_stride_c = out_h * out_w,
          .out_stride_h = out_w, .out_stride_w = 1, .channels = kChannels,
          .multiplier = 1};
      kernel(&a);
      for (int64_t c = 0; c < kChannels; ++c) {
        etr_depthwise_args_t p = a;
        p.input = input + c * g.in_stride_c;
        p.weight = weight + c * 9;
        p.bias = c % 2 == 0 ? bias + c : NULL;
        p.out = one + c * (out_h * row + gap);
        p.out_stride_c = out_h * row + gap;
        p.out_stride_h = row;
        p.channels = 1;
        kernel(&p);
      }
      // Exact data (multiples of 1/32): the no-bias planes are the
      // biased ones minus the bias exactly.
      for (int64_t c = 0; c < kChannels; ++c) {
        for (int64_t e = 0; e < out_h * row + gap; ++e) {
          float got = one[c * (out_h * row + gap) + e];
          float want = e >= out_h * row ? 12345.0f
                       : c % 2 == 0     ? all[c * out_h * out_w + e]
                                        : all[c * out_h * out_w + e] - bias[c];
          cr_expect(got == want,
                    "isa %d shape %zu channel %lld at %lld: %g vs %g", isa,
                    i, (long long)c, (long long)e, (double)got,
                    (double)want);
          ++checked;
        }
      }
    }
  }
  cr_assert_gt(checked, 0);
}

// The padding-tap weight scan of each ISA (conv.h): counts 0..150 (the
// unrolled blocks of 64, the 16-lane tail, partial vectors) with one inf,
// -inf or NaN at every position, and with only finite extremes (the
// largest float, -0.0, a denormal), which must not count.
TT_TEST(diff_conv, nonfinite_weight_scan) {
  static float data[150];
  const float specials[] = {INFINITY, -INFINITY, NAN, -NAN};
  const float finite[] = {0x1.fffffep127f, -0x1.fffffep127f, -0.0f,
                          0x1p-149f};
  int checked = 0;
  for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
    etr_conv_nonfinite_fn scan = etr_isa_available((etr_isa_t)isa)
                                     ? etr_conv_any_nonfinite_for(
                                           (etr_isa_t)isa)
                                     : NULL;
    if (scan == NULL) {
      continue;
    }
    for (int64_t count = 0; count <= 150; ++count) {
      for (int64_t i = 0; i < count; ++i) {
        data[i] = finite[i % 4];
      }
      cr_expect(!scan(data, count), "isa %d count %lld: finite", isa,
                (long long)count);
      for (int64_t at = 0; at < count; ++at) {
        const float kept = data[at];
        data[at] = specials[(count + at) % 4];
        cr_expect(scan(data, count), "isa %d count %lld at %lld", isa,
                  (long long)count, (long long)at);
        data[at] = kept;
        ++checked;
      }
      // Past the count: not read.
      if (count < 150) {
        data[count] = NAN;
        cr_expect(!scan(data, count), "isa %d count %lld: past the end",
                  isa, (long long)count);
      }
    }
  }
  cr_assert(checked > 0 || !etr_isa_available(ETR_ISA_AVX512),
            "no ISA's scan ran");
}
