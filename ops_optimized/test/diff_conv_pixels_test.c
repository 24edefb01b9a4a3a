// SPDX-License-Identifier: Apache-2.0
//
// The pixel-tile convolution (ops_optimized/conv/pixels_avx512.c and
// pixels_avx2.c) through aten::convolution.out against the reference
// kernel on every ISA of this machine (conv_test_util.h): ResNet's
// stride-2 layers and a 64x11x11 layer (its 64x12x12 one now takes the
// shifted kernel's packed rows); out channels that end a panel
// (64 wide on AVX-512, 16 on AVX2) with 1, 2 or 3 vectors and several
// panels; planes whose last tile has 1 to 5 pixels, rows of 1 to 28
// outputs, non-square planes, 784 pixels (and on AVX2 up to 56x56); strides
// 2 and 3, dilation 2, 5x5 and 7x7 kernels, 1x3, 3x1 and 1x1, padding 0
// (the input read in place) to 3; two groups, batches of 2. Each case:
// random floats within the accumulation bound, exact small integers with
// NaN, +-inf and -0.0 in the input bit for bit, and exact integers with
// one inf weight (NaN where it meets the padding's zeros, as PyTorch's).
// On x86 the test first checks that the kernels take each geometry and
// the shifted-rows kernel does not (the unfused op then runs the pixel
// tiles; the Winograd kernel, which would take the stride-1 3x3 cases
// first, is off in these tests: etr_conv_winograd_allow), so the cases
// cannot drift onto another path. Fused calls with
// weights packed at load time are fuse_test's (ResNet fused and unfused,
// byte for byte).
#include <criterion/criterion.h>

#include "ops_optimized/test/conv_test_util.h"

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

// The Winograd kernel (conv/winograd_avx512.c) would take the 3x3
// stride-1 cases first: off for the tests that run this kernel.
static void no_winograd(void) { etr_conv_winograd_allow(false); }

// Whether the unfused op takes the pixel tiles for `p`, where this build
// has the kernel (true elsewhere: nothing to check).
static bool takes(const conv_case_t *p) {
#if defined(__x86_64__)
  etr_conv2d_geometry_t g = conv_case_geometry(p);
  return etr_conv_pixels_nchw_avx512_applies(&g, p->oc / p->groups) &&
         !etr_conv_shifted_nchw_avx512_applies(&g) &&
         etr_conv_pixels_nchw_avx2_applies(&g, p->oc / p->groups);
#else
  (void)p;
  return true;
#endif
}

// The same for the AVX2 kernel alone.
static bool takes_avx2(const conv_case_t *p) {
#if defined(__x86_64__)
  etr_conv2d_geometry_t g = conv_case_geometry(p);
  return etr_conv_pixels_nchw_avx2_applies(&g, p->oc / p->groups);
#else
  (void)p;
  return true;
#endif
}

TT_TEST(diff_conv_pixels, tiles_panels_geometries, .init = no_winograd) {
  // n, c, h, w, oc, kh, kw, stride, pad, dilation, groups, bias
  static const conv_case_t cases[] = {
      {1, 32, 24, 24, 64, 3, 3, 2, 1, 1, 1, true},     // ResNet stride 2
      {1, 64, 12, 12, 128, 3, 3, 2, 1, 1, 1, false},
      {1, 64, 11, 11, 64, 3, 3, 1, 1, 1, 1, true},     // 64x12x12's peer
      {1, 16, 12, 12, 80, 3, 3, 2, 1, 1, 1, true},     // last panel: 1 vector
      {1, 16, 12, 12, 96, 3, 3, 2, 1, 1, 1, false},    // 2 vectors
      {1, 16, 12, 12, 112, 3, 3, 2, 1, 1, 1, true},    // 3 vectors
      {1, 8, 10, 10, 176, 3, 3, 2, 1, 1, 1, false},    // 3 panels
      {1, 16, 14, 14, 64, 3, 3, 2, 1, 1, 1, true},     // 49 pixels: tail 1
      {1, 16, 10, 10, 64, 3, 3, 2, 1, 1, 1, false},    // 25: tail 1
      {1, 16, 16, 16, 64, 3, 3, 2, 0, 1, 1, true},     // 7x7, in place
      {1, 16, 13, 9, 64, 3, 3, 2, 1, 1, 1, true},      // 7x5 = 35: tail 5
      {1, 16, 5, 27, 64, 3, 3, 2, 1, 1, 1, false},     // 3x14 = 42
      {1, 16, 22, 2, 64, 3, 3, 2, 1, 1, 1, true},      // rows of 1 output
      {1, 8, 18, 18, 64, 3, 3, 3, 1, 1, 1, false},     // stride 3
      {1, 8, 20, 20, 64, 3, 3, 2, 2, 2, 1, true},      // dilation 2
      {1, 4, 20, 20, 64, 5, 5, 2, 2, 1, 1, false},     // 5x5
      {1, 5, 24, 24, 64, 7, 7, 2, 3, 1, 1, true},      // 7x7, padding 3
      {1, 16, 12, 24, 64, 1, 3, 2, 1, 1, 1, true},     // 1x3
      {1, 16, 24, 12, 64, 3, 1, 2, 1, 1, 1, false},    // 3x1
      {2, 32, 12, 12, 128, 3, 3, 2, 1, 1, 2, true},    // two groups, batch 2
      {2, 40, 13, 13, 64, 3, 3, 1, 1, 1, 1, false},    // stride 1, 13x13
      {1, 128, 28, 28, 64, 3, 3, 1, 1, 1, 1, true},    // 784 pixels
  };
  int failures = 0;
  for (size_t i = 0; i < COUNT(cases); ++i) {
    cr_assert(takes(&cases[i]), "case %zu does not take the pixel tiles", i);
    failures += run_taken_cases(&cases[i], 1, NULL);
  }
  cr_assert_eq(failures, 0, "%d pixel-tile cases disagree", failures);
}

// What the AVX2 kernel takes beyond the AVX-512 one: panels of 16 that
// end with one vector of 8 (8, 24 and 40 out channels), 32 and 72 out
// channels, as few as 8 products per output (mobilenet_v2's 3-channel
// stem), 1x1 kernels at stride 2, planes of 30x30 to 112x112 (the last
// tile of 3136 and 12544 pixels full, of 900 and 1600 not), and inputs
// whose padded planes take two passes (the sums carried over in the out).
TT_TEST(diff_conv_pixels, avx2_panels_and_planes, .init = no_winograd) {
  static const conv_case_t cases[] = {
      {1, 16, 12, 12, 8, 3, 3, 1, 1, 1, 1, true},      // one vector
      {1, 16, 12, 12, 24, 3, 3, 2, 1, 1, 1, false},    // 16 + 8
      {2, 8, 9, 11, 40, 3, 3, 1, 1, 1, 1, true},       // 16 + 16 + 8
      {1, 32, 24, 24, 32, 3, 3, 2, 1, 1, 1, false},
      {1, 32, 24, 24, 72, 3, 3, 2, 1, 1, 1, true},
      {1, 3, 64, 64, 16, 3, 3, 2, 1, 1, 1, true},      // 3-channel stem
      {1, 4, 20, 20, 16, 1, 3, 1, 1, 1, 1, false},     // 12 products
      {1, 64, 28, 28, 48, 1, 1, 2, 0, 1, 1, false},    // 1x1 stride 2
      {1, 32, 60, 60, 64, 3, 3, 2, 1, 1, 1, true},     // 30x30
      {1, 8, 40, 40, 16, 3, 3, 1, 1, 1, 1, false},     // 40x40
      {1, 8, 56, 56, 16, 3, 3, 1, 1, 1, 1, true},      // 56x56
      {1, 3, 224, 224, 16, 3, 3, 2, 1, 1, 1, true},    // 112x112 stem
      {1, 16, 112, 112, 16, 3, 3, 2, 1, 1, 1, true},   // 2 passes of 8
      {2, 41, 80, 80, 24, 3, 3, 2, 1, 1, 1, false},    // passes of 21, 20
  };
  int failures = 0;
  for (size_t i = 0; i < COUNT(cases); ++i) {
    cr_assert(takes_avx2(&cases[i]), "case %zu: AVX2 does not take it", i);
    failures += run_taken_cases(&cases[i], 1, NULL);
  }
  cr_assert_eq(failures, 0, "%d pixel-tile cases disagree", failures);
}

// Geometries they leave to other kernels. AVX-512: fewer than 64 out
// channels, a count that is not a multiple of 16, too few products per
// output, more than 784 or fewer than 6 out pixels. AVX2: a count that is
// not a multiple of 8, fewer than 8 products, 1x1 at stride 1 without
// padding (the GEMM reads it in place), more than 12544 or fewer than 6
// out pixels.
TT_TEST(diff_conv_pixels, declines) {
#if defined(__x86_64__)
  static const conv_case_t avx512[] = {
      {1, 32, 24, 24, 32, 3, 3, 2, 1, 1, 1, false},
      {1, 32, 24, 24, 72, 3, 3, 2, 1, 1, 1, false},
      {1, 3, 24, 24, 64, 3, 3, 2, 1, 1, 1, false},
      {1, 32, 60, 60, 64, 3, 3, 2, 1, 1, 1, false},
      {1, 32, 4, 4, 64, 3, 3, 2, 1, 1, 1, false},
  };
  for (size_t i = 0; i < COUNT(avx512); ++i) {
    etr_conv2d_geometry_t g = conv_case_geometry(&avx512[i]);
    cr_assert(!etr_conv_pixels_nchw_avx512_applies(&g, avx512[i].oc),
              "AVX-512: case %zu is taken", i);
  }
  static const conv_case_t avx2[] = {
      {1, 32, 24, 24, 12, 3, 3, 2, 1, 1, 1, false},
      {1, 32, 24, 24, 4, 3, 3, 2, 1, 1, 1, false},
      {1, 2, 24, 24, 64, 1, 3, 2, 1, 1, 1, false},
      {1, 64, 14, 14, 32, 1, 1, 1, 0, 1, 1, false},
      {1, 4, 114, 114, 16, 3, 3, 1, 1, 1, 1, false},
      {1, 32, 4, 4, 64, 3, 3, 2, 1, 1, 1, false},
  };
  for (size_t i = 0; i < COUNT(avx2); ++i) {
    etr_conv2d_geometry_t g = conv_case_geometry(&avx2[i]);
    cr_assert(!etr_conv_pixels_nchw_avx2_applies(&g, avx2[i].oc),
              "AVX2: case %zu is taken", i);
  }
#endif
}
