// SPDX-License-Identifier: Apache-2.0
//
// The shifted-rows convolution (ops_optimized/conv/shifted_avx512.c)
// through aten::convolution.out against the reference kernel on every ISA
// of this machine (conv_test_util.h): ResNet's 32x24x24 and 128x6x6 layers;
// out channels around its tile of 8 (1, 7, 9, 17); planes whose last tile
// has 1, 2 or 3 vectors of positions; padding 0 (the input read in place,
// batches of 2), 1 and 2 (5x5; 3x3 at dilation 2); 1x3 and 3x1 kernels; two
// groups; up to 29 KB of padded rows a tile. Each case: random floats within the accumulation bound, exact
// small integers with NaN, +-inf and -0.0 in the input bit for bit, and
// exact integers with one inf weight (NaN where it meets the padding's
// zeros, as PyTorch's). On x86 the test first checks that the kernel
// takes each geometry, so the cases cannot drift onto the GEMM path.
#include <criterion/criterion.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/test/conv_test_util.h"

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

// The geometry op_convolution.c builds for one group of a contiguous case.
static etr_conv2d_geometry_t geometry(const conv_case_t *p) {
  int64_t cg = p->c / p->groups;
  return (etr_conv2d_geometry_t){
      .channels = cg,
      .in_h = p->h,
      .in_w = p->w,
      .out_h = out_size(p->h, p->kh, 1, p->pad, p->dilation),
      .out_w = out_size(p->w, p->kw, 1, p->pad, p->dilation),
      .kernel_h = p->kh,
      .kernel_w = p->kw,
      .stride_h = 1,
      .stride_w = 1,
      .pad_h = p->pad,
      .pad_w = p->pad,
      .dilation_h = p->dilation,
      .dilation_w = p->dilation,
      .in_stride_c = p->h * p->w,
      .in_stride_h = p->w,
      .in_stride_w = 1,
      .w_stride_oc = cg * p->kh * p->kw,
      .w_stride_c = p->kh * p->kw,
      .w_stride_h = p->kw,
      .w_stride_w = 1,
  };
}

TT_TEST(diff_conv_shifted, tiles_paddings_kernels) {
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
  int failures = 0;
  for (size_t i = 0; i < COUNT(cases); ++i) {
    const conv_case_t *p = &cases[i];
#if defined(__x86_64__)
    etr_conv2d_geometry_t g = geometry(p);
    cr_assert(etr_conv_shifted_nchw_avx512_applies(&g),
              "case %zu: the shifted kernel does not take [%lld,%lld,%lld,"
              "%lld] k %lldx%lld p%lld d%lld g%lld",
              i, (long long)p->n, (long long)p->c, (long long)p->h,
              (long long)p->w, (long long)p->kh, (long long)p->kw,
              (long long)p->pad, (long long)p->dilation, (long long)p->groups);
#else
    (void)geometry;
#endif
    failures += run_conv_random_and_specials(p);
    g_poke_inf_weight = true;
    failures += run_conv(p, ETR_FLOAT, ETR_DIFF_CONTIGUOUS, ETR_FILL_EXACT_INT,
                         ETR_FILL_EXACT_INT, false);
    g_poke_inf_weight = false;
  }
  cr_assert_eq(failures, 0, "%d shifted-rows cases disagree", failures);
}

// Geometries it must leave to the GEMM: stride 2, too few products per
// output, a 3x1 kernel with padding (no padding columns to share), too
// many positions dropped (64x12x12: 90% against the GEMM's 100%), rows
// past L1 (128x28x28), a padded copy past the scratch limit (128x34x34).
#if defined(__x86_64__)
TT_TEST(diff_conv_shifted, declines) {
  static const conv_case_t cases[] = {
      {1, 32, 24, 24, 32, 3, 3, 2, 1, 1, 1, false},
      {1, 3, 24, 24, 8, 3, 3, 1, 1, 1, 1, false},
      {1, 16, 20, 20, 8, 3, 1, 1, 1, 1, 1, false},
      {1, 64, 12, 12, 64, 3, 3, 1, 1, 1, 1, false},
      {1, 128, 28, 28, 128, 3, 3, 1, 1, 1, 1, false},
      {1, 128, 34, 34, 128, 3, 3, 1, 1, 1, 1, false},
  };
  for (size_t i = 0; i < COUNT(cases); ++i) {
    etr_conv2d_geometry_t g = geometry(&cases[i]);
    g.stride_h = g.stride_w = cases[i].stride;
    cr_assert(!etr_conv_shifted_nchw_avx512_applies(&g), "case %zu", i);
  }
}
#endif
