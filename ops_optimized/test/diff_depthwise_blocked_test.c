// SPDX-License-Identifier: Apache-2.0
//
// The channel-blocked depthwise kernel (ops_optimized/conv/
// depthwise_blocked_avx2.c: eight channels per vector over a zero-padded
// tile of their pixels).
//   - Through aten::convolution.out against the reference kernel on every
//     ISA of this machine (conv_test_util.h), after asserting that the
//     kernel takes each geometry: planes read row by row (rows of 8k) and
//     as one flat run (4x4, 7x7: transposes across rows, a pixel tail),
//     out rows of 1 to 40 (3, 2 or 1 rows per register block, rows split
//     in chunks), stride 2, 5x5 and 7x7, dilation 2, channel tails of 1 to
//     7, a batch of 2, a tile of 1517 of the 1536 pixels it holds, planes
//     in bands of out rows (the last one shorter, the padding rows in
//     the first and last, 3x3 to 7x7, strides 1 and 2, rows narrower
//     than a transpose and with a tail); random
//     floats, exact integers with NaN, +-inf and -0.0 inputs, one inf
//     weight; contiguous, strided and channels-last inputs. (3x3
//     padding-1 layers with out rows of 8 or more at stride 2, and rows of
//     4, 8 or 16 at stride 1 or 8 at stride 2, now run
//     depthwise3x3_s2_avx2.c and depthwise3x3_w4_avx2.c through the op on
//     AVX2; the direct calls and the random geometries below still run
//     this kernel on such planes.)
//   - Called directly with input rows, input planes and out planes apart
//     by more than their sizes (the gaps must stay untouched), whole and
//     in bands, against
//     the scalar kernel bit for bit on exact data and the FMA chains of
//     conv_test_fma_chain on random data; and with a fused post
//     (batch norm and clamp, either alone) against the kernel followed
//     by the post, bit for bit on random data.
//   - Seeded random geometries (random_geometries below).
//   - The geometries it declines.
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/isa.h"
#include "ops_optimized/test/conv_test_util.h"

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

#if defined(__x86_64__)

// n, c, h, w, oc, kh, kw, stride, pad, dilation, groups, bias
static const conv_case_t kTaken[] = {
    {1, 16, 32, 32, 16, 3, 3, 1, 1, 1, 16, true},   // rows of 4 transposes
    {1, 48, 32, 32, 48, 3, 3, 2, 1, 1, 48, false},  // stride 2, 16 wide
    {1, 13, 4, 4, 13, 3, 3, 1, 1, 1, 13, true},     // flat, 2 + 2 rows
    {1, 8, 7, 4, 8, 3, 3, 1, 1, 1, 8, true},        // 3 + 3 + 1 rows
    {1, 24, 7, 7, 24, 3, 3, 1, 1, 1, 24, false},    // flat, pixel tail
    {1, 9, 14, 14, 9, 5, 5, 2, 2, 1, 9, true},      // 5x5 s2, 1 channel tail
    {1, 8, 6, 5, 8, 3, 3, 1, 1, 1, 8, true},        // 2 rows of 5 + 1
    {2, 17, 10, 10, 17, 3, 3, 1, 2, 2, 17, true},   // dilation 2, batch 2
    {1, 8, 2, 2, 8, 3, 3, 1, 1, 1, 8, false},       // 2x2 out
    {1, 15, 1, 40, 15, 3, 3, 1, 1, 1, 15, true},    // one row of 40
    {1, 8, 32, 36, 8, 7, 7, 2, 3, 1, 8, true},      // 7x7, tile 37 x 41
    {1, 96, 8, 8, 96, 3, 3, 2, 1, 1, 96, true},     // 4x4 out at stride 2
    {1, 10, 9, 11, 10, 2, 2, 1, 0, 1, 10, false},   // 2x2, no padding
    // In bands: more than 1024 out pixels (bands of 32 and 2 rows), a
    // tile of more than 1536 pixels at stride 2 (18 + 1), 5x5 stride 2
    // on 45 wide rows (14 + 14 + 2, row tails by a last transpose) with
    // a channel tail, 7x7 (20 + 20 + 10), dilation 2 in a batch of 2,
    // rows narrower than a transpose (170 + 130).
    {1, 8, 34, 32, 8, 3, 3, 1, 1, 1, 8, true},
    {1, 8, 37, 39, 8, 3, 3, 2, 1, 1, 8, true},
    {1, 11, 60, 45, 11, 5, 5, 2, 2, 1, 11, true},
    {1, 8, 50, 50, 8, 7, 7, 1, 3, 1, 8, false},
    {2, 9, 44, 44, 9, 3, 3, 1, 2, 2, 9, true},
    {1, 8, 300, 6, 8, 3, 3, 1, 1, 1, 8, true},
    // Row chunks of 5 and 6 (5x5), 9 at stride 2 (3x3).
    {1, 8, 6, 11, 8, 5, 5, 1, 2, 1, 8, true},
    {1, 8, 9, 18, 8, 3, 3, 2, 1, 1, 8, false},
};

// Multiplier 2, fewer than 8 channels, column stride 3, bands of fewer
// than 4 out rows (2 of 5 here), out rows longer than the out tile.
static const conv_case_t kDeclined[] = {
    {1, 8, 8, 8, 16, 3, 3, 1, 1, 1, 8, true},
    {1, 7, 8, 8, 7, 3, 3, 1, 1, 1, 7, true},
    {1, 8, 12, 12, 8, 3, 3, 3, 1, 1, 8, true},
    {1, 8, 9, 250, 8, 3, 3, 2, 1, 1, 8, true},
    {1, 8, 3, 1100, 8, 3, 3, 1, 1, 1, 8, true},
};

static bool takes(const conv_case_t *p) {
  etr_conv2d_geometry_t g = conv_case_geometry(p);
  return etr_depthwise_blocked_nchw_avx2_applies(&g, p->oc, p->oc / p->c);
}

TT_TEST(diff_depthwise_blocked, through_the_op) {
  int failures = 0;
  for (size_t i = 0; i < COUNT(kTaken); ++i) {
    const conv_case_t *p = &kTaken[i];
    cr_assert(takes(p), "case %zu: the blocked kernel does not take it", i);
    failures += run_taken_case(p, true);
  }
  cr_assert_eq(failures, 0, "%d blocked depthwise cases disagree", failures);
}

TT_TEST(diff_depthwise_blocked, declines) {
  for (size_t i = 0; i < COUNT(kDeclined); ++i) {
    cr_assert(!takes(&kDeclined[i]), "case %zu is taken", i);
  }
}

enum {
  kChannels = 13,
  kRowGap = 3,     // input rows in_w + kRowGap apart
  kPlaneGap = 5,   // and planes a further kPlaneGap
  kOutRowGap = 2,  // out rows out_w + kOutRowGap apart
  kOutGap = 4,     // and out planes a further kOutGap
  kMaxIn = 41 * (40 + kRowGap) + kPlaneGap,
  kMaxOut = 40 * (40 + kOutRowGap) + kOutGap,
};
static const float kSentinel = 12345.0f;

typedef struct direct_case {
  int64_t in_h, in_w, k, stride, pad, dilation;
} direct_case_t;

static const direct_case_t kDirect[] = {
    {4, 4, 3, 1, 1, 1},   {7, 7, 3, 1, 1, 1},   {16, 16, 3, 2, 1, 1},
    {20, 24, 3, 1, 1, 1}, {11, 13, 5, 2, 2, 1}, {9, 9, 3, 1, 2, 2},
    {40, 40, 3, 1, 1, 1}, {41, 37, 5, 2, 2, 1},  // in bands
    {12, 22, 5, 1, 2, 1}, {7, 25, 3, 2, 1, 1},
};

TT_TEST(diff_depthwise_blocked, strided_planes_and_fused_post) {
  if (!etr_isa_available(ETR_ISA_AVX2)) {
    cr_log_warn("no AVX2 on this machine: the blocked kernel is not run");
    return;
  }
  static float input[kChannels * kMaxIn];
  static float weight[kChannels * 25];
  static float bias[kChannels];
  static float scale[kChannels];
  static float shift[kChannels];
  static float want[kChannels * kMaxOut];
  static float got[kChannels * kMaxOut];
  int bad = 0;
  for (size_t i = 0; i < COUNT(kDirect); ++i) {
    const direct_case_t *d = &kDirect[i];
    etr_conv2d_geometry_t g =
        conv_test_gapped_geometry(1, d->in_h, d->in_w, d->k, d->stride, d->pad,
                                  d->dilation, kRowGap, kPlaneGap, 0);
    cr_assert(etr_depthwise_blocked_nchw_avx2_applies(&g, kChannels, 1),
              "direct case %zu not taken", i);
    const int64_t out_stride_h = g.out_w + kOutRowGap;
    const int64_t out_stride_c = g.out_h * out_stride_h + kOutGap;
    const int64_t out_numel = kChannels * out_stride_c;
    etr_depthwise_args_t a = {
        .geometry = &g, .input = input, .weight = weight, .bias = bias,
        .bias_stride = 1, .out = got, .out_stride_c = out_stride_c,
        .out_stride_h = out_stride_h, .out_stride_w = 1,
        .channels = kChannels, .multiplier = 1};
    etr_depthwise_args_t w = a;
    w.out = want;
    for (int exact = 1; exact >= 0; --exact) {
      conv_test_fill(input, kChannels * g.in_stride_c, exact, (uint32_t)i);
      conv_test_fill(weight, kChannels * g.w_stride_oc, exact,
                     (uint32_t)i + 100);
      conv_test_fill(bias, kChannels, exact, (uint32_t)i + 200);
      conv_test_fill(scale, kChannels, false, (uint32_t)i + 300);
      conv_test_fill(shift, kChannels, false, (uint32_t)i + 400);
      for (int64_t e = 0; e < out_numel; ++e) {
        got[e] = kSentinel;
        want[e] = kSentinel;
      }
      // The kernel alone: against the scalar kernel on exact data, and
      // against the FMA chains on random data (no NaN in either: every
      // bit must match).
      etr_depthwise_blocked_nchw_avx2(&a, NULL);
      if (exact) {
        etr_depthwise_nchw_scalar(&w);
      } else {
        conv_test_fma_chain(&w);
      }
      bad += conv_test_compare_outs(got, want, out_numel, false,
                                    "no post vs %s, case %zu",
                                    exact ? "scalar" : "FMA chains", i);
      // Each post against the kernel's outs followed by the post.
      for (int kind = 0; kind < 3; ++kind) {
        const etr_conv_post_t post =
            conv_test_post(kind, scale, shift, etr_conv_post_rows_avx2);
        static float post_want[kChannels * kMaxOut];
        memcpy(post_want, want, (size_t)out_numel * sizeof(float));
        conv_test_apply_post(&post, post_want, kChannels, g.out_h, g.out_w,
                             out_stride_c, out_stride_h);
        for (int64_t e = 0; e < out_numel; ++e) {
          got[e] = kSentinel;
        }
        etr_depthwise_blocked_nchw_avx2(&a, &post);
        bad += conv_test_compare_outs(
            got, post_want, out_numel, false, "%s, case %zu",
            exact ? "post, exact data" : "post, random data", i);
      }
    }
  }
  cr_assert_eq(bad, 0, "%d outputs differ", bad);
}

// Seeded random geometries, each side its own kernel size (1 to 7),
// stride (1 to 3 down, 1 or 2 across), padding (0 to 3) and dilation (1
// or 2), planes of 1 to 90 rows and columns (whole and in bands), 8 to
// 19 channels, input rows and planes and out rows and planes apart by
// more than their sizes, weights dense or apart, bias or none: every one
// the kernel takes must equal the FMA chains bit for bit on random data
// and leave the gaps alone.
TT_TEST(diff_depthwise_blocked, random_geometries) {
  if (!etr_isa_available(ETR_ISA_AVX2)) {
    cr_log_warn("no AVX2 on this machine: the blocked kernel is not run");
    return;
  }
  uint32_t state = 20261203u;
  int taken = 0;
  int banded = 0;
  int bad = 0;
  for (int i = 0; i < 300 && bad == 0; ++i) {
    int64_t r[14];
    for (int j = 0; j < 14; ++j) {
      state = state * 1664525u + 1013904223u;
      r[j] = state >> 8;
    }
    etr_conv2d_geometry_t g = {0};
    g.channels = 1;
    g.in_h = 1 + r[0] % 90;
    g.in_w = 1 + r[1] % 90;
    g.kernel_h = 1 + r[2] % 7;
    g.kernel_w = 1 + r[3] % 7;
    g.stride_h = 1 + r[4] % 3;
    g.stride_w = 1 + r[5] % 2;
    g.pad_h = r[6] % 4;
    g.pad_w = r[7] % 4;
    g.dilation_h = 1 + r[8] % 2;
    g.dilation_w = 1 + r[9] % 2;
    g.out_h = out_size(g.in_h, g.kernel_h, g.stride_h, g.pad_h, g.dilation_h);
    g.out_w = out_size(g.in_w, g.kernel_w, g.stride_w, g.pad_w, g.dilation_w);
    if (g.out_h < 1 || g.out_w < 1) {
      continue;
    }
    const int64_t channels = 8 + r[10] % 12;
    g.in_stride_w = 1;
    g.in_stride_h = g.in_w + r[11] % 3;
    g.in_stride_c = g.in_h * g.in_stride_h + r[11] % 5;
    g.w_stride_w = 1;
    g.w_stride_h = g.kernel_w;
    g.w_stride_c = g.kernel_h * g.kernel_w;
    g.w_stride_oc = g.w_stride_c + (r[12] % 2) * 3;
    if (!etr_depthwise_blocked_nchw_avx2_applies(&g, channels, 1)) {
      continue;
    }
    ++taken;
    // In bands where the whole plane misses the tiles (conv.h: 1024 out
    // pixels, 1536 padded input pixels, the padding as far as the taps
    // reach or the input ends).
    const int64_t reach_h = (g.kernel_h - 1) * g.dilation_h + 1;
    const int64_t reach_w = (g.kernel_w - 1) * g.dilation_w + 1;
    const int64_t tile_rows = (g.out_h - 1) * g.stride_h + reach_h;
    const int64_t tile_cols = (g.out_w - 1) * g.stride_w + reach_w;
    const int64_t rows = tile_rows > g.pad_h + g.in_h ? tile_rows
                                                      : g.pad_h + g.in_h;
    const int64_t cols = tile_cols > g.pad_w + g.in_w ? tile_cols
                                                      : g.pad_w + g.in_w;
    banded += g.out_h * g.out_w > 1024 || rows * cols > 1536;
    const int64_t out_stride_h = g.out_w + r[13] % 3;
    const int64_t out_stride_c = g.out_h * out_stride_h + r[13] % 4;
    const int64_t out_numel = channels * out_stride_c;
    float *input = malloc((size_t)(channels * g.in_stride_c) * sizeof(float));
    float *weight = malloc((size_t)(channels * g.w_stride_oc) * sizeof(float));
    float *bias = malloc((size_t)channels * sizeof(float));
    float *got = malloc((size_t)out_numel * sizeof(float));
    float *want = malloc((size_t)out_numel * sizeof(float));
    cr_assert(input && weight && bias && got && want, "out of memory");
    conv_test_fill(input, channels * g.in_stride_c, false, (uint32_t)i);
    conv_test_fill(weight, channels * g.w_stride_oc, false, (uint32_t)i + 1);
    conv_test_fill(bias, channels, false, (uint32_t)i + 2);
    for (int64_t e = 0; e < out_numel; ++e) {
      got[e] = kSentinel;
      want[e] = kSentinel;
    }
    etr_depthwise_args_t a = {
        .geometry = &g, .input = input, .weight = weight,
        .bias = r[12] % 3 == 0 ? NULL : bias, .bias_stride = 1, .out = got,
        .out_stride_c = out_stride_c, .out_stride_h = out_stride_h,
        .out_stride_w = 1, .channels = channels, .multiplier = 1};
    etr_depthwise_args_t w = a;
    w.out = want;
    etr_depthwise_blocked_nchw_avx2(&a, NULL);
    conv_test_fma_chain(&w);
    bad += conv_test_compare_outs(
        got, want, out_numel, false,
        "case %d: %lld channels, in %lldx%lld, kernel %lldx%lld, stride "
        "%lld,%lld, pad %lld,%lld, dilation %lld,%lld",
        i, (long long)channels, (long long)g.in_h, (long long)g.in_w,
        (long long)g.kernel_h, (long long)g.kernel_w, (long long)g.stride_h,
        (long long)g.stride_w, (long long)g.pad_h, (long long)g.pad_w,
        (long long)g.dilation_h, (long long)g.dilation_w);
    free(input);
    free(weight);
    free(bias);
    free(got);
    free(want);
  }
  cr_log_info("%d random geometries taken, %d of them in bands", taken,
              banded);
  cr_assert_eq(bad, 0, "%d outputs differ", bad);
  cr_assert(taken >= 150 && banded >= 20,
            "only %d geometries taken, %d of them in bands", taken, banded);
}

#else

TT_TEST(diff_depthwise_blocked, not_x86) {
  cr_log_info("the blocked depthwise kernel is x86 (AVX2) only");
}

#endif
