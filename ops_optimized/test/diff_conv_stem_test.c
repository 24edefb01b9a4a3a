// SPDX-License-Identifier: Apache-2.0
//
// The direct kernel's stride-2 stem path (direct_avx512.c,
// by_rows_stem_s2: 3 input channels, 3x3, dilation 1, out rows of 49 to
// 63 columns; 8 to 48 take stem3x3_narrow_avx512.c, 64 and up
// stem_avx512.c) through aten::convolution.out
// against the reference kernel (diff.h): out channels around its block of
// 16 (1, 15, 16, 17, 32, 33), out rows of 8, 9, 15, 16, 17, 31, 32, 33
// and 63 columns (column blocks of 16 and their masked tails), 1 to 3 out
// rows, padding 0, 1 and 2 (rows and columns outside the image), bias or
// none. Exact small integers are compared bit for bit with NaN, inf and
// -0.0 poked into the input; random data within the accumulation bound.
#include <criterion/criterion.h>
#include <math.h>

#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/test/diff.h"
#include "ops_reference/ops_reference.h"

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

// A [1, channels, h, w] input, k x k weights, `stride` both ways, padding
// `pad`; `inf_weight` puts an inf into the weight (padded convolutions then
// must not skip their padding taps: PyTorch's 0 * inf is NaN there).
static int run_stem_k(int64_t channels, int64_t h, int64_t w, int64_t oc,
                      int64_t k, int64_t stride, int64_t pad, bool bias,
                      etr_diff_fill_t fill, bool inf_weight) {
  static uint64_t seed = 9300;
  etr_diff_case_t d;
  etr_diff_begin(&d, "aten::convolution.out", seed++,
                 "stem %lldx%lld s%lld [1,%lld,%lld,%lld] -> %lld p%lld%s%s "
                 "f%d",
                 (long long)k, (long long)k, (long long)stride,
                 (long long)channels, (long long)h, (long long)w,
                 (long long)oc, (long long)pad, bias ? " bias" : "",
                 inf_weight ? " inf-weight" : "", (int)fill);
  etr_tensor_t *input = etr_diff_input(&d, ETR_FLOAT, 4,
                                       (const int64_t[]){1, channels, h, w},
                                       ETR_DIFF_CONTIGUOUS, fill);
  if (fill == ETR_FILL_EXACT_INT) {  // exact sums stay exact with these
    float *data = (float *)input->data;
    int64_t numel = etr_tensor_numel(input);
    data[numel / 2] = INFINITY;
    data[numel - 1] = -INFINITY;
    data[numel / 3] = NAN;
    data[numel / 5] = -0.0f;
  }
  etr_tensor_t *weight = etr_diff_input(
      &d, ETR_FLOAT, 4, (const int64_t[]){oc, channels, k, k},
      ETR_DIFF_CONTIGUOUS, fill);
  if (inf_weight) {
    ((float *)weight->data)[etr_tensor_numel(weight) / 2] = INFINITY;
  }
  if (bias) {
    etr_diff_input(&d, ETR_FLOAT, 1, (const int64_t[]){oc},
                   ETR_DIFF_CONTIGUOUS, fill);
  } else {
    etr_diff_arg(&d, tt_ev_none());
  }
  d.layout = ETR_DIFF_CONTIGUOUS;
  d.dtype = ETR_FLOAT;
  etr_diff_arg(&d, TT_EV_INTS(stride, stride));
  etr_diff_arg(&d, tt_ev_int_list(2, (const int64_t[]){pad, pad}));
  etr_diff_arg(&d, TT_EV_INTS(1, 1));
  etr_diff_arg(&d, tt_ev_bool(false));
  etr_diff_arg(&d, TT_EV_INTS(0, 0));
  etr_diff_arg(&d, tt_ev_int(1));
  int64_t oh = (h + 2 * pad - k) / stride + 1;
  int64_t ow = (w + 2 * pad - k) / stride + 1;
  etr_diff_out(&d, ETR_FLOAT, 4, (const int64_t[]){1, oc, oh, ow},
               ETR_DIFF_CONTIGUOUS, 0);
  etr_diff_return(&d, 9);
  if (fill == ETR_FILL_RANDOM) {
    etr_diff_tolerance_bound(
        &d,
        etr_diff_accumulation_bound(ETR_FLOAT, (int)(channels * k * k + 1),
                                    1.0, 1.0) +
            0x1p-24,
        2.0 * 0x1p-24);
  } else {
    etr_diff_tolerance_exact(&d);
  }
  return etr_diff_run(&d);
}

// A [1, 3, h, w] input, 3x3 weights, stride 2, padding `pad`.
static int run_stem(int64_t h, int64_t w, int64_t oc, int64_t pad,
                    bool bias, etr_diff_fill_t fill) {
  return run_stem_k(3, h, w, oc, 3, 2, pad, bias, fill, false);
}

TT_TEST(diff_conv_stem, stride2_rows) {
  static const int64_t widths[] = {8, 9, 15, 16, 17, 31, 32, 33, 63};
  static const int64_t outs[] = {1, 15, 16, 17, 32, 33};
  int failures = 0;
  int run = 0;
  for (size_t i = 0; i < COUNT(widths); ++i) {
    for (size_t o = 0; o < COUNT(outs); ++o) {
      ++run;
      int64_t pad = run % 3;
      int64_t out_h = 1 + run % 3;
      // The input that gives out_h x widths[i] outputs at this padding.
      int64_t h = (out_h - 1) * 2 + 3 - 2 * pad;
      int64_t w = (widths[i] - 1) * 2 + 3 - 2 * pad + run % 2;
      h = h < 1 ? 1 : h;
      failures += run_stem(h, w, outs[o], pad, run % 2 == 0,
                           ETR_FILL_EXACT_INT);
      failures += run_stem(h, w, outs[o], pad, run % 2 == 1,
                           ETR_FILL_RANDOM);
    }
  }
  // The mobilenet stem itself.
  failures += run_stem(64, 64, 16, 1, true, ETR_FILL_EXACT_INT);
  failures += run_stem(64, 64, 16, 1, false, ETR_FILL_RANDOM);
  cr_assert_eq(failures, 0, "%d stem cases disagree", failures);
}

// The band kernel's larger kernels (stem_avx512.c): 7x7 stride 2 padding
// 3 (ResNet's stem: 3 x 96 x 96 -> 32 x 48 x 48, and rows of 112), 5x5
// and 4x4 and 2x2 at stride 1 and 2, 1 to 3 input channels; out channels
// around its tiles of 8 and blocks of 32 (1, 8, 9, 33), out rows around
// its tiles of 3 (1, 2, 4), columns around its vectors and chunks of 128
// (8, 9, 17, 48, 130), padding from 0 to past the kernel's half; an inf
// weight with padding (the GEMM path's NaN borders) and without.
TT_TEST(diff_conv_stem, large_kernels) {
  static const int64_t kernels[] = {7, 5, 4, 2};
  static const int64_t widths[] = {8, 9, 17, 48, 130};
  static const int64_t outs[] = {1, 8, 9, 33};
  int failures = 0;
  int run = 0;
  for (size_t i = 0; i < COUNT(kernels); ++i) {
    for (size_t j = 0; j < COUNT(widths); ++j) {
      for (int64_t stride = 1; stride <= 2; ++stride) {
        ++run;
        int64_t k = kernels[i];
        int64_t pad = run % (k / 2 + 2);
        int64_t channels = 1 + run % 3;
        int64_t out_h = run % 3 == 0 ? 4 : 1 + run % 3;
        int64_t oc = outs[run % COUNT(outs)];
        int64_t h = (out_h - 1) * stride + k - 2 * pad;
        int64_t w = (widths[j] - 1) * stride + k - 2 * pad + run % 2;
        if (h < 1 || w < 1) {  // padding past the image: one more row
          pad = 0;
          h = (out_h - 1) * stride + k;
          w = (widths[j] - 1) * stride + k + run % 2;
        }
        failures += run_stem_k(channels, h, w, oc, k, stride, pad,
                               run % 2 == 0, ETR_FILL_EXACT_INT, false);
        failures += run_stem_k(channels, h, w, oc, k, stride, pad,
                               run % 2 == 1, ETR_FILL_RANDOM, false);
      }
    }
  }
  failures += run_stem_k(3, 96, 96, 32, 7, 2, 3, false, ETR_FILL_EXACT_INT,
                         false);
  failures += run_stem_k(3, 96, 96, 32, 7, 2, 3, true, ETR_FILL_RANDOM,
                         false);
  failures += run_stem_k(3, 224, 224, 64, 7, 2, 3, false, ETR_FILL_RANDOM,
                         false);
  failures += run_stem_k(3, 40, 40, 9, 7, 2, 3, true, ETR_FILL_EXACT_INT,
                         true);
  failures += run_stem_k(3, 40, 40, 9, 7, 2, 0, true, ETR_FILL_EXACT_INT,
                         true);
  failures += run_stem_k(2, 33, 33, 16, 5, 1, 2, false, ETR_FILL_EXACT_INT,
                         true);
  cr_assert_eq(failures, 0, "%d stem cases disagree", failures);
}

// The band kernel's 3x3 stems (stem_avx512.c: out rows of 64 columns or
// more, 3 input channels), at stride 2 in tiles of 2 out rows and at
// stride 1 in tiles of 3: out rows 1 to 5 (tiles with a missing row),
// columns 64, 65, 100 and 130 (a chunk of 128 and a tail), out channels
// 1, 8, 9 and 33, padding 0 to 2, bias or none; exact data bit for bit
// with specials poked into the input, random data within the bound; the
// 224 x 224 stem itself.
TT_TEST(diff_conv_stem, band_3x3) {
  static const int64_t widths[] = {64, 65, 100, 130};
  static const int64_t outs[] = {1, 8, 9, 33};
  int failures = 0;
  int run = 0;
  for (size_t j = 0; j < COUNT(widths); ++j) {
    for (int64_t out_h = 1; out_h <= 5; ++out_h) {
      for (int64_t stride = 1; stride <= 2; ++stride) {
        ++run;
        int64_t pad = run % 3;
        int64_t oc = outs[run % COUNT(outs)];
        int64_t h = (out_h - 1) * stride + 3 - 2 * pad;
        int64_t w = (widths[j] - 1) * stride + 3 - 2 * pad + run % 2;
        if (h < 1) {
          pad = 0;
          h = (out_h - 1) * stride + 3;
          w = (widths[j] - 1) * stride + 3 + run % 2;
        }
        failures += run_stem_k(3, h, w, oc, 3, stride, pad, run % 2 == 0,
                               ETR_FILL_EXACT_INT, false);
        failures += run_stem_k(3, h, w, oc, 3, stride, pad, run % 2 == 1,
                               ETR_FILL_RANDOM, false);
      }
    }
  }
  failures += run_stem_k(3, 224, 224, 32, 3, 2, 1, true, ETR_FILL_RANDOM,
                         false);
  cr_assert_eq(failures, 0, "%d 3x3 band stem cases disagree", failures);
}
