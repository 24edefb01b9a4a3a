// SPDX-License-Identifier: Apache-2.0
//
// The AVX2 3x3 depthwise kernels on out rows of 4 (ops_optimized/conv/
// depthwise3x3_w4_avx2.c: padding 1, two out rows a vector; stride 1 on
// input rows of 4, the taps in-lane shifts, and stride 2 on input rows of
// 8, split into even and odd columns; 4x4 and 8x8 planes unrolled).
//   - Through aten::convolution.out against the reference kernel on every
//     ISA of this machine (conv_test_util.h), after asserting that the
//     kernel takes each geometry: mobilenet_v2's 144 and 192 channels of
//     4x4 and 96 of 8x8 at stride 2, 96 and 88 of 8x8 and 72 of 16x16 at
//     stride 1 (rows of 8 and 16: an out row one or two vectors), odd and
//     even plane heights (1, 2, 3, 5, 7, 9, 17), a channel multiplier, a
//     batch of 2, no bias; random floats, exact integers with NaN, +-inf
//     and -0.0 inputs, one inf weight; contiguous, strided and
//     channels-last inputs.
//   - Called directly (conv_test_direct) on plane heights 1 to 9 at
//     stride 1 and 1 to 18 at stride 2 (pairs of out rows and a last
//     single row, the unrolled 4x4 and 8x8 paths), 1 to 17 for the
//     stride-1 kernel on rows of 8 (8x8 unrolled) and 1 to 9 on rows of
//     16, 1 and 3 channels, multipliers 1 and 2, with input rows, planes,
//     weights and out rows and planes apart by more than their sizes (the
//     out gaps must stay untouched): bit for bit against the scalar kernel on
//     exact data with NaN, +-inf and -0.0 inputs (NaN for NaN), against the FMA
//     chains of conv_test_fma_chain on random data, and with a fused post
//     (batch norm and clamp, either alone) against the chains followed by
//     the post, bit for bit on random data.
//   - The geometries it declines.
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/isa.h"
#include "ops_optimized/test/conv_test_util.h"

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

#if defined(__x86_64__)

// n, c, h, w, oc, kh, kw, stride, pad, dilation, groups, bias
static const conv_case_t kTaken[] = {
    {1, 144, 4, 4, 144, 3, 3, 1, 1, 1, 144, true},  // mobilenet_v2
    {1, 192, 4, 4, 192, 3, 3, 1, 1, 1, 192, true},
    {2, 9, 4, 4, 9, 3, 3, 1, 1, 1, 9, false},       // batch 2, no bias
    {1, 3, 7, 4, 3, 3, 3, 1, 1, 1, 3, true},        // odd height
    {1, 5, 1, 4, 5, 3, 3, 1, 1, 1, 5, true},        // one row
    {1, 4, 2, 4, 4, 3, 3, 1, 1, 1, 4, true},        // one pair
    {1, 4, 6, 4, 8, 3, 3, 1, 1, 1, 4, true},        // multiplier 2
};

// The stride-2 twin: input rows of 8.
static const conv_case_t kTakenS2[] = {
    {1, 96, 8, 8, 96, 3, 3, 2, 1, 1, 96, true},  // mobilenet_v2
    {2, 9, 8, 8, 9, 3, 3, 2, 1, 1, 9, false},    // batch 2, no bias
    {1, 3, 7, 8, 3, 3, 3, 2, 1, 1, 3, true},     // odd height, 4 out rows
    {1, 5, 1, 8, 5, 3, 3, 2, 1, 1, 5, true},     // one row
    {1, 4, 3, 8, 4, 3, 3, 2, 1, 1, 4, true},     // 2 out rows
    {1, 4, 6, 8, 8, 3, 3, 2, 1, 1, 4, true},     // multiplier 2
    {1, 3, 17, 8, 3, 3, 3, 2, 1, 1, 3, true},    // 9 out rows
};

// The stride-1 kernel on rows of 8.
static const conv_case_t kTakenW8[] = {
    {1, 96, 8, 8, 96, 3, 3, 1, 1, 1, 96, true},  // mobilenet_v2/v3
    {1, 88, 8, 8, 88, 3, 3, 1, 1, 1, 88, true},
    {2, 9, 8, 8, 9, 3, 3, 1, 1, 1, 9, false},    // batch 2, no bias
    {1, 3, 1, 8, 3, 3, 3, 1, 1, 1, 3, true},     // one row
    {1, 3, 9, 8, 3, 3, 3, 1, 1, 1, 3, true},     // 9 rows
    {1, 4, 6, 8, 8, 3, 3, 1, 1, 1, 4, true},     // multiplier 2
    {1, 72, 16, 16, 72, 3, 3, 1, 1, 1, 72, true},  // rows of 16
    {1, 4, 16, 16, 4, 3, 3, 1, 1, 1, 4, true},
    {2, 3, 5, 16, 6, 3, 3, 1, 1, 1, 3, false},     // batch 2, multiplier 2
};

// Rows of 3, 5 and 8, stride 2, padding 0 and 2, 5x5, dilation 2.
static const conv_case_t kDeclined[] = {
    {1, 8, 4, 3, 8, 3, 3, 1, 1, 1, 8, true},
    {1, 8, 4, 5, 8, 3, 3, 1, 1, 1, 8, true},
    {1, 8, 8, 8, 8, 3, 3, 1, 1, 1, 8, true},
    {1, 8, 8, 4, 8, 3, 3, 2, 1, 1, 8, true},
    {1, 8, 4, 4, 8, 3, 3, 1, 0, 1, 8, true},
    {1, 8, 4, 4, 8, 3, 3, 1, 2, 1, 8, true},
    {1, 8, 4, 4, 8, 5, 5, 1, 1, 1, 8, true},
    {1, 8, 4, 4, 8, 3, 3, 1, 1, 2, 8, true},
};

static bool takes(const etr_conv2d_geometry_t *g) {
  return etr_depthwise3x3_w4_nchw_avx2_applies(g);
}

// Rows of 7, 9 and 16, stride 1, padding 0 and 2, 5x5, dilation 2.
static const conv_case_t kDeclinedS2[] = {
    {1, 8, 8, 7, 8, 3, 3, 2, 1, 1, 8, true},
    {1, 8, 8, 9, 8, 3, 3, 2, 1, 1, 8, true},
    {1, 8, 16, 16, 8, 3, 3, 2, 1, 1, 8, true},
    {1, 8, 8, 8, 8, 3, 3, 1, 1, 1, 8, true},
    {1, 8, 8, 8, 8, 3, 3, 2, 0, 1, 8, true},
    {1, 8, 8, 8, 8, 3, 3, 2, 2, 1, 8, true},
    {1, 8, 8, 8, 8, 5, 5, 2, 1, 1, 8, true},
    {1, 8, 8, 8, 8, 3, 3, 2, 1, 2, 8, true},
};

static bool takes_s2(const etr_conv2d_geometry_t *g) {
  return etr_depthwise3x3_s2_w4_nchw_avx2_applies(g);
}

// Rows of 7, 9, 15 and 24, stride 2 (rows of 16), padding 0 and 2, 5x5.
static const conv_case_t kDeclinedW8[] = {
    {1, 8, 8, 7, 8, 3, 3, 1, 1, 1, 8, true},
    {1, 8, 8, 15, 8, 3, 3, 1, 1, 1, 8, true},
    {1, 8, 8, 24, 8, 3, 3, 1, 1, 1, 8, true},
    {1, 8, 8, 9, 8, 3, 3, 1, 1, 1, 8, true},
    {1, 8, 16, 16, 8, 3, 3, 2, 1, 1, 8, true},
    {1, 8, 8, 8, 8, 3, 3, 1, 0, 1, 8, true},
    {1, 8, 8, 8, 8, 3, 3, 1, 2, 1, 8, true},
    {1, 8, 8, 8, 8, 5, 5, 1, 2, 1, 8, true},
};

static bool takes_w8(const etr_conv2d_geometry_t *g) {
  return etr_depthwise3x3_w8_nchw_avx2_applies(g);
}

static int run_taken(const conv_case_t *cases, size_t count,
                     conv_takes_fn which) {
  int failures = 0;
  for (size_t i = 0; i < count; ++i) {
    const conv_case_t *p = &cases[i];
    etr_conv2d_geometry_t g = conv_case_geometry(p);
    cr_assert(which(&g), "case %zu: the kernel does not take it", i);
    failures += run_taken_case(p, true);
  }
  return failures;
}

TT_TEST(diff_depthwise3x3_w4_avx2, through_the_op) {
  int failures = run_taken(kTaken, COUNT(kTaken), takes);
  cr_assert_eq(failures, 0, "%d 3x3 rows-of-4 cases disagree", failures);
}

TT_TEST(diff_depthwise3x3_w4_avx2, stride2_through_the_op) {
  int failures = run_taken(kTakenS2, COUNT(kTakenS2), takes_s2);
  cr_assert_eq(failures, 0, "%d 3x3 stride-2 rows-of-8 cases disagree",
               failures);
}

TT_TEST(diff_depthwise3x3_w4_avx2, rows_of_8_through_the_op) {
  int failures = run_taken(kTakenW8, COUNT(kTakenW8), takes_w8);
  cr_assert_eq(failures, 0, "%d 3x3 rows-of-8 cases disagree", failures);
}

TT_TEST(diff_depthwise3x3_w4_avx2, declines) {
  check_declined(kDeclinedW8, COUNT(kDeclinedW8), takes_w8);
  check_declined(kDeclined, COUNT(kDeclined), takes);
  check_declined(kDeclinedS2, COUNT(kDeclinedS2), takes_s2);
  etr_conv2d_geometry_t s2 = conv_case_geometry(&kTakenS2[0]);
  s2.in_stride_w = 2;
  cr_assert(!takes_s2(&s2));
  etr_conv2d_geometry_t g = conv_case_geometry(&kTaken[0]);
  g.in_stride_w = 2;
  cr_assert(!takes(&g));
  g = conv_case_geometry(&kTaken[0]);
  g.out_h += 1;  // not the geometry's out size
  cr_assert(!takes(&g));
}

TT_TEST(diff_depthwise3x3_w4_avx2, heights_channels_and_posts) {
  if (!etr_isa_available(ETR_ISA_AVX2)) {
    cr_log_warn("no AVX2 on this machine: the kernel is not run");
    return;
  }
  enum { kRowGap = 3, kPlaneGap = 5, kWeightGap = 2 };
  int bad = 0;
  uint32_t seed = 1;
  // Rows of 4 at stride 1, of 8 at stride 2, of 8 and 16 at stride 1.
  static const struct {
    int64_t in_w, stride, max_h;
    conv_takes_fn takes;
    conv_test_direct_fn kernel;
  } kKernels[] = {
      {4, 1, 9, takes, etr_depthwise3x3_w4_nchw_avx2},
      {8, 2, 18, takes_s2, etr_depthwise3x3_s2_w4_nchw_avx2},
      {8, 1, 17, takes_w8, etr_depthwise3x3_w8_nchw_avx2},
      {16, 1, 9, takes_w8, etr_depthwise3x3_w8_nchw_avx2},
  };
  for (size_t k = 0; k < COUNT(kKernels); ++k) {
    for (int64_t h = 1; h <= kKernels[k].max_h; ++h) {
      etr_conv2d_geometry_t g = conv_test_gapped_geometry(
          1, h, kKernels[k].in_w, 3, kKernels[k].stride, 1, 1, kRowGap,
          kPlaneGap, kWeightGap);
      cr_assert(kKernels[k].takes(&g), "kernel %zu: height %lld not taken",
                k, (long long)h);
      for (int64_t multiplier = 1; multiplier <= 2; ++multiplier) {
        for (int64_t channels = multiplier; channels <= 3 * multiplier;
             channels += 2 * multiplier) {
          bad += conv_test_direct(kKernels[k].kernel, conv_test_fma_chain,
                                  etr_conv_post_rows_avx2, &g, channels,
                                  multiplier, seed++);
        }
      }
    }
  }
  cr_assert_eq(bad, 0, "%d outputs differ", bad);
}

#else

TT_TEST(diff_depthwise3x3_w4_avx2, not_x86) {
  cr_log_info("the 3x3 rows-of-4 AVX2 depthwise kernel is x86 only");
}

#endif
