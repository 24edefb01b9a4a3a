// SPDX-License-Identifier: Apache-2.0
//
// The Winograd F(2x2, 3x3) convolution (ops_optimized/conv/winograd_avx512.c)
// through aten::convolution.out against the reference kernel on every ISA
// of this machine (conv_test_util.h): ResNet's 32x24x24 and 64x12x12
// layers; rows of 1 to 32 outputs (odd widths: a last tile column of one
// out column; 32: 16 tiles a row) and wider ones in strips of 32 columns
// that read their neighbours' (33, 56, 64, 65, 100: a last strip of 1 to
// 32 columns), odd heights (a last tile row of one out row); blocks of
// tile rows of 1, 2 and 3 vectors and several blocks; out
// channels around its tile of 8 (8, 9, 15, 17, 33) and 8 to 80 input
// channels; two groups, batches of 2, with and without bias. Each case:
//   * random floats within the accumulation bound (the transforms round
//     differently from the direct sums, well inside it);
//   * exact small integers without special values: every transform, product
//     and sum is exact (the weight's transform holds quarters), so the
//     kernel must match the reference bit for bit;
//   * exact integers with NaN, +-inf and -0.0 in the input, and with one inf
//     weight: the kernel declines them (inf - inf in its transforms would
//     turn the direct sum's inf into NaN) and the call's other path must
//     give the reference's bits.
// On x86 the test first checks that the kernel takes each geometry. The
// kernel's range checks are tested on it directly (an input at 2^40
// taken, past it declined with nothing written; weights likewise when
// packed), and so is the switch that turns it off.
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "ops_optimized/test/conv_test_util.h"

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

#if defined(__x86_64__)
static bool takes(const etr_conv2d_geometry_t *g, int64_t out_channels) {
  return etr_conv_winograd_nchw_avx512_applies(g, out_channels);
}
#endif

// The case's random and special-value runs, then exact integers alone.
static int run_case(const conv_case_t *p) {
#if defined(__x86_64__)
  etr_conv2d_geometry_t g = conv_case_geometry(p);
  cr_assert(takes(&g, p->oc / p->groups),
            "the kernel does not take [%lld,%lld,%lld,%lld] -> %lld",
            (long long)p->n, (long long)p->c, (long long)p->h,
            (long long)p->w, (long long)p->oc);
#endif
  int failures = run_taken_case(p, false);
  failures += run_conv(p, ETR_FLOAT, ETR_DIFF_CONTIGUOUS, ETR_FILL_EXACT_INT,
                       ETR_FILL_EXACT_INT, false);
  return failures;
}

TT_TEST(diff_conv_winograd, tiles_blocks_channels) {
  // n, c, h, w, oc, kh, kw, stride, pad, dilation, groups, bias
  static const conv_case_t cases[] = {
      {1, 32, 24, 24, 32, 3, 3, 1, 1, 1, 1, true},    // ResNet stage 1
      {1, 64, 12, 12, 64, 3, 3, 1, 1, 1, 1, false},   // stage 2: 75% lanes
      {1, 8, 32, 32, 8, 3, 3, 1, 1, 1, 1, true},      // 16 tiles a row
      {1, 8, 31, 31, 9, 3, 3, 1, 1, 1, 1, false},     // odd: last tile 1 col
      {1, 8, 7, 24, 15, 3, 3, 1, 1, 1, 1, true},      // odd height
      {1, 9, 24, 23, 17, 3, 3, 1, 1, 1, 1, false},
      {1, 16, 64, 2, 8, 3, 3, 1, 1, 1, 1, true},      // rows of 2: 32 tiles
      {1, 16, 63, 1, 8, 3, 3, 1, 1, 1, 1, false},     // rows of 1 output
      {1, 8, 18, 9, 33, 3, 3, 1, 1, 1, 1, true},      // 45 of 48 lanes
      {1, 12, 20, 17, 8, 3, 3, 1, 1, 1, 1, false},    // two blocks of 45
      {1, 8, 16, 16, 16, 3, 3, 1, 1, 1, 1, true},     // blocks of 3, 1 vectors
      {1, 8, 7, 7, 8, 3, 3, 1, 1, 1, 1, false},       // one vector, 16 tiles
      {1, 80, 14, 14, 24, 3, 3, 1, 1, 1, 1, true},    // 77%: 42 + 7 tiles
      {1, 16, 30, 30, 8, 3, 3, 1, 1, 1, 1, false},    // 15 tiles a row
      {2, 32, 12, 12, 32, 3, 3, 1, 1, 1, 2, true},    // two groups, batch 2
      {2, 8, 24, 24, 8, 3, 3, 1, 1, 1, 1, false},     // batch 2
      {1, 8, 10, 56, 8, 3, 3, 1, 1, 1, 1, true},      // strips of 32 + 24
      {1, 8, 9, 33, 9, 3, 3, 1, 1, 1, 1, false},      // a strip of 1 column
      {1, 8, 6, 64, 8, 3, 3, 1, 1, 1, 1, true},       // two full strips
      {1, 8, 5, 100, 16, 3, 3, 1, 1, 1, 1, false},    // 32, 32, 32, 4
      {2, 16, 20, 65, 24, 3, 3, 1, 1, 1, 1, true},    // batch 2, 32, 32, 1
  };
  int failures = 0;
  for (size_t i = 0; i < COUNT(cases); ++i) {
    failures += run_case(&cases[i]);
  }
  cr_assert_eq(failures, 0, "%d Winograd cases disagree", failures);
}

TT_TEST(diff_conv_winograd, declines) {
#if defined(__x86_64__)
  // n, c, h, w, oc, kh, kw, stride, pad, dilation, groups, bias
  static const conv_case_t cases[] = {
      {1, 128, 6, 6, 128, 3, 3, 1, 1, 1, 1, true},   // 9 tiles: 56% lanes
      {1, 8, 4, 4097, 8, 3, 3, 1, 1, 1, 1, true},    // rows past 4096
      {1, 7, 24, 24, 8, 3, 3, 1, 1, 1, 1, true},     // 7 input channels
      {1, 8, 24, 24, 7, 3, 3, 1, 1, 1, 1, true},     // 7 out channels
      {1, 8, 24, 24, 8, 3, 3, 2, 1, 1, 1, true},     // stride 2
      {1, 8, 24, 24, 8, 3, 3, 1, 0, 1, 1, true},     // padding 0
      {1, 8, 24, 24, 8, 3, 3, 1, 2, 2, 1, true},     // dilation 2
      {1, 8, 24, 24, 8, 5, 5, 1, 2, 1, 1, true},     // 5x5
      {1, 8, 4, 4, 8, 3, 3, 1, 1, 1, 1, true},       // 4 tiles
  };
  for (size_t i = 0; i < COUNT(cases); ++i) {
    etr_conv2d_geometry_t g = conv_case_geometry(&cases[i]);
    cr_assert(!takes(&g, cases[i].oc), "case %zu is taken", i);
  }
  etr_conv2d_geometry_t g = conv_case_geometry(&cases[0]);
  g.in_stride_w = 2;  // strided columns
  g.in_stride_h *= 2;
  cr_assert(!takes(&g, 8));
#endif
}

#if defined(__x86_64__)
// The kernel alone on 8 -> 8 channels of 8x8 with the transformed weight
// of `w0` at every tap and input value `x0` at one position: true when it
// took the call; on false nothing in `out` changed.
static bool run_direct(float x0, float w0, float *out) {
  static const conv_case_t p = {1, 8, 8, 8, 8, 3, 3, 1, 1, 1, 1, false};
  const etr_conv2d_geometry_t g = conv_case_geometry(&p);
  float input[8 * 64];
  float weight[8 * 8 * 9];
  for (int i = 0; i < 8 * 64; ++i) {
    input[i] = (float)(i % 7) - 3.0f;
  }
  for (int i = 0; i < 8 * 8 * 9; ++i) {
    weight[i] = (float)(i % 5) - 2.0f;
  }
  input[5 * 64 + 27] = x0;
  size_t packed_floats = etr_conv_winograd_packed_floats(8, 8);
  float *u = malloc(packed_floats * sizeof(float));
  float *scratch =
      malloc(etr_conv_winograd_scratch_floats(&g) * sizeof(float));
  cr_assert(u != NULL && scratch != NULL);
  cr_assert(etr_conv_winograd_pack(weight, &g, 8, u));
  weight[3 * 72 + 4] = w0;
  bool packed = etr_conv_winograd_pack(weight, &g, 8, u);
  bool ok = false;
  if (packed) {
    etr_conv_winograd_args_t a = {.g = &g,
                                  .input = input,
                                  .weight = u,
                                  .out = out,
                                  .out_stride = 64,
                                  .out_channels = 8,
                                  .scratch = scratch};
    ok = etr_conv_winograd_nchw_avx512(&a);
  }
  free(u);
  free(scratch);
  return ok;
}
#endif

TT_TEST(diff_conv_winograd, range_checks) {
#if defined(__x86_64__)
  if (!etr_isa_available(ETR_ISA_AVX512)) {
    return;
  }
  float out[8 * 64];
  cr_assert(run_direct(0x1p40f, 0x1p40f, out), "2^40 is in range");
  cr_assert(run_direct(-0x1p40f, -0x1p40f, out));
  cr_assert(run_direct(0x1p-140f, 0.0f, out), "a denormal is in range");
  const float bad[] = {0x1.000002p40f, -0x1p41f, INFINITY, -INFINITY, NAN,
                       3e38f};
  for (size_t i = 0; i < COUNT(bad); ++i) {
    for (int k = 0; k < 8 * 64; ++k) {
      out[k] = 42.0f;
    }
    cr_assert(!run_direct(bad[i], 1.0f, out), "input %g taken",
              (double)bad[i]);
    for (int k = 0; k < 8 * 64; ++k) {
      cr_assert(out[k] == 42.0f, "input %g: out[%d] written",
                (double)bad[i], k);
    }
    cr_assert(!run_direct(1.0f, bad[i], out), "weight %g packed",
              (double)bad[i]);
  }
#endif
}

// Turned off, the op finds no Winograd kernel; back on, it does.
TT_TEST(diff_conv_winograd, switch) {
  static const conv_case_t p = {1, 32, 24, 24, 32, 3, 3, 1, 1, 1, 1, true};
  const etr_conv2d_geometry_t g = conv_case_geometry(&p);
  cr_assert(etr_conv_winograd_allowed());
  etr_conv_winograd_allow(false);
  cr_assert_null(etr_conv_winograd_for(ETR_ISA_AVX512, &g, 32));
  cr_assert_eq(run_conv_random_and_specials(&p), 0);
  etr_conv_winograd_allow(true);
#if defined(__x86_64__)
  cr_assert_not_null(etr_conv_winograd_for(ETR_ISA_AVX512, &g, 32));
#endif
  cr_assert_null(etr_conv_winograd_for(ETR_ISA_AVX2, &g, 32));
}
