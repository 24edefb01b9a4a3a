// SPDX-License-Identifier: Apache-2.0
//
// The direct kernel's stride-2 stem path (direct_avx512.c,
// by_rows_stem_s2: 3 input channels, 3x3, dilation 1, out rows of 49 to
// 63 columns; 8 to 48 take stem3x3_narrow_avx512.c, 64 and up
// stem3x3_avx512.c) through aten::convolution.out
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

// A [1, 3, h, w] input, 3x3 weights, stride 2, padding `pad`.
static int run_stem(int64_t h, int64_t w, int64_t oc, int64_t pad,
                    bool bias, etr_diff_fill_t fill) {
  static uint64_t seed = 9300;
  etr_diff_case_t d;
  etr_diff_begin(&d, "aten::convolution.out", seed++,
                 "stem s2 [1,3,%lld,%lld] -> %lld p%lld%s f%d", (long long)h,
                 (long long)w, (long long)oc, (long long)pad,
                 bias ? " bias" : "", (int)fill);
  etr_tensor_t *input = etr_diff_input(&d, ETR_FLOAT, 4,
                                       (const int64_t[]){1, 3, h, w},
                                       ETR_DIFF_CONTIGUOUS, fill);
  if (fill == ETR_FILL_EXACT_INT) {  // exact sums stay exact with these
    float *data = (float *)input->data;
    int64_t numel = etr_tensor_numel(input);
    data[numel / 2] = INFINITY;
    data[numel - 1] = -INFINITY;
    data[numel / 3] = NAN;
    data[numel / 5] = -0.0f;
  }
  etr_diff_input(&d, ETR_FLOAT, 4, (const int64_t[]){oc, 3, 3, 3},
                 ETR_DIFF_CONTIGUOUS, fill);
  if (bias) {
    etr_diff_input(&d, ETR_FLOAT, 1, (const int64_t[]){oc},
                   ETR_DIFF_CONTIGUOUS, fill);
  } else {
    etr_diff_arg(&d, tt_ev_none());
  }
  d.layout = ETR_DIFF_CONTIGUOUS;
  d.dtype = ETR_FLOAT;
  etr_diff_arg(&d, TT_EV_INTS(2, 2));
  etr_diff_arg(&d, tt_ev_int_list(2, (const int64_t[]){pad, pad}));
  etr_diff_arg(&d, TT_EV_INTS(1, 1));
  etr_diff_arg(&d, tt_ev_bool(false));
  etr_diff_arg(&d, TT_EV_INTS(0, 0));
  etr_diff_arg(&d, tt_ev_int(1));
  int64_t oh = (h + 2 * pad - 3) / 2 + 1;
  int64_t ow = (w + 2 * pad - 3) / 2 + 1;
  etr_diff_out(&d, ETR_FLOAT, 4, (const int64_t[]){1, oc, oh, ow},
               ETR_DIFF_CONTIGUOUS, 0);
  etr_diff_return(&d, 9);
  if (fill == ETR_FILL_RANDOM) {
    etr_diff_tolerance_bound(
        &d, etr_diff_accumulation_bound(ETR_FLOAT, 28, 1.0, 1.0) + 0x1p-24,
        2.0 * 0x1p-24);
  } else {
    etr_diff_tolerance_exact(&d);
  }
  return etr_diff_run(&d);
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
