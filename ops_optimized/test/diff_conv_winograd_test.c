// SPDX-License-Identifier: Apache-2.0
//
// The Winograd F(2x2, 3x3) convolution's kernels through
// aten::convolution.out against the reference kernel on every ISA of this
// machine (conv_test_util.h):
//   * tile lanes (ops_optimized/conv/winograd_avx512.c): ResNet's 32x24x24
//     layer; rows of 1 to 32 outputs (odd widths: a last tile column of one
//     out column; 32: 16 tiles a row) and wider ones in strips of 32
//     columns that read their neighbours' (56, 64, 65, 100: a last strip
//     of 1 to 32 columns), odd heights (a last tile row of one out row);
//     blocks of tile rows of 1, 2 and 3 vectors and several blocks;
//   * position lanes (winograd_positions_avx512.c), the planes whose tiles
//     fill less than 90% of the other's lanes or that have at most 16:
//     ResNet's 64x12x12 and 128x6x6 layers, 1 to 49 tiles (a last step of
//     1, 2 or 3 tiles), single rows and columns, odd sizes, 256 -> 200
//     channels (its weight transformed a block of 8 out channels at a time
//     as the call needs it: 3.2 MB whole, past the 4 MiB scratch with the
//     rest);
//   * the AVX2 tile lanes (winograd_avx2.c): full strips of 16 columns in
//     blocks of 1 to 3 vectors, narrower strips of 1 to 7 tiles packed
//     several tile rows a block (ResNet's 24- and 12-wide layers, planes
//     4 to 100 columns wide, odd sizes), the smallest planes it takes;
// out channels around the tile of 8 (8, 9, 15, 17, 24, 33) and 8 to 128
// input channels; two groups, batches of 2, with and without bias. Each
// case:
//   * random floats within the accumulation bound (the transforms round
//     differently from the direct sums, well inside it);
//   * exact small integers without special values: every transform,
//     product and sum is exact (the weight's transform holds quarters), so
//     the kernel must match the reference bit for bit;
//   * exact integers with NaN, +-inf and -0.0 in the input, and with one
//     inf weight: the kernel declines them (inf - inf in its transforms
//     would turn the direct sum's inf into NaN) and the call's other path
//     must give the reference's bits.
// On x86 the test first checks that the op picks the kernel meant for
// each geometry (AVX-512's, or AVX2's for the AVX2 cases), and that the
// geometries either ISA leaves to the direct kernels are declined. The
// kernels' range checks are tested on them directly (an input at 2^40
// taken, past it declined with nothing written; weights likewise when
// packed), and so is the switch that turns them off.
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>

#include "ops_optimized/test/conv_test_util.h"

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

// The case's random and special-value runs, then exact integers alone,
// after checking (x86) that the op takes the kernel of `layout` on `isa`.
static int run_case(const conv_case_t *p, etr_isa_t isa,
                    etr_conv_winograd_layout_t layout) {
#if defined(__x86_64__)
  etr_conv2d_geometry_t g = conv_case_geometry(p);
  etr_conv_winograd_t w = etr_conv_winograd_for(isa, &g, p->oc / p->groups);
  cr_assert(w.run != NULL && w.layout == layout,
            "[%lld,%lld,%lld,%lld] -> %lld does not take layout %d on %s",
            (long long)p->n, (long long)p->c, (long long)p->h,
            (long long)p->w, (long long)p->oc, (int)layout,
            etr_isa_name(isa));
#else
  (void)isa;
  (void)layout;
#endif
  int failures = run_taken_case(p, false);
  failures += run_conv(p, ETR_FLOAT, ETR_DIFF_CONTIGUOUS, ETR_FILL_EXACT_INT,
                       ETR_FILL_EXACT_INT, false);
  return failures;
}

static int run_cases(const conv_case_t *cases, size_t count, etr_isa_t isa,
                     etr_conv_winograd_layout_t layout) {
  int failures = 0;
  for (size_t i = 0; i < count; ++i) {
    failures += run_case(&cases[i], isa, layout);
  }
  return failures;
}

TT_TEST(diff_conv_winograd, tile_lanes) {
  // n, c, h, w, oc, kh, kw, stride, pad, dilation, groups, bias
  static const conv_case_t cases[] = {
      {1, 32, 24, 24, 32, 3, 3, 1, 1, 1, 1, true},    // ResNet stage 1
      {1, 8, 32, 32, 8, 3, 3, 1, 1, 1, 1, true},      // 16 tiles a row
      {1, 8, 31, 31, 9, 3, 3, 1, 1, 1, 1, false},     // odd: last tile 1 col
      {1, 8, 7, 24, 15, 3, 3, 1, 1, 1, 1, true},      // odd height
      {1, 9, 24, 23, 17, 3, 3, 1, 1, 1, 1, false},
      {1, 16, 64, 2, 8, 3, 3, 1, 1, 1, 1, true},      // rows of 2: 32 tiles
      {1, 16, 63, 1, 8, 3, 3, 1, 1, 1, 1, false},     // rows of 1 output
      {1, 8, 18, 9, 33, 3, 3, 1, 1, 1, 1, true},      // 45 of 48 lanes
      {1, 12, 20, 17, 8, 3, 3, 1, 1, 1, 1, false},    // two blocks of 45
      {1, 8, 16, 16, 16, 3, 3, 1, 1, 1, 1, true},     // blocks of 3, 1 vectors
      {1, 16, 30, 30, 8, 3, 3, 1, 1, 1, 1, false},    // 15 tiles a row
      {1, 16, 16, 16, 32, 3, 3, 1, 1, 1, 1, true},    // the cnn's layer
      {2, 8, 24, 24, 8, 3, 3, 1, 1, 1, 1, false},     // batch 2
      {1, 8, 10, 56, 8, 3, 3, 1, 1, 1, 1, true},      // strips of 32 + 24
      {1, 8, 6, 64, 8, 3, 3, 1, 1, 1, 1, true},       // two full strips
      {1, 8, 5, 100, 16, 3, 3, 1, 1, 1, 1, false},    // 32, 32, 32, 4
      {2, 16, 20, 65, 24, 3, 3, 1, 1, 1, 2, true},    // groups 2, 32, 32, 1
  };
  int failures = run_cases(cases, COUNT(cases), ETR_ISA_AVX512,
                           ETR_CONV_WINOGRAD_TILE_LANES);
  cr_assert_eq(failures, 0, "%d tile-lane cases disagree", failures);
}

TT_TEST(diff_conv_winograd, avx2_tile_lanes) {
  // n, c, h, w, oc, kh, kw, stride, pad, dilation, groups, bias
  static const conv_case_t cases[] = {
      {1, 32, 24, 24, 32, 3, 3, 1, 1, 1, 1, true},    // ResNet: 8 + 4 tiles
      {1, 64, 12, 12, 64, 3, 3, 1, 1, 1, 1, false},   // 6 tiles: 4 rows a block
      {1, 16, 16, 16, 32, 3, 3, 1, 1, 1, 1, true},    // the cnn: 3, 3, 2 rows
      {1, 8, 7, 7, 8, 3, 3, 1, 1, 1, 1, false},       // last tile 1 col and row
      {1, 8, 31, 31, 9, 3, 3, 1, 1, 1, 1, true},      // strips 16 + 15
      {1, 9, 13, 33, 17, 3, 3, 1, 1, 1, 1, false},    // 16, 16, 1: 1 tile
      {1, 8, 9, 10, 8, 3, 3, 1, 1, 1, 1, true},       // 5 tiles: blocks 4, 1
      {1, 12, 20, 17, 15, 3, 3, 1, 1, 1, 1, false},   // 16 + 1
      {1, 16, 5, 100, 16, 3, 3, 1, 1, 1, 1, true},    // 6 x 16 + 4: 2 tiles
      {1, 8, 14, 14, 33, 3, 3, 1, 1, 1, 1, false},    // 7 tiles: 21 of 24
      {1, 8, 5, 4, 8, 3, 3, 1, 1, 1, 1, true},        // smallest: 3 x 2 tiles
      {1, 8, 11, 6, 24, 3, 3, 1, 1, 1, 1, false},     // 3 tiles: 8 rows
      {2, 8, 24, 24, 8, 3, 3, 1, 1, 1, 1, false},     // batch 2
      {2, 16, 20, 65, 24, 3, 3, 1, 1, 1, 2, true},    // groups 2, 16 x 4 + 1
  };
  int failures = run_cases(cases, COUNT(cases), ETR_ISA_AVX2,
                           ETR_CONV_WINOGRAD_TILE_LANES);
  cr_assert_eq(failures, 0, "%d AVX2 tile-lane cases disagree", failures);
}

TT_TEST(diff_conv_winograd, position_lanes) {
  // n, c, h, w, oc, kh, kw, stride, pad, dilation, groups, bias
  static const conv_case_t cases[] = {
      {1, 64, 12, 12, 64, 3, 3, 1, 1, 1, 1, false},   // ResNet stage 2
      {1, 128, 6, 6, 128, 3, 3, 1, 1, 1, 1, true},    // stage 3: 9 tiles
      {1, 80, 14, 14, 24, 3, 3, 1, 1, 1, 1, true},    // 49 tiles: last 1
      {1, 8, 5, 5, 9, 3, 3, 1, 1, 1, 1, false},       // odd, 9 tiles
      {1, 8, 7, 7, 8, 3, 3, 1, 1, 1, 1, false},       // 16 tiles, 100%
      {1, 64, 8, 8, 64, 3, 3, 1, 1, 1, 1, true},      // 16 tiles, 100%
      {1, 8, 1, 1, 8, 3, 3, 1, 1, 1, 1, true},        // one tile: last 1
      {1, 16, 3, 7, 15, 3, 3, 1, 1, 1, 1, false},     // 8 tiles: last 2
      {1, 9, 13, 11, 17, 3, 3, 1, 1, 1, 1, true},     // 42 tiles, odd
      {1, 8, 2, 2, 8, 3, 3, 1, 1, 1, 1, false},       // one tile, even
      {1, 8, 1, 40, 8, 3, 3, 1, 1, 1, 1, true},       // one row of outputs
      {1, 8, 40, 1, 33, 3, 3, 1, 1, 1, 1, false},     // one column
      {1, 8, 9, 33, 9, 3, 3, 1, 1, 1, 1, false},      // strips' 88% lanes
      {2, 32, 12, 12, 32, 3, 3, 1, 1, 1, 2, true},    // two groups, batch 2
      {2, 16, 6, 6, 16, 3, 3, 1, 1, 1, 1, false},     // batch 2
      {1, 256, 6, 6, 200, 3, 3, 1, 1, 1, 1, true},    // weight in blocks
  };
  int failures = run_cases(cases, COUNT(cases), ETR_ISA_AVX512,
                           ETR_CONV_WINOGRAD_POSITION_LANES);
  cr_assert_eq(failures, 0, "%d position-lane cases disagree", failures);
}

TT_TEST(diff_conv_winograd, declines) {
#if defined(__x86_64__)
  // n, c, h, w, oc, kh, kw, stride, pad, dilation, groups, bias
  static const conv_case_t cases[] = {
      {1, 8, 4, 4097, 8, 3, 3, 1, 1, 1, 1, true},    // rows past 4096
      {1, 7, 24, 24, 8, 3, 3, 1, 1, 1, 1, true},     // 7 input channels
      {1, 8, 24, 24, 7, 3, 3, 1, 1, 1, 1, true},     // 7 out channels
      {1, 7, 6, 6, 8, 3, 3, 1, 1, 1, 1, true},       // both kernels' limits
      {1, 8, 6, 6, 7, 3, 3, 1, 1, 1, 1, true},
      {1, 8, 24, 24, 8, 3, 3, 2, 1, 1, 1, true},     // stride 2
      {1, 8, 24, 24, 8, 3, 3, 1, 0, 1, 1, true},     // padding 0
      {1, 8, 24, 24, 8, 3, 3, 1, 2, 2, 1, true},     // dilation 2
      {1, 8, 24, 24, 8, 5, 5, 1, 2, 1, 1, true},     // 5x5
  };
  for (size_t i = 0; i < COUNT(cases); ++i) {
    etr_conv2d_geometry_t g = conv_case_geometry(&cases[i]);
    cr_assert_null(etr_conv_winograd_for(ETR_ISA_AVX512, &g, cases[i].oc).run,
                   "case %zu is taken", i);
    cr_assert_null(etr_conv_winograd_for(ETR_ISA_AVX2, &g, cases[i].oc).run,
                   "case %zu is taken on AVX2", i);
  }
  // AVX2 alone: planes of fewer than 5 rows or 4 columns, blocks under
  // 70% tiles, and a transformed weight past the tile lanes' room (which
  // AVX-512 leaves to its position lanes).
  static const conv_case_t avx2_cases[] = {
      {1, 8, 4, 40, 8, 3, 3, 1, 1, 1, 1, true},       // 4 rows
      {1, 8, 40, 3, 8, 3, 3, 1, 1, 1, 1, true},       // 3 columns
      {1, 8, 5, 5, 8, 3, 3, 1, 1, 1, 1, true},        // 9 tiles in 16 lanes
      {1, 8, 6, 6, 8, 3, 3, 1, 1, 1, 1, false},       // likewise
      {1, 256, 14, 14, 256, 3, 3, 1, 1, 1, 1, true},  // U of 4 MiB
  };
  for (size_t i = 0; i < COUNT(avx2_cases); ++i) {
    etr_conv2d_geometry_t g = conv_case_geometry(&avx2_cases[i]);
    cr_assert_null(
        etr_conv_winograd_for(ETR_ISA_AVX2, &g, avx2_cases[i].oc).run,
        "AVX2 case %zu is taken", i);
  }
  // AVX-512's tile lanes past their room: 256 x 256 channels on 32x32.
  static const conv_case_t roomy = {1, 256, 32, 32, 256, 3, 3, 1, 1, 1, 1,
                                    true};
  etr_conv2d_geometry_t big = conv_case_geometry(&roomy);
  cr_assert_null(etr_conv_winograd_for(ETR_ISA_AVX512, &big, 256).run);
  big.channels = 128;  // 2 MiB of U: taken
  cr_assert_not_null(etr_conv_winograd_for(ETR_ISA_AVX512, &big, 256).run);
  cr_assert_not_null(etr_conv_winograd_for(ETR_ISA_AVX2, &big, 256).run);
  static const conv_case_t strided = {1, 8, 24, 24, 8, 3, 3, 1, 1, 1, 1,
                                      true};
  etr_conv2d_geometry_t g = conv_case_geometry(&strided);
  g.in_stride_w = 2;  // strided columns
  g.in_stride_h *= 2;
  cr_assert_null(etr_conv_winograd_for(ETR_ISA_AVX512, &g, 8).run);
  cr_assert_null(etr_conv_winograd_for(ETR_ISA_AVX2, &g, 8).run);
  g = conv_case_geometry(&strided);
  g.out_h = 6;  // 24x6 tiles: the position lanes' case but for the columns
  g.in_h = 6;
  g.in_stride_w = 2;
  cr_assert_null(etr_conv_winograd_for(ETR_ISA_AVX512, &g, 8).run);
  // The position lanes' scratch limit (512 channels x 36 tiles): the tile
  // lanes take it.
  static const conv_case_t wide = {1, 512, 12, 12, 8, 3, 3, 1, 1, 1, 1,
                                   true};
  g = conv_case_geometry(&wide);
  etr_conv_winograd_t w = etr_conv_winograd_for(ETR_ISA_AVX512, &g, 8);
  cr_assert(w.run != NULL && w.layout == ETR_CONV_WINOGRAD_TILE_LANES);
#endif
}

#if defined(__x86_64__)
// The kernel of `layout` on `isa` (AVX-512's two, AVX2's tile lanes)
// alone on 8 -> 8 channels of 8x8 with input value `x0` at one position
// and weight value `w0` at one tap: true when it took the call; on false
// nothing in `out` changed.
static bool run_direct(etr_isa_t isa, etr_conv_winograd_layout_t layout,
                       float x0, float w0, float *out) {
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
  float *u = aligned_alloc(64, packed_floats * sizeof(float));
  float *scratch = aligned_alloc(
      64, etr_conv_winograd_scratch_floats(&g, layout) * sizeof(float));
  cr_assert(u != NULL && scratch != NULL);
  cr_assert(etr_conv_winograd_pack(weight, &g, 8, layout, u));
  weight[3 * 72 + 4] = w0;
  bool packed = etr_conv_winograd_pack(weight, &g, 8, layout, u);
  bool ok = false;
  if (layout == ETR_CONV_WINOGRAD_POSITION_LANES) {
    // Not packed: the kernel transforms the weight itself, and declines
    // it alike.
    float *chunk = aligned_alloc(
        64, etr_conv_winograd_chunk_floats(8) * sizeof(float));
    cr_assert(chunk != NULL);
    etr_conv_winograd_args_t a = {.g = &g,
                                  .input = input,
                                  .out = out,
                                  .out_stride = 64,
                                  .out_channels = 8,
                                  .scratch = scratch,
                                  .raw_weight = weight,
                                  .chunk = chunk};
    cr_assert_eq(etr_conv_winograd_positions_nchw_avx512(&a),
                 packed && etr_conv_winograd_input_in_range_avx512(&g, input));
    free(chunk);
  }
  if (isa == ETR_ISA_AVX2) {
    cr_assert_eq(etr_conv_winograd_input_in_range_avx2(&g, input),
                 fabsf(x0) <= 0x1p40f);
  }
  if (packed) {
    etr_conv_winograd_args_t a = {.g = &g,
                                  .input = input,
                                  .weight = u,
                                  .out = out,
                                  .out_stride = 64,
                                  .out_channels = 8,
                                  .scratch = scratch};
    ok = isa == ETR_ISA_AVX2 ? etr_conv_winograd_nchw_avx2(&a)
         : layout == ETR_CONV_WINOGRAD_TILE_LANES
             ? etr_conv_winograd_nchw_avx512(&a)
             : etr_conv_winograd_positions_nchw_avx512(&a);
  }
  free(u);
  free(scratch);
  return ok;
}
#endif

TT_TEST(diff_conv_winograd, range_checks) {
#if defined(__x86_64__)
  static const struct {
    etr_isa_t isa;
    etr_conv_winograd_layout_t layout;
  } kernels[] = {{ETR_ISA_AVX512, ETR_CONV_WINOGRAD_TILE_LANES},
                 {ETR_ISA_AVX512, ETR_CONV_WINOGRAD_POSITION_LANES},
                 {ETR_ISA_AVX2, ETR_CONV_WINOGRAD_TILE_LANES}};
  for (size_t l = 0; l < COUNT(kernels); ++l) {
    if (!etr_isa_available(kernels[l].isa)) {
      continue;
    }
    const etr_isa_t isa = kernels[l].isa;
    const etr_conv_winograd_layout_t layout = kernels[l].layout;
    float out[8 * 64];
    cr_assert(run_direct(isa, layout, 0x1p40f, 0x1p40f, out),
              "2^40 is in range");
    cr_assert(run_direct(isa, layout, -0x1p40f, -0x1p40f, out));
    cr_assert(run_direct(isa, layout, 0x1p-140f, 0.0f, out),
              "a denormal is in range");
    const float bad[] = {0x1.000002p40f, -0x1p41f, INFINITY, -INFINITY, NAN,
                         3e38f};
    for (size_t i = 0; i < COUNT(bad); ++i) {
      for (int k = 0; k < 8 * 64; ++k) {
        out[k] = 42.0f;
      }
      cr_assert(!run_direct(isa, layout, bad[i], 1.0f, out),
                "kernel %zu: input %g taken", l, (double)bad[i]);
      for (int k = 0; k < 8 * 64; ++k) {
        cr_assert(out[k] == 42.0f, "kernel %zu: input %g: out[%d] written",
                  l, (double)bad[i], k);
      }
      cr_assert(!run_direct(isa, layout, 1.0f, bad[i], out),
                "kernel %zu: weight %g packed", l, (double)bad[i]);
    }
  }
  if (etr_isa_available(ETR_ISA_AVX2)) {
    // AVX2's check on rows that are not one run of floats: 9 columns of
    // rows 16 apart (an inf in the columns between is not the plane's).
    static const conv_case_t p = {1, 8, 6, 9, 8, 3, 3, 1, 1, 1, 1, false};
    etr_conv2d_geometry_t g = conv_case_geometry(&p);
    g.in_stride_h = 16;
    g.in_stride_c = 6 * 16;
    float input[8 * 6 * 16];
    for (int i = 0; i < 8 * 6 * 16; ++i) {
      input[i] = i % 16 < 9 ? (float)(i % 5) : INFINITY;
    }
    cr_assert(etr_conv_winograd_input_in_range_avx2(&g, input));
    input[7 * 96 + 5 * 16 + 8] = -0x1p41f;  // the last one
    cr_assert(!etr_conv_winograd_input_in_range_avx2(&g, input));
    input[7 * 96 + 5 * 16 + 8] = 0x1p40f;
    input[3 * 96 + 2 * 16] = NAN;
    cr_assert(!etr_conv_winograd_input_in_range_avx2(&g, input));
  }
#endif
}

// Turned off, the op finds no Winograd kernel; back on, it does.
TT_TEST(diff_conv_winograd, switch) {
  static const conv_case_t p = {1, 32, 24, 24, 32, 3, 3, 1, 1, 1, 1, true};
  const etr_conv2d_geometry_t g = conv_case_geometry(&p);
  cr_assert(etr_conv_winograd_allowed());
  etr_conv_winograd_allow(false);
  cr_assert_null(etr_conv_winograd_for(ETR_ISA_AVX512, &g, 32).run);
  cr_assert_null(etr_conv_winograd_for(ETR_ISA_AVX2, &g, 32).run);
  cr_assert_eq(run_conv_random_and_specials(&p), 0);
  etr_conv_winograd_allow(true);
#if defined(__x86_64__)
  cr_assert_not_null(etr_conv_winograd_for(ETR_ISA_AVX512, &g, 32).run);
  cr_assert_not_null(etr_conv_winograd_for(ETR_ISA_AVX2, &g, 32).run);
#endif
  cr_assert_null(etr_conv_winograd_for(ETR_ISA_SCALAR, &g, 32).run);
}
