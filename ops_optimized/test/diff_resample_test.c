// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the optimized upsample_nearest2d.vec,
// upsample_bilinear2d.vec and grid_sampler_2d (ops_optimized/resample/)
// against the reference kernels, on every ISA this machine has.
//
// Sweeps: input widths over the tile edges of 8 and 16 lanes; output sizes
// the same (copy), 2x (duplication), 3x, non-integer up and down ratios,
// given as output_size or as scale_factors (whose factor, not the size
// ratio, sets the source coordinates); align_corners both ways; contiguous
// and channels-last inputs (outs laid out alike; channel counts over the
// lane edges), non-contiguous inputs and a Double/Byte bilinear
// (fallback); Half and BFloat16 (bilinear staged through fp32: each
// layout, several planes a chunk, planes larger than a chunk, an image
// too large for ctx->temp), and nearest on Byte and Double too (elements
// moved whatever their size);
// random and special values (NaN, +-inf: 0 * inf must give NaN as in the
// reference); argument errors.
//
// Tolerances: nearest exact; bilinear |opt - ref| <= 8u max|x| (a convex
// blend of four neighbours in fp32, u = 2^-24), for Half and BFloat16 one
// ulp of the dtype more (2^-10 or 2^-7 |ref|, 2^-24 for Half's
// subnormals: both blends are rounded to the dtype).
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "ops_optimized/resample/resample.h"
#include "ops_optimized/test/diff.h"

typedef struct resample_spec {
  bool bilinear;
  etr_scalar_type_t dtype;
  int64_t sizes[4];
  etr_diff_layout_t layout;
  etr_diff_fill_t fill;
  bool by_scale;      // scale_factors instead of output_size
  double scale[2];    // by_scale
  int64_t out_hw[2];  // !by_scale
  bool align_corners;
} resample_spec_t;

static int run_resample(const resample_spec_t *s, uint64_t seed) {
  const char *op = s->bilinear ? "aten::upsample_bilinear2d.vec_out"
                               : "aten::upsample_nearest2d.vec_out";
  etr_diff_case_t c;
  etr_diff_begin(&c, op, seed,
                 "[%lld %lld %lld %lld] -> %s %g,%g / %lldx%lld%s",
                 (long long)s->sizes[0], (long long)s->sizes[1],
                 (long long)s->sizes[2], (long long)s->sizes[3],
                 s->by_scale ? "scale" : "size", s->scale[0], s->scale[1],
                 (long long)s->out_hw[0], (long long)s->out_hw[1],
                 s->align_corners ? " align_corners" : "");
  etr_tensor_t *input = etr_diff_input(&c, s->dtype, 4, s->sizes, s->layout,
                                       s->fill);
  etr_evalue_t *size_arg = s->by_scale ? tt_ev_none()
                                       : tt_ev_int_list(2, s->out_hw);
  etr_evalue_t *scale_arg = s->by_scale ? tt_ev_double_list(2, s->scale)
                                        : tt_ev_none();
  etr_diff_arg(&c, size_arg);
  if (s->bilinear) {
    etr_diff_arg(&c, tt_ev_bool(s->align_corners));
  }
  etr_diff_arg(&c, scale_arg);
  size_t out_index = c.num_args;
  int64_t out_sizes[4] = {s->sizes[0], s->sizes[1], s->out_hw[0],
                          s->out_hw[1]};
  if (s->by_scale) {
    out_sizes[2] = (int64_t)((double)s->sizes[2] * s->scale[0]);
    out_sizes[3] = (int64_t)((double)s->sizes[3] * s->scale[1]);
  }
  if (s->layout == ETR_DIFF_CHANNELS_LAST && out_sizes[2] > 0 &&
      out_sizes[3] > 0) {
    etr_diff_out(&c, s->dtype, 4, out_sizes, ETR_DIFF_CHANNELS_LAST, 0);
  } else {
    int64_t capacity = 64;
    if (out_sizes[2] > 0 && out_sizes[3] > 0) {
      capacity += s->sizes[0] * s->sizes[1] * out_sizes[2] * out_sizes[3];
    }
    (void)input;
    etr_diff_out(&c, s->dtype, 1, (const int64_t[]){0}, 0, capacity);
  }
  etr_diff_return(&c, out_index);
  if (s->bilinear) {
    double max_abs = s->fill == ETR_FILL_SPECIAL ? 3.0e38 : 1.0;
    etr_diff_tolerance_bound(&c, 8 * 0x1p-24 * max_abs, 0);
    etr_diff_tolerance_add_rounding(&c, s->dtype);
  } else {
    etr_diff_tolerance_exact(&c);
  }
  return etr_diff_run(&c);
}

TT_TEST(diff_resample, widths_and_ratios) {
  int failures = 0;
  uint64_t seed = 1;
  int64_t widths[16];
  size_t count = etr_diff_edge_sizes(16, widths);
  // Output size ratios (numerator/denominator of the input size).
  // (1/3: the bilinear AVX-512 rows' taps then span more than 32
  // columns per 16 outputs, which they gather instead of permuting.)
  static const int64_t kRatios[][2] = {{1, 1}, {2, 1}, {3, 1}, {3, 2},
                                       {2, 3}, {5, 7}, {1, 3}};
  for (int bilinear = 0; bilinear < 2; ++bilinear) {
    for (size_t k = 0; k < count; ++k) {
      int64_t w = widths[k] > 0 ? widths[k] : 1;
      if (w > 300) {
        w = 300;
      }
      for (size_t r = 0; r < sizeof(kRatios) / sizeof(kRatios[0]); ++r) {
        int64_t out_w = w * kRatios[r][0] / kRatios[r][1];
        resample_spec_t s = {
            bilinear == 1, ETR_FLOAT, {2, 3, 5, w}, 0,
            (k + r) % 3 == 0 ? ETR_FILL_SPECIAL : ETR_FILL_RANDOM, false,
            {0, 0}, {5 * kRatios[r][0] / kRatios[r][1], out_w > 0 ? out_w : 1},
            (k + r) % 2 == 0};
        failures += run_resample(&s, seed++);
      }
    }
  }
  cr_assert_eq(failures, 0, "%d resampling cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

// The tables' split bilinear (interp_rows, then blend_rows, where a table
// has them) against its bilinear_row, bit for bit: 2x, 3/2, 5/7, 1/3
// (taps gathered) and 1x column ratios, widths past the 16-lane blocks,
// both align_corners, random and special values (inf, NaN, -0.0).
TT_TEST(diff_resample, split_bilinear_rows) {
  static const int64_t kRatios[][2] = {{2, 1}, {3, 2}, {5, 7}, {1, 3},
                                       {1, 1}};
  static const int64_t kWidths[] = {1, 7, 16, 17, 40, 100};
  enum { kRows = 3, kMaxOut = 200 };
  static float src[kRows * 100];
  static int32_t i0[kMaxOut], i1[kMaxOut];
  static float l0[kMaxOut], l1[kMaxOut];
  static float split[kRows * kMaxOut];
  static float want[kMaxOut], got[kMaxOut];
  uint64_t state = 77;
  int checked = 0;
  for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
    const etr_resample_kernels_t *k = etr_resample_kernels_for(
        (etr_isa_t)isa);
    if (!etr_isa_available((etr_isa_t)isa) || k->interp_rows == NULL) {
      continue;
    }
    for (size_t w = 0; w < sizeof(kWidths) / sizeof(kWidths[0]); ++w) {
      for (size_t r = 0; r < sizeof(kRatios) / sizeof(kRatios[0]); ++r) {
        for (int corners = 0; corners < 2; ++corners) {
          const int64_t in = kWidths[w];
          int64_t out = in * kRatios[r][0] / kRatios[r][1];
          out = out > 0 ? out : 1;
          const etr_resample_axis_t axis = {in, out, 0.0};
          for (int64_t o = 0; o < out; ++o) {
            etr_resample_tap_t t =
                etr_resample_linear_tap(&axis, corners == 1, o);
            i0[o] = (int32_t)t.i0;
            i1[o] = (int32_t)t.i1;
            l0[o] = t.l0;
            l1[o] = t.l1;
          }
          for (int64_t j = 0; j < kRows * in; ++j) {
            state = state * 6364136223846793005ull + 1442695040888963407ull;
            uint32_t bits = (uint32_t)(state >> 33);
            src[j] = bits % 17 == 0   ? INFINITY
                     : bits % 19 == 0 ? NAN
                     : bits % 23 == 0 ? -0.0f
                                      : (float)(bits % 20001) / 1000.0f - 10;
          }
          k->interp_rows(src, (size_t)in, kRows, i0, i1, l0, l1,
                         (size_t)out, split);
          for (int pair = 0; pair < 3; ++pair) {
            const int a = pair == 2 ? 1 : 0;
            const int b = pair == 0 ? 0 : 2;
            const float h0 = pair == 1 ? 0.25f : 0.625f;
            const float h1 = 1.0f - h0;
            k->bilinear_row(src + a * in, src + b * in, h0, h1, i0, i1, l0,
                            l1, (size_t)out, want);
            k->blend_rows(split + a * out, split + b * out, h0, h1,
                          (size_t)out, got);
            cr_assert(memcmp(want, got, (size_t)out * sizeof(float)) == 0,
                      "%s: %lld -> %lld columns (corners %d), rows %d, %d",
                      etr_isa_name((etr_isa_t)isa), (long long)in,
                      (long long)out, corners, a, b);
            ++checked;
          }
        }
      }
    }
  }
#if defined(__x86_64__)
  if (etr_isa_available(ETR_ISA_AVX512)) {
    cr_assert_gt(checked, 0);
  }
#endif
}

TT_TEST(diff_resample, scales_layouts_dtypes) {
  int failures = 0;
  uint64_t seed = 5000;
  static const double kScales[][2] = {{2.0, 2.0}, {1.7, 2.3}, {0.5, 0.75},
                                      {3.0, 1.0}, {1.0, 1.0}};
  int64_t channels[16];
  size_t count = etr_diff_edge_sizes(16, channels);
  for (int bilinear = 0; bilinear < 2; ++bilinear) {
    for (size_t sc = 0; sc < sizeof(kScales) / sizeof(kScales[0]); ++sc) {
      for (int layout = 0; layout < 3; ++layout) {
        for (int align = 0; align < 2; ++align) {
          resample_spec_t s = {bilinear == 1, ETR_FLOAT, {2, 5, 6, 9},
                               (etr_diff_layout_t)layout,
                               align ? ETR_FILL_SPECIAL : ETR_FILL_RANDOM,
                               true, {kScales[sc][0], kScales[sc][1]}, {0, 0},
                               align == 1};
          failures += run_resample(&s, seed++);
        }
      }
    }
    // Channels-last with channel counts over the lane edges.
    for (size_t k = 0; k < count; ++k) {
      int64_t c = channels[k] > 0 ? channels[k] : 1;
      if (c > 100) {
        c = 100;
      }
      resample_spec_t s = {bilinear == 1, ETR_FLOAT, {1, c, 3, 4},
                           ETR_DIFF_CHANNELS_LAST, ETR_FILL_RANDOM, false,
                           {0, 0}, {7, 9}, k % 2 == 0};
      failures += run_resample(&s, seed++);
    }
    // Other dtypes (Half and BFloat16 staged, Double and Byte fallback), a
    // wide row (arena tables), errors.
    static const etr_scalar_type_t kDtypes[] = {ETR_HALF, ETR_BFLOAT16,
                                                ETR_DOUBLE, ETR_BYTE};
    for (size_t t = 0; t < 4; ++t) {
      resample_spec_t s = {bilinear == 1, kDtypes[t], {1, 2, 4, 5}, 0,
                           ETR_FILL_RANDOM, false, {0, 0}, {8, 10}, false};
      failures += run_resample(&s, seed++);
    }
    resample_spec_t wide = {bilinear == 1, ETR_FLOAT, {1, 1, 2, 1500}, 0,
                            ETR_FILL_RANDOM, false, {0, 0}, {3, 2999}, false};
    failures += run_resample(&wide, seed++);
    resample_spec_t zero_size = {bilinear == 1, ETR_FLOAT, {1, 2, 4, 5}, 0,
                                 ETR_FILL_RANDOM, false, {0, 0}, {0, 3},
                                 false};
    failures += run_resample(&zero_size, seed++);
  }
  cr_assert_eq(failures, 0, "%d resampling cases disagree", failures);
}

// Half and BFloat16 (bilinear staged through fp32 in ctx->temp), and
// Byte and Double (nearest only): both ops, each layout, random, special
// and integer data; chunks of several planes (the last one short), planes
// larger than a chunk, NHWC images a chunk each, and an NHWC image too
// large for the 4 MiB arena (the staged bilinear falls back).
TT_TEST(diff_resample, other_dtypes) {
  static const etr_scalar_type_t kNarrow[] = {ETR_HALF, ETR_BFLOAT16,
                                              ETR_BYTE, ETR_DOUBLE};
  static const etr_diff_fill_t kFills[] = {ETR_FILL_RANDOM, ETR_FILL_SPECIAL,
                                           ETR_FILL_EXACT_INT};
  int failures = 0;
  uint64_t seed = 9000;
  for (size_t t = 0; t < 4; ++t) {
    uint64_t specialized = etr_diff_stats()->specialized;
    bool nearest_only = t >= 2;
    for (int bilinear = 0; bilinear < (nearest_only ? 1 : 2); ++bilinear) {
      for (int layout = 0; layout < 3; ++layout) {
        for (size_t f = 0; f < 3; ++f) {
          resample_spec_t s = {bilinear == 1, kNarrow[t], {2, 19, 6, 37},
                               (etr_diff_layout_t)layout, kFills[f],
                               f == 1, {1.7, 2.0}, {11, 74},
                               (f + (size_t)layout) % 2 == 0};
          failures += run_resample(&s, seed++);
        }
      }
      resample_spec_t pairs = {bilinear == 1, kNarrow[t], {1, 5, 60, 80}, 0,
                               ETR_FILL_RANDOM, false, {0, 0}, {120, 160},
                               false};
      failures += run_resample(&pairs, seed++);
      resample_spec_t large = {bilinear == 1, kNarrow[t], {1, 2, 200, 300},
                               0, ETR_FILL_RANDOM, false, {0, 0}, {300, 450},
                               true};
      failures += run_resample(&large, seed++);
      resample_spec_t images = {bilinear == 1, kNarrow[t], {3, 24, 30, 30},
                                ETR_DIFF_CHANNELS_LAST, ETR_FILL_SPECIAL,
                                false, {0, 0}, {45, 60}, false};
      failures += run_resample(&images, seed++);
    }
    cr_expect_gt(etr_diff_stats()->specialized, specialized,
                 "no %s resample took the optimized path",
                 etr_scalar_type_name(kNarrow[t]));
  }
  resample_spec_t huge = {true, ETR_HALF, {1, 16, 200, 200},
                          ETR_DIFF_CHANNELS_LAST, ETR_FILL_RANDOM, false,
                          {0, 0}, {400, 400}, false};
  failures += run_resample(&huge, seed++);
  cr_assert_eq(failures, 0, "%d resampling cases of other dtypes disagree",
               failures);
}

// grid_sampler_2d: bilinear and nearest specialized (per-cell indices and
// weights reused across channels), bicubic and Double fall back. Every
// padding mode and align_corners; locations inside, outside (scaled by
// 1.4) and special (NaN, +-inf); 1x1 to 9x7 images. Bit-exact: the same
// float op-math and double sums as the reference.
static int run_grid_sample(etr_scalar_type_t dtype, const int64_t *image,
                           int64_t mode, int64_t padding, bool align,
                           etr_diff_fill_t fill, double scale, uint64_t seed) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::grid_sampler_2d.out", seed,
                 "%s %lldx%lld mode %lld padding %lld%s scale %g",
                 etr_scalar_type_name(dtype), (long long)image[2],
                 (long long)image[3], (long long)mode, (long long)padding,
                 align ? " align" : "", scale);
  etr_diff_input(&c, dtype, 4, image, 0, ETR_FILL_RANDOM);
  int64_t grid_sizes[4] = {image[0], 5, 6, 2};
  etr_tensor_t *grid =
      etr_diff_input(&c, dtype, 4, grid_sizes, 0, fill);
  if (dtype == ETR_FLOAT) {
    float *g = (float *)grid->data;
    for (int64_t i = 0; i < etr_tensor_numel(grid); ++i) {
      g[i] = (float)(g[i] * scale);
    }
  }
  etr_diff_arg(&c, tt_ev_int(mode));
  etr_diff_arg(&c, tt_ev_int(padding));
  etr_diff_arg(&c, tt_ev_bool(align));
  etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, 0,
               image[0] * image[1] * 30 + 8);
  etr_diff_return(&c, 5);
  c.dtype = dtype;
  etr_diff_tolerance_exact(&c);
  return etr_diff_run(&c);
}

TT_TEST(diff_resample, grid_sampler_2d) {
  int failures = 0;
  uint64_t seed = 70000;
  static const int64_t kImages[][4] = {
      {2, 3, 1, 1}, {2, 3, 4, 5}, {1, 4, 9, 7}, {2, 17, 3, 8}};
  static const double kScales[] = {1.0, 1.4};
  for (size_t i = 0; i < sizeof(kImages) / sizeof(kImages[0]); ++i) {
    for (int64_t mode = 0; mode < 3; ++mode) {
      for (int64_t padding = 0; padding < 3; ++padding) {
        for (int align = 0; align < 2; ++align) {
          size_t k = (size_t)(mode + padding + align) % 2;
          etr_diff_fill_t fill =
              (i + (size_t)padding) % 3 == 2 ? ETR_FILL_SPECIAL
                                             : ETR_FILL_RANDOM;
          failures += run_grid_sample(ETR_FLOAT, kImages[i], mode, padding,
                                      align == 1, fill, kScales[k], seed++);
        }
      }
    }
  }
  failures += run_grid_sample(ETR_DOUBLE, kImages[1], 0, 0, false,
                              ETR_FILL_RANDOM, 1.0, seed++);
  failures += run_grid_sample(ETR_FLOAT, kImages[1], 3, 0, false,
                              ETR_FILL_RANDOM, 1.0, seed++);
  cr_assert_eq(failures, 0, "%d grid_sampler_2d cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}
