// SPDX-License-Identifier: Apache-2.0
//
// The narrow-row 3x3 stem kernel (stem3x3_narrow_avx512.c: 1 to 3 input
// channels, stride 1 or 2, out rows of 8 to 48 columns, padding up to 16
// columns, one band per 8 out rows, tiles of 4 out channels by 4 rows by
// 16 columns, blocks of 64 out channels; and up to 16 input channels at
// stride 1 on rows of 16, 32 or 48; weights in place or in a table) through
// aten::convolution.out against the reference kernel on every ISA of this
// machine (conv_test_util.h): random data within the accumulation bound,
// and exact integers with NaN, inf and -0.0 poked into the input, bit for
// bit. Its neighbours take other paths: rows of 49 columns and padding of
// 17 the row-by-row direct kernel, non-contiguous inputs the reference.
#include <criterion/criterion.h>

#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/test/conv_test_util.h"
#include "ops_optimized/test/diff.h"

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

// The Winograd kernel (conv/winograd_avx512.c) takes the 16-channel
// stride-1 cases first: off, so they keep testing this kernel.
static void no_winograd(void) { etr_conv_winograd_allow(false); }

// The [1, c, h, w] input that gives out_h x out_w outputs (at least one
// input row and column: very wide padding gives more outputs).
static conv_case_t stem_case(int64_t c, int64_t out_h, int64_t out_w,
                             int64_t oc, int64_t stride, int64_t pad,
                             bool bias) {
  int64_t h = (out_h - 1) * stride + 3 - 2 * pad;
  int64_t w = (out_w - 1) * stride + 3 - 2 * pad;
  return (conv_case_t){1, c, h < 1 ? 1 : h, w < 1 ? 1 : w, oc, 3, 3,
                       stride, pad, 1, 1, bias};
}

// Out rows of 8 to 49 columns (vectors of 16 and their masked tails, the
// band's last column), stride 1 and 2, 1 to 3 input channels, padding 0,
// 1 and 2, out channels around the tiles of 4, out rows around the tiles
// of 4 and the bands of 8.
TT_TEST(diff_conv_stem_narrow, widths, .init = no_winograd) {
  static const int64_t widths[] = {8, 9, 15, 16, 17, 31, 32, 33, 47, 48, 49};
  static const int64_t outs[] = {1, 3, 4, 5, 16, 17};
  static const int64_t heights[] = {1, 3, 4, 5, 8, 9, 16, 17};
  int failures = 0;
  int run = 0;
  for (size_t i = 0; i < COUNT(widths); ++i) {
    for (int64_t stride = 1; stride <= 2; ++stride) {
      for (int64_t pad = 0; pad <= 2; ++pad) {
        ++run;
        conv_case_t p = stem_case(1 + run % 3, heights[run % COUNT(heights)],
                                  widths[i], outs[run % COUNT(outs)], stride,
                                  pad, run % 2 == 0);
        failures += run_conv_random_and_specials(&p);
      }
    }
  }
  cr_assert_eq(failures, 0, "%d narrow stem cases disagree", failures);
}

// Every out row count from 1 to 17 (tiles of 4 rows, bands of 8, rows
// below the image) at both strides, and out channels around the weight
// table's block of 64.
TT_TEST(diff_conv_stem_narrow, rows_and_blocks, .init = no_winograd) {
  static const int64_t outs[] = {63, 64, 65, 129};
  int failures = 0;
  for (int64_t out_h = 1; out_h <= 17; ++out_h) {
    for (int64_t stride = 1; stride <= 2; ++stride) {
      conv_case_t p = stem_case(3, out_h, 16 + out_h, 8, stride, 1,
                                out_h % 2 == 0);
      failures += run_conv_random_and_specials(&p);
    }
  }
  for (size_t o = 0; o < COUNT(outs); ++o) {
    conv_case_t p = stem_case(3, 5, 24, outs[o], 1 + (int64_t)o % 2, 1,
                              o % 2 == 0);
    failures += run_conv_random_and_specials(&p);
  }
  cr_assert_eq(failures, 0, "%d narrow stem cases disagree", failures);
}

// Padding from 3 to 16 columns (the band's left margin: more zeros than
// input), 17 past it; uneven input sizes (a last input column or row the
// stride skips).
TT_TEST(diff_conv_stem_narrow, padding, .init = no_winograd) {
  static const int64_t pads[] = {3, 4, 7, 8, 15, 16, 17};
  int failures = 0;
  int run = 0;
  for (size_t i = 0; i < COUNT(pads); ++i) {
    for (int64_t stride = 1; stride <= 2; ++stride) {
      ++run;
      conv_case_t p = stem_case(1 + run % 3, 2 + run % 5, 32 + pads[i] % 3,
                                16, stride, pads[i], run % 2 == 0);
      failures += run_conv_random_and_specials(&p);
    }
  }
  for (int64_t extra = 1; extra <= 2; ++extra) {
    for (int64_t stride = 1; stride <= 2; ++stride) {
      conv_case_t p = stem_case(3, 6, 20, 16, stride, 1, true);
      p.h += extra;
      p.w += extra;
      failures += run_conv_random_and_specials(&p);
    }
  }
  cr_assert_eq(failures, 0, "%d narrow stem cases disagree", failures);
}

// 4 to 17 input channels at stride 1 (the kernel's wide case: rows of
// 16, 32 or 48 outputs, bands of 4 rows; 17 channels and other widths
// take the GEMM), one or two groups, padding 1 (weights read in place)
// and 0 or 2 (a weight table of 12 to 48 out channels per block: out
// channels past it), out rows around the tiles.
TT_TEST(diff_conv_stem_narrow, wide_channels, .init = no_winograd) {
  static const int64_t channels[] = {4, 5, 8, 12, 15, 16, 17};
  static const int64_t widths[] = {16, 32, 48, 24};
  int failures = 0;
  int run = 0;
  for (size_t c = 0; c < COUNT(channels); ++c) {
    for (size_t i = 0; i < COUNT(widths); ++i) {
      ++run;
      int64_t groups = run % 5 == 0 ? 2 : 1;
      int64_t pad = run % 3 == 0 ? 0 : run % 4 == 0 ? 2 : 1;
      conv_case_t p = stem_case(channels[c] * groups, 1 + run % 9, widths[i],
                                groups * (run % 2 == 0 ? 32 : 13), 1, pad,
                                run % 2 == 1);
      p.groups = groups;
      failures += run_conv_random_and_specials(&p);
    }
  }
  // The cnn's second layer (16x16x16 -> 32), and its 16 -> 32 at 32x32.
  conv_case_t cnn = {1, 16, 16, 16, 32, 3, 3, 1, 1, 1, 1, true};
  failures += run_conv_random_and_specials(&cnn);
  cnn.h = cnn.w = 32;
  failures += run_conv_random_and_specials(&cnn);
  cr_assert_eq(failures, 0, "%d wide-channel cases disagree", failures);
}

// A contiguous input with a channels-last or strided weight: the weight
// table instead of the weights in place (stems and wide channels).
static int run_weight_layout(const conv_case_t *p,
                             etr_diff_layout_t weight_layout,
                             etr_diff_fill_t fill) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::convolution.out", g_seed++,
                 "in [1,%lld,%lld,%lld] oc %lld s%lld p%lld weight l%d f%d",
                 (long long)p->c, (long long)p->h, (long long)p->w,
                 (long long)p->oc, (long long)p->stride, (long long)p->pad,
                 (int)weight_layout, (int)fill);
  etr_diff_input(&c, ETR_FLOAT, 4, (const int64_t[]){1, p->c, p->h, p->w},
                 ETR_DIFF_CONTIGUOUS, fill);
  etr_diff_input(&c, ETR_FLOAT, 4, (const int64_t[]){p->oc, p->c, 3, 3},
                 weight_layout, fill);
  etr_diff_input(&c, ETR_FLOAT, 1, (const int64_t[]){p->oc},
                 ETR_DIFF_CONTIGUOUS, fill);
  c.layout = ETR_DIFF_CONTIGUOUS;
  c.dtype = ETR_FLOAT;
  etr_diff_arg(&c, tt_ev_int_list(2, (const int64_t[]){p->stride,
                                                       p->stride}));
  etr_diff_arg(&c, tt_ev_int_list(2, (const int64_t[]){p->pad, p->pad}));
  etr_diff_arg(&c, TT_EV_INTS(1, 1));
  etr_diff_arg(&c, tt_ev_bool(false));
  etr_diff_arg(&c, TT_EV_INTS(0, 0));
  etr_diff_arg(&c, tt_ev_int(1));
  int64_t oh = out_size(p->h, 3, p->stride, p->pad, 1);
  int64_t ow = out_size(p->w, 3, p->stride, p->pad, 1);
  etr_diff_out(&c, ETR_FLOAT, 4, (const int64_t[]){1, p->oc, oh, ow},
               ETR_DIFF_CONTIGUOUS, 0);
  etr_diff_return(&c, 9);
  if (fill == ETR_FILL_RANDOM) {
    etr_diff_tolerance_bound(
        &c,
        etr_diff_accumulation_bound(ETR_FLOAT, p->c * 9 + 1, 1.0, 1.0) +
            0x1p-24,
        2.0 * 0x1p-24);
  } else {
    etr_diff_tolerance_exact(&c);
  }
  return etr_diff_run(&c);
}

TT_TEST(diff_conv_stem_narrow, weight_layouts, .init = no_winograd) {
  static const conv_case_t cases[] = {
      {1, 3, 32, 32, 16, 3, 3, 1, 1, 1, 1, true},
      {1, 3, 64, 64, 17, 3, 3, 2, 1, 1, 1, true},
      {1, 16, 16, 16, 32, 3, 3, 1, 1, 1, 1, true},
      {1, 9, 8, 30, 5, 3, 3, 1, 0, 1, 1, true},
  };
  int failures = 0;
  for (size_t i = 0; i < COUNT(cases); ++i) {
    for (int layout = 1; layout <= 2; ++layout) {
      failures += run_weight_layout(&cases[i], (etr_diff_layout_t)layout,
                                    ETR_FILL_RANDOM);
      failures += run_weight_layout(&cases[i], (etr_diff_layout_t)layout,
                                    ETR_FILL_EXACT_INT);
    }
  }
  cr_assert_eq(failures, 0, "%d weight layout cases disagree", failures);
}

// The models' stems (cnn: 3x32x32 -> 16, stride 1; mobilenet_v2:
// 3x64x64 -> 16, stride 2), two images, and their non-contiguous inputs
// (the reference) beside them.
TT_TEST(diff_conv_stem_narrow, models, .init = no_winograd) {
  conv_case_t cnn = {1, 3, 32, 32, 16, 3, 3, 1, 1, 1, 1, true};
  conv_case_t mobilenet = {1, 3, 64, 64, 16, 3, 3, 2, 1, 1, 1, false};
  int failures = run_conv_random_and_specials(&cnn);
  failures += run_conv_random_and_specials(&mobilenet);
  cnn.n = 2;
  mobilenet.n = 2;
  failures += run_conv_random_and_specials(&cnn);
  failures += run_conv_random_and_specials(&mobilenet);
  failures += run_conv(&cnn, ETR_FLOAT, ETR_DIFF_NONCONTIGUOUS,
                       ETR_FILL_RANDOM, ETR_FILL_RANDOM, false);
  failures += run_conv(&mobilenet, ETR_FLOAT, ETR_DIFF_NONCONTIGUOUS,
                       ETR_FILL_EXACT_INT, ETR_FILL_EXACT_INT, false);
  cr_assert_eq(failures, 0, "%d model stem cases disagree", failures);
}
