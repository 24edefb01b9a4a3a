// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the optimized aten::convolution.out against the
// reference kernel, on every ISA of this machine (diff.h): 1-D and 2-D,
// NCHW and channels-last, stride, padding, dilation, groups, depthwise
// (with and without a channel multiplier), pointwise, bias or none, the
// mobilenet_v2 and cnn dataset shapes, Float/Half/BFloat16, and the cases
// that fall back (transposed, 3-D, mixed layouts, non-contiguous inputs,
// other dtypes).
//
// Tolerances:
//   exact     ETR_FILL_EXACT_INT data (exact fp32 partial sums): bit for
//             bit, whatever the summation order;
//   bound     random floats in [-1, 1): gamma_k bound for k = C/groups *
//             KH * KW products (etr_diff_accumulation_bound) plus 2 units
//             of the out dtype's roundoff relative;
//   special   NaN, +-inf, -0.0, denormals in the input with weights of
//             small integers and a single input channel per group and a
//             1-tap kernel (one product per output: exact); and inf/NaN
//             weights against padding, where PyTorch (and so the reference
//             and every optimized path) multiplies the padding's zeros in:
//             a NaN border.
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/isa.h"
#include "ops_optimized/ops_optimized.h"
#include "ops_optimized/test/diff.h"
#include "ops_reference/ops_reference.h"

static uint64_t g_seed = 5000;

// When set, run_conv puts NaN, +inf and -inf into a contiguous Float
// input filled with exact integers: sums then stay exact in any order
// (inf + finite = inf, inf - inf = NaN, NaN spreads), so the special
// values are compared bit for bit through the direct kernels' 3x3 sums.
static bool g_poke_specials = false;

typedef struct conv_case {
  int64_t n, c, h, w;   // input (h = 0: a 1-D convolution of width w)
  int64_t oc, kh, kw;   // weight
  int64_t stride, pad, dilation, groups;
  bool bias;
} conv_case_t;

static int64_t out_size(int64_t in, int64_t k, int64_t stride, int64_t pad,
                        int64_t dilation) {
  return (in + 2 * pad - dilation * (k - 1) - 1) / stride + 1;
}

static int run_conv(const conv_case_t *p, etr_scalar_type_t dtype,
                    etr_diff_layout_t layout, etr_diff_fill_t fill,
                    etr_diff_fill_t weight_fill, bool transposed) {
  bool one_d = p->h == 0;
  int32_t dim = one_d ? 3 : 4;
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::convolution.out", g_seed++,
                 "in [%lld,%lld,%lld,%lld] oc %lld k %lldx%lld s%lld p%lld "
                 "d%lld g%lld%s l%d f%d%s",
                 (long long)p->n, (long long)p->c, (long long)p->h,
                 (long long)p->w, (long long)p->oc, (long long)p->kh,
                 (long long)p->kw, (long long)p->stride, (long long)p->pad,
                 (long long)p->dilation, (long long)p->groups,
                 p->bias ? " bias" : "", (int)layout, (int)fill,
                 transposed ? " transposed" : "");
  int64_t in_sizes[4] = {p->n, p->c, one_d ? p->w : p->h, p->w};
  int64_t w_sizes[4] = {p->oc, p->c / p->groups, one_d ? p->kw : p->kh,
                        p->kw};
  if (transposed) {
    w_sizes[0] = p->c;
    w_sizes[1] = p->oc / p->groups;
  }
  etr_tensor_t *input = etr_diff_input(&c, dtype, dim, in_sizes, layout,
                                       fill);
  if (g_poke_specials && dtype == ETR_FLOAT &&
      layout == ETR_DIFF_CONTIGUOUS && fill == ETR_FILL_EXACT_INT) {
    float *data = (float *)input->data;
    int64_t numel = etr_tensor_numel(input);
    data[0] = NAN;
    data[numel / 2] = INFINITY;
    data[numel - 1] = -INFINITY;
    data[(numel * 3) / 4] = INFINITY;
    data[numel / 3] = -INFINITY;
    data[numel / 5] = -0.0f;
  }
  etr_diff_input(&c, dtype, dim, w_sizes,
                 layout == ETR_DIFF_NONCONTIGUOUS ? layout
                                                  : ETR_DIFF_CONTIGUOUS,
                 weight_fill);
  if (p->bias) {
    etr_diff_input(&c, dtype, 1, (const int64_t[]){p->oc},
                   ETR_DIFF_CONTIGUOUS, weight_fill);
  } else {
    etr_diff_arg(&c, tt_ev_none());
  }
  c.layout = layout;  // the input's, for the coverage records
  c.dtype = dtype;
  int64_t spatial = one_d ? 1 : 2;
  int64_t s[2] = {p->stride, p->stride};
  int64_t pad[2] = {p->pad, p->pad};
  int64_t d[2] = {p->dilation, p->dilation};
  int64_t zero[2] = {0, 0};
  etr_diff_arg(&c, tt_ev_int_list((size_t)spatial, s));
  etr_diff_arg(&c, tt_ev_int_list((size_t)spatial, pad));
  etr_diff_arg(&c, tt_ev_int_list((size_t)spatial, d));
  etr_diff_arg(&c, tt_ev_bool(transposed));
  etr_diff_arg(&c, tt_ev_int_list((size_t)spatial, zero));
  etr_diff_arg(&c, tt_ev_int(p->groups));
  int64_t oh = one_d ? 1 : out_size(p->h, p->kh, p->stride, p->pad,
                                    p->dilation);
  int64_t ow = out_size(p->w, p->kw, p->stride, p->pad, p->dilation);
  int64_t o_sizes[4] = {p->n, p->oc, one_d ? ow : oh, ow};
  if (transposed) {  // (in - 1) * stride - 2 * pad + dilation * (k - 1) + 1
    o_sizes[2] = (p->h - 1) * p->stride - 2 * p->pad +
                 p->dilation * (p->kh - 1) + 1;
    o_sizes[3] = (p->w - 1) * p->stride - 2 * p->pad +
                 p->dilation * (p->kw - 1) + 1;
  }
  etr_diff_out(&c, dtype, dim, o_sizes,
               layout == ETR_DIFF_CHANNELS_LAST ? layout
                                                : ETR_DIFF_CONTIGUOUS,
               0);
  etr_diff_return(&c, 9);
  int64_t k = p->c / p->groups * p->kw * (one_d ? 1 : p->kh);
  if (fill == ETR_FILL_RANDOM) {
    double u = dtype == ETR_HALF       ? 0x1p-11
               : dtype == ETR_BFLOAT16 ? 0x1p-8
                                       : 0x1p-24;
    etr_diff_tolerance_bound(
        &c, etr_diff_accumulation_bound(ETR_FLOAT, k + 1, 1.0, 1.0) + 0x1p-24,
        2.0 * u);
  } else {
    etr_diff_tolerance_exact(&c);
  }
  return etr_diff_run(&c);
}

static const conv_case_t kGeneral[] = {
    // n, c, h, w, oc, kh, kw, stride, pad, dilation, groups, bias
    {1, 3, 32, 32, 16, 3, 3, 1, 1, 1, 1, true},   // cnn conv1
    {1, 16, 16, 16, 32, 3, 3, 1, 1, 1, 1, true},  // cnn conv2
    {1, 3, 64, 64, 16, 3, 3, 2, 1, 1, 1, false},  // mobilenet stem
    {2, 5, 9, 11, 7, 3, 3, 1, 0, 1, 1, true},
    {1, 4, 10, 13, 6, 5, 3, 2, 2, 1, 1, true},
    {1, 6, 12, 12, 4, 3, 3, 1, 2, 2, 1, false},   // dilation
    {2, 6, 7, 9, 9, 3, 3, 3, 1, 1, 3, true},      // groups, stride 3
    {1, 8, 6, 6, 4, 2, 2, 2, 0, 1, 2, true},
    {1, 1, 5, 5, 1, 1, 1, 1, 0, 1, 1, true},
    {1, 17, 7, 5, 33, 1, 1, 1, 0, 1, 1, true},    // pointwise
    {2, 16, 32, 32, 8, 1, 1, 1, 0, 1, 1, false},  // mobilenet pointwise
    {1, 96, 8, 8, 16, 1, 1, 1, 0, 1, 1, false},
    {1, 8, 9, 9, 12, 1, 1, 2, 1, 1, 1, true},     // 1x1 strided, padded
    {1, 3, 23, 23, 8, 3, 3, 2, 1, 1, 1, true},    // 12-wide rows, stride 2
    {1, 2, 5, 56, 4, 3, 3, 1, 1, 1, 1, false},    // 16-lane groups straddle
    {1, 2, 4, 111, 3, 3, 3, 2, 0, 1, 1, true},    // rows, stride 1 and 2
    {1, 2, 6, 20, 3, 2, 4, 3, 1, 1, 1, true},     // stride 3 gathers
    {1, 3, 7, 8, 5, 3, 3, 1, 0, 1, 1, true},      // few channels, no pad
    {2, 4, 9, 9, 20, 2, 2, 1, 1, 2, 1, true},     // 20 outs, dilation 2
    {1, 3, 0, 37, 5, 0, 4, 2, 1, 1, 1, true},     // 1-D
    {2, 6, 0, 20, 4, 0, 3, 1, 2, 2, 2, false},    // 1-D, groups, dilation
    // The direct kernel along rows (few channels, rows of >= 8 outputs,
    // stride 1 or 2): dilation, 17 outs (a second block of 1), a 2x2
    // kernel without padding, 1-D, groups, an out row of exactly 8.
    {1, 2, 11, 40, 5, 3, 3, 2, 2, 2, 1, true},
    {1, 4, 5, 8, 17, 3, 3, 1, 1, 1, 1, true},
    {1, 3, 9, 34, 6, 2, 2, 2, 0, 1, 1, false},
    {1, 3, 0, 40, 4, 0, 5, 2, 2, 1, 1, true},
    {2, 4, 6, 19, 6, 3, 3, 2, 1, 1, 2, true},
    {1, 3, 6, 16, 33, 3, 3, 2, 1, 1, 1, false},
    // K = 32 x 9 = 288: two K blocks, so the im2col packer starts a block
    // at k0 = 144 (mid-tap channel ranges); 16-pixel rows, stride 1.
    {1, 32, 5, 16, 9, 3, 3, 1, 1, 1, 1, true},
    {1, 29, 4, 7, 13, 3, 3, 1, 0, 1, 1, false},
};

static const conv_case_t kDepthwise[] = {
    {1, 16, 32, 32, 16, 3, 3, 1, 1, 1, 16, false},  // mobilenet shapes
    {1, 48, 32, 32, 48, 3, 3, 2, 1, 1, 48, false},
    {1, 72, 16, 16, 72, 3, 3, 2, 1, 1, 72, true},
    {1, 144, 4, 4, 144, 3, 3, 1, 1, 1, 144, true},
    {2, 5, 17, 19, 5, 3, 3, 1, 1, 1, 5, true},
    {1, 3, 9, 40, 6, 3, 5, 1, 2, 1, 3, true},       // multiplier 2
    {1, 17, 11, 37, 17, 5, 5, 3, 2, 2, 17, false},
    {1, 33, 6, 3, 33, 3, 3, 1, 1, 1, 33, true},     // rows narrower than pad
    {2, 7, 13, 11, 7, 3, 3, 2, 1, 1, 7, true},      // stride 2, odd rows
    {1, 5, 12, 40, 5, 3, 3, 2, 0, 2, 5, false},     // stride 2, dilation 2
    {1, 6, 9, 9, 6, 3, 3, 1, 1, 1, 6, true},        // planes of 81 pixels
    {1, 9, 8, 8, 9, 3, 3, 2, 1, 1, 9, true},        // stride 2 to 4 x 4
    {1, 10, 9, 9, 10, 3, 3, 2, 1, 1, 10, false},    // stride 2 to 5 x 5
    {1, 4, 0, 50, 4, 0, 7, 2, 3, 1, 4, true},       // 1-D depthwise
    // The 3x3 row kernel (rows of >= 8 outputs): tails of 1 and 15
    // columns, no padding, padding 2, a multiplier, stride 2 over odd and
    // even widths, 8-wide rows.
    {1, 3, 5, 17, 3, 3, 3, 1, 1, 1, 3, true},
    {2, 4, 6, 33, 4, 3, 3, 1, 0, 1, 4, false},
    {1, 5, 4, 31, 5, 3, 3, 1, 2, 1, 5, true},
    {1, 3, 7, 20, 6, 3, 3, 1, 1, 1, 3, true},       // multiplier 2
    {1, 6, 9, 37, 6, 3, 3, 2, 1, 1, 6, true},
    {1, 5, 8, 64, 5, 3, 3, 2, 0, 1, 5, false},
    {1, 4, 10, 34, 8, 3, 3, 2, 2, 1, 4, true},      // multiplier 2
    {1, 7, 8, 8, 7, 3, 3, 1, 1, 1, 7, false},
    {1, 3, 3, 16, 3, 3, 3, 2, 1, 1, 3, true},       // 8 outputs per row
    {1, 2, 1, 12, 2, 3, 3, 1, 1, 1, 2, true},       // one input row
    // Small stride-1 planes taken flat (<= 64 outputs): dilation 2, a
    // multiplier, 7x7 (a tail block of 1), 2x5.
    {1, 4, 5, 5, 4, 3, 3, 1, 2, 2, 4, true},
    {1, 3, 4, 4, 6, 3, 3, 1, 1, 1, 3, true},
    {1, 9, 7, 7, 9, 3, 3, 1, 1, 1, 9, false},
    {2, 5, 2, 5, 5, 3, 3, 1, 1, 1, 5, true},
    // Planes held in registers (<= 64 inputs, <= 16 outputs): stride 3,
    // dilation 2 with a multiplier, 7x9 to 3x4 without padding, one row.
    {1, 7, 8, 8, 7, 3, 3, 3, 1, 1, 7, true},
    {1, 4, 4, 4, 8, 3, 3, 1, 2, 2, 4, true},
    {2, 5, 7, 9, 5, 3, 3, 2, 0, 1, 5, false},
    {1, 3, 1, 10, 3, 3, 3, 1, 1, 1, 3, true},
    // Rows kept in registers across output rows (stride 1 down the
    // columns): padding 0, 1 and 2 over 2, 3 and 4 input rows.
    {1, 3, 2, 20, 3, 3, 3, 1, 2, 1, 3, true},
    {1, 3, 3, 24, 3, 3, 3, 1, 0, 1, 3, false},
    {1, 2, 4, 18, 4, 3, 3, 1, 1, 1, 2, true},
};

TT_TEST(diff_conv, general_and_pointwise) {
  int failures = 0;
  for (size_t i = 0; i < sizeof(kGeneral) / sizeof(kGeneral[0]); ++i) {
    for (int layout = 0; layout < 3; ++layout) {
      if (layout == ETR_DIFF_CHANNELS_LAST && kGeneral[i].h == 0) {
        continue;
      }
      for (int fill = 0; fill < 2; ++fill) {
        etr_diff_fill_t data = fill ? ETR_FILL_EXACT_INT : ETR_FILL_RANDOM;
        failures += run_conv(&kGeneral[i], ETR_FLOAT,
                             (etr_diff_layout_t)layout, data, data, false);
      }
    }
  }
  cr_assert_eq(failures, 0, "%d convolution cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

TT_TEST(diff_conv, depthwise) {
  int failures = 0;
  for (size_t i = 0; i < sizeof(kDepthwise) / sizeof(kDepthwise[0]); ++i) {
    for (int layout = 0; layout < 3; ++layout) {
      if (layout == ETR_DIFF_CHANNELS_LAST && kDepthwise[i].h == 0) {
        continue;
      }
      for (int fill = 0; fill < 2; ++fill) {
        etr_diff_fill_t data = fill ? ETR_FILL_EXACT_INT : ETR_FILL_RANDOM;
        failures += run_conv(&kDepthwise[i], ETR_FLOAT,
                             (etr_diff_layout_t)layout, data, data, false);
      }
    }
  }
  // inf/NaN weights against padding: 0 * inf is NaN at the border, as in
  // PyTorch (the depthwise kernels skip padded taps, so op_convolution.c
  // routes these to the GEMM path). 1-tap kernels: one product per output.
  static const conv_case_t padded[] = {
      {1, 8, 5, 6, 8, 1, 1, 1, 1, 1, 8, false},
      {2, 3, 4, 7, 6, 1, 1, 2, 2, 1, 3, false},
      {1, 20, 3, 3, 20, 1, 1, 1, 1, 1, 20, false},
      {1, 43, 2, 3, 43, 1, 1, 1, 1, 1, 43, false},  // 8-wide scan + tail
      {1, 1, 4, 5, 4, 1, 1, 1, 1, 1, 1, false},     // the direct kernel
  };
  for (size_t i = 0; i < sizeof(padded) / sizeof(padded[0]); ++i) {
    for (int layout = 0; layout < 3; layout += 2) {
      failures += run_conv(&padded[i], ETR_FLOAT, (etr_diff_layout_t)layout,
                           ETR_FILL_EXACT_INT, ETR_FILL_SPECIAL, false);
    }
  }
  cr_assert_eq(failures, 0, "%d depthwise cases disagree", failures);
}

// The depthwise kernels for small planes and stride 2 (conv.h): planes
// held in registers (3x3, stride 1, padding 1, rows of 2..15, at most 64
// elements: 1 to 4 vectors, pixel counts around 16, 32, 48 and 64), and
// the neighbours they hand over to (rows of 16+, 65+ pixels, padding 0 or
// 2, stride 2 to rows of fewer and more than 8); 1, 3 and 17 channels, a
// multiplier of 2, bias or none; NaN and inf inputs (exact data).
TT_TEST(diff_conv, depthwise_small_planes_and_stride_2) {
  static const int64_t planes[][2] = {
      {1, 2}, {2, 2}, {1, 15}, {3, 5}, {4, 4}, {2, 8}, {1, 16}, {1, 17},
      {2, 9}, {3, 11}, {4, 8}, {1, 31}, {6, 8}, {7, 7}, {7, 9}, {8, 8},
      {4, 16}, {5, 13}, {9, 9}, {2, 15}, {15, 2}, {16, 16}, {17, 15},
      {32, 32}, {5, 33}, {3, 64}};
  static const int64_t channels[][2] = {{1, 1}, {3, 6}, {17, 17}};
  int failures = 0;
  int run = 0;
  for (size_t i = 0; i < sizeof(planes) / sizeof(planes[0]); ++i) {
    for (int64_t stride = 1; stride <= 2; ++stride) {
      for (int64_t pad = 0; pad <= 2; ++pad) {
        if (planes[i][0] + 2 * pad < 3 || planes[i][1] + 2 * pad < 3) {
          continue;
        }
        ++run;
        const int64_t *cm = channels[run % 3];
        conv_case_t p = {1 + (run % 5 == 0), cm[0], planes[i][0],
                         planes[i][1], cm[1], 3, 3, stride, pad, 1, cm[0],
                         run % 2 == 0};
        for (int layout = 0; layout < 3; layout += 2) {
          failures += run_conv(&p, ETR_FLOAT, (etr_diff_layout_t)layout,
                               ETR_FILL_RANDOM, ETR_FILL_RANDOM, false);
        }
        g_poke_specials = true;
        failures += run_conv(&p, ETR_FLOAT, ETR_DIFF_CONTIGUOUS,
                             ETR_FILL_EXACT_INT, ETR_FILL_EXACT_INT, false);
        g_poke_specials = false;
      }
    }
  }
  cr_assert_eq(failures, 0, "%d depthwise cases disagree", failures);
}

// The register-resident plane kernel (depthwise3x3_plane_avx512.c: 3x3,
// stride 1, padding 1, rows of 2..15, at most 64 elements) on every plane
// it takes, its row-above and row-below permutes and the column shifts
// across 1 to 4 blocks: 5 channels (a multiplier of 1) or 2 input
// channels times 3, bias or none; random data, and exact data with NaN,
// inf and -0.0 inputs; beside it the planes one row taller or wider than
// it takes (65+ elements, rows of 16), which go elsewhere.
TT_TEST(diff_conv, depthwise_3x3_register_planes) {
  int failures = 0;
  int run = 0;
  for (int64_t w = 1; w <= 16; ++w) {
    for (int64_t h = 1; h * w <= 64 + w; ++h) {
      ++run;
      const bool multiplied = run % 3 == 0;
      conv_case_t p = {1, multiplied ? 2 : 5, h, w, multiplied ? 6 : 5, 3,
                       3, 1, 1, 1, multiplied ? 2 : 5, run % 2 == 0};
      failures += run_conv(&p, ETR_FLOAT, ETR_DIFF_CONTIGUOUS,
                           ETR_FILL_RANDOM, ETR_FILL_RANDOM, false);
      g_poke_specials = true;
      failures += run_conv(&p, ETR_FLOAT, ETR_DIFF_CONTIGUOUS,
                           ETR_FILL_EXACT_INT, ETR_FILL_EXACT_INT, false);
      g_poke_specials = false;
    }
  }
  cr_assert_gt(run, 150);
  cr_assert_eq(failures, 0, "%d depthwise cases disagree", failures);
}

// The one-vector-per-row kernel (depthwise3x3_plane_avx512.c: 3x3, stride
// 1, padding 1, rows of 8..16, any height): rows of 7..17 (the ones beside
// it go elsewhere), heights 1..20, 5 channels or 2 x 3, bias or none,
// random data and exact data with NaN, inf and -0.0 inputs.
TT_TEST(diff_conv, depthwise_3x3_row_vectors) {
  int failures = 0;
  int run = 0;
  for (int64_t w = 7; w <= 17; ++w) {
    for (int64_t h = 1; h <= 20; h += 1 + (h > 6)) {
      ++run;
      const bool multiplied = run % 3 == 0;
      conv_case_t p = {1 + (run % 7 == 0), multiplied ? 2 : 5, h, w,
                       multiplied ? 6 : 5, 3, 3, 1, 1, 1,
                       multiplied ? 2 : 5, run % 2 == 0};
      failures += run_conv(&p, ETR_FLOAT, ETR_DIFF_CONTIGUOUS,
                           ETR_FILL_RANDOM, ETR_FILL_RANDOM, false);
      g_poke_specials = true;
      failures += run_conv(&p, ETR_FLOAT, ETR_DIFF_CONTIGUOUS,
                           ETR_FILL_EXACT_INT, ETR_FILL_EXACT_INT, false);
      g_poke_specials = false;
    }
  }
  cr_assert_gt(run, 100);
  cr_assert_eq(failures, 0, "%d depthwise cases disagree", failures);
}

// The stride-2 row kernel that splits rows by column parity
// (depthwise3x3_s2_plane_avx512.c: padding 1, rows of 17..32 inputs, any
// height): rows of 15..34 (the ones beside it go elsewhere), odd and even
// heights 1..12, 5 channels or 2 x 3, bias or none, random data and exact
// data with NaN, inf and -0.0 inputs.
TT_TEST(diff_conv, depthwise_3x3_stride_2_row_vectors) {
  int failures = 0;
  int run = 0;
  for (int64_t w = 15; w <= 34; ++w) {
    for (int64_t h = 1; h <= 12; h += 1 + (w % 2)) {
      ++run;
      const bool multiplied = run % 3 == 0;
      conv_case_t p = {1 + (run % 7 == 0), multiplied ? 2 : 5, h, w,
                       multiplied ? 6 : 5, 3, 3, 2, 1, 1,
                       multiplied ? 2 : 5, run % 2 == 0};
      failures += run_conv(&p, ETR_FLOAT, ETR_DIFF_CONTIGUOUS,
                           ETR_FILL_RANDOM, ETR_FILL_RANDOM, false);
      g_poke_specials = true;
      failures += run_conv(&p, ETR_FLOAT, ETR_DIFF_CONTIGUOUS,
                           ETR_FILL_EXACT_INT, ETR_FILL_EXACT_INT, false);
      g_poke_specials = false;
    }
  }
  cr_assert_gt(run, 100);
  cr_assert_eq(failures, 0, "%d depthwise cases disagree", failures);
}

// The stride-2 parity-split plane kernel (depthwise3x3_plane_avx512.c:
// padding 1, input planes of even sizes up to 64 elements, split into
// row and column parities with one or two permutes each): every even
// (h, w) it takes, 1x1 to 2x8 outputs, and the odd and larger planes
// beside them, which go elsewhere; 5 channels or 2 x 3, bias or none,
// random data and exact data with NaN, inf and -0.0 inputs.
TT_TEST(diff_conv, depthwise_3x3_stride_2_parity_planes) {
  int failures = 0;
  int run = 0;
  for (int64_t w = 1; w <= 18; ++w) {
    for (int64_t h = 1; h * w <= 64 + 2 * w; ++h) {
      if (h + 2 < 3 || w + 2 < 3 || (h % 2 == 1 && w % 2 == 1 && run % 2)) {
        continue;
      }
      ++run;
      const bool multiplied = run % 3 == 0;
      conv_case_t p = {1, multiplied ? 2 : 5, h, w, multiplied ? 6 : 5, 3,
                       3, 2, 1, 1, multiplied ? 2 : 5, run % 2 == 0};
      failures += run_conv(&p, ETR_FLOAT, ETR_DIFF_CONTIGUOUS,
                           ETR_FILL_RANDOM, ETR_FILL_RANDOM, false);
      g_poke_specials = true;
      failures += run_conv(&p, ETR_FLOAT, ETR_DIFF_CONTIGUOUS,
                           ETR_FILL_EXACT_INT, ETR_FILL_EXACT_INT, false);
      g_poke_specials = false;
    }
  }
  cr_assert_gt(run, 100);
  cr_assert_eq(failures, 0, "%d depthwise cases disagree", failures);
}

// The 3x3 row kernel's whole-vector reads (stride 1: a block of 16
// outputs whose 18 input columns all lie inside the row) beside its
// masked reads: input rows 1..40 wide (blocks at, below and above 16 and
// 32 outputs, so a row mixes both kinds), 1..7 rows, stride 1 and 2,
// padding 0 and 1, a multiplier of 1 or 2, bias or none; NaN and inf
// inputs (exact data), and the non-contiguous layout's fallback.
TT_TEST(diff_conv, depthwise_3x3_row_widths) {
  int failures = 0;
  int run = 0;
  for (int64_t w = 1; w <= 40; ++w) {
    for (int64_t stride = 1; stride <= 2; ++stride) {
      for (int64_t pad = 0; pad <= 1; ++pad) {
        const int64_t h = 1 + (w + stride + pad) % 7;
        if (w + 2 * pad < 3 || h + 2 * pad < 3) {
          continue;
        }
        ++run;
        const int64_t channels = 1 + run % 3;
        const int64_t multiplier = 1 + run % 2;
        conv_case_t p = {1, channels, h, w, channels * multiplier, 3, 3,
                         stride, pad, 1, channels, run % 4 < 2};
        for (int layout = 0; layout < 3; ++layout) {
          failures += run_conv(&p, ETR_FLOAT, (etr_diff_layout_t)layout,
                               ETR_FILL_RANDOM, ETR_FILL_RANDOM, false);
        }
        g_poke_specials = true;
        failures += run_conv(&p, ETR_FLOAT, ETR_DIFF_CONTIGUOUS,
                             ETR_FILL_EXACT_INT, ETR_FILL_EXACT_INT, false);
        g_poke_specials = false;
      }
    }
  }
  cr_assert_gt(run, 100);
  cr_assert_eq(failures, 0, "%d depthwise cases disagree", failures);
}

// The direct kernel's 3x3 stem variants (3 input channels, every loop
// unrolled; 2 and 4 channels keep the channel loop): out rows of 8, 15,
// 16, 17, 31 and 33 columns, and 63 to 129 (the banded kernel's rows of
// 64 and up, its chunks of 128 and their edges), 1 to 4 rows (tiles of
// 3), stride 1 and 2, padding 0 and 1, 16, 19 and 67 outs (blocks of 64),
// bias or none, NaN and inf inputs.
TT_TEST(diff_conv, direct_stem) {
  // 63 and up: the banded kernel (stem3x3_avx512.c), chunks of 128.
  static const int64_t widths[] = {8,  15, 16, 17, 31, 33,  63,
                                   64, 65, 80, 127, 128, 129};
  int failures = 0;
  int run = 0;
  for (size_t i = 0; i < sizeof(widths) / sizeof(widths[0]); ++i) {
    for (int64_t stride = 1; stride <= 2; ++stride) {
      for (int64_t pad = 0; pad <= 1; ++pad) {
        ++run;
        int64_t out_h = 1 + run % 4;
        int64_t in_c = run % 5 == 0 ? 2 : run % 7 == 0 ? 4 : 3;
        conv_case_t p = {1, in_c, (out_h - 1) * stride + 3 - 2 * pad,
                         (widths[i] - 1) * stride + 3 - 2 * pad,
                         run % 3 == 0 ? 19 : run % 11 == 0 ? 67 : 16, 3, 3,
                         stride, pad, 1, 1,
                         run % 2 == 0};
        failures += run_conv(&p, ETR_FLOAT, ETR_DIFF_CONTIGUOUS,
                             ETR_FILL_RANDOM, ETR_FILL_RANDOM, false);
        g_poke_specials = true;
        failures += run_conv(&p, ETR_FLOAT, ETR_DIFF_CONTIGUOUS,
                             ETR_FILL_EXACT_INT, ETR_FILL_EXACT_INT, false);
        g_poke_specials = false;
      }
    }
  }
  cr_assert_eq(failures, 0, "%d direct convolution cases disagree",
               failures);
}

// The depthwise kernels called as the op may call them, one channel plane
// at a time (channels = 1; out planes apart by more than a plane, whose
// gaps must stay untouched), with and without bias, against the same
// kernel over all channels: bit for bit, on every ISA of this machine.
// Small stride-1 planes, stride 2 to rows of at most 8 (two rows per
// vector), planes held in registers, and the row kernel.
TT_TEST(diff_conv, depthwise_kernel_per_plane) {
  static const int64_t shapes[][4] = {
      // in_h, in_w, stride, pad
      {4, 4, 1, 1}, {8, 8, 1, 1}, {3, 7, 1, 1}, {16, 16, 2, 1},
      {9, 9, 2, 1}, {15, 16, 2, 0}, {8, 8, 2, 1}, {12, 20, 2, 1},
      {6, 17, 1, 1}, {4, 4, 2, 1}, {6, 8, 2, 1}, {2, 16, 2, 1},
      {16, 16, 1, 1}, {9, 12, 1, 1}, {7, 20, 2, 1}};
  enum { kChannels = 5, kSpare = 3, kMaxPlane = 20 * 20 };
  static float input[kChannels * kMaxPlane];
  static float weight[kChannels * 9];
  static float bias[kChannels];
  static float all[kChannels * kMaxPlane];
  static float one[kChannels * (kMaxPlane + kSpare)];
  for (int64_t i = 0; i < kChannels * kMaxPlane; ++i) {
    input[i] = (float)((i * 7919) % 17) / 8.0f - 1.0f;
  }
  for (int64_t i = 0; i < kChannels * 9; ++i) {
    weight[i] = (float)((i * 31) % 11) / 4.0f - 1.25f;
  }
  for (int64_t i = 0; i < kChannels; ++i) {
    bias[i] = (float)i - 2.0f;
  }
  int checked = 0;
  for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
    if (!etr_isa_available((etr_isa_t)isa)) {
      continue;
    }
    etr_depthwise_fn kernel = etr_depthwise_for((etr_isa_t)isa, false);
    for (size_t i = 0; i < sizeof(shapes) / sizeof(shapes[0]); ++i) {
      const int64_t *sh = shapes[i];
      int64_t out_h = out_size(sh[0], 3, sh[2], sh[3], 1);
      int64_t out_w = out_size(sh[1], 3, sh[2], sh[3], 1);
      etr_conv2d_geometry_t g = {
          .channels = 1, .in_h = sh[0], .in_w = sh[1], .out_h = out_h,
          .out_w = out_w, .kernel_h = 3, .kernel_w = 3, .stride_h = sh[2],
          .stride_w = sh[2], .pad_h = sh[3], .pad_w = sh[3],
          .dilation_h = 1, .dilation_w = 1, .in_stride_c = sh[0] * sh[1],
          .in_stride_h = sh[1], .in_stride_w = 1, .w_stride_oc = 9,
          .w_stride_c = 9, .w_stride_h = 3, .w_stride_w = 1};
      int64_t row = out_w;
      int64_t gap = kSpare;  // the per-plane outs' spare elements
      memset(all, 0, sizeof all);
      for (int64_t e = 0; e < kChannels * (out_h * row + gap); ++e) {
        one[e] = 12345.0f;  // the gaps must keep it
      }
      etr_depthwise_args_t a = {
          .geometry = &g, .input = input, .weight = weight, .bias = bias,
          .bias_stride = 1, .out = all, .out_stride_c = out_h * out_w,
          .out_stride_h = out_w, .out_stride_w = 1, .channels = kChannels,
          .multiplier = 1};
      kernel(&a);
      for (int64_t c = 0; c < kChannels; ++c) {
        etr_depthwise_args_t p = a;
        p.input = input + c * g.in_stride_c;
        p.weight = weight + c * 9;
        p.bias = c % 2 == 0 ? bias + c : NULL;
        p.out = one + c * (out_h * row + gap);
        p.out_stride_c = out_h * row + gap;
        p.out_stride_h = row;
        p.channels = 1;
        kernel(&p);
      }
      // Exact data (multiples of 1/32): the no-bias planes are the
      // biased ones minus the bias exactly.
      for (int64_t c = 0; c < kChannels; ++c) {
        for (int64_t e = 0; e < out_h * row + gap; ++e) {
          float got = one[c * (out_h * row + gap) + e];
          float want = e >= out_h * row ? 12345.0f
                       : c % 2 == 0     ? all[c * out_h * out_w + e]
                                        : all[c * out_h * out_w + e] - bias[c];
          cr_expect(got == want,
                    "isa %d shape %zu channel %lld at %lld: %g vs %g", isa,
                    i, (long long)c, (long long)e, (double)got,
                    (double)want);
          ++checked;
        }
      }
    }
  }
  cr_assert_gt(checked, 0);
}

// The pointwise kernel (pointwise_avx512.c: 1x1, stride 1, no padding, one
// group, at most 256 input channels and 32 KiB of weights): pixel counts
// 1, 15, 16 and 17 (images of at most 16 pixels hold the input channels
// in registers, 16 at a time: 1, 15, 16, 17, 33 channels), 31, 32, 33,
// 64, 65 (tiles of 32 pixels, 12 or 8 out channels: 1, 7, 8, 9, 12, 13,
// 24, 25 outs), 1-D, two images, bias or none; every layout (channels-last
// and non-contiguous inputs take the GEMM), exact data with NaN and inf
// poked in, and -0.0/inf/NaN from the special fill over one input channel.
// Past the limits (257 input channels, 33 KiB of weights) the GEMM again.
TT_TEST(diff_conv, pointwise_tile_edges) {
  static const int64_t planes[][2] = {{1, 1},  {3, 5}, {4, 4}, {1, 17},
                                      {1, 31}, {4, 8}, {3, 11}, {8, 8},
                                      {5, 13}, {0, 40}};
  static const int64_t channels[] = {1, 7, 15, 16, 17, 33, 48};
  static const int64_t outs[] = {1, 7, 8, 9, 12, 13, 24, 25};
  int failures = 0;
  int run = 0;
  for (size_t i = 0; i < sizeof(planes) / sizeof(planes[0]); ++i) {
    for (size_t c = 0; c < sizeof(channels) / sizeof(channels[0]); ++c) {
      ++run;
      conv_case_t p = {1 + (run % 5 == 0), channels[c], planes[i][0],
                       planes[i][1], outs[run % 8], 0, 1, 1, 0, 1, 1,
                       run % 2 == 0};
      p.kh = p.h == 0 ? 0 : 1;
      for (int layout = 0; layout < 3; ++layout) {
        if (layout == ETR_DIFF_CHANNELS_LAST && p.h == 0) {
          continue;
        }
        failures += run_conv(&p, ETR_FLOAT, (etr_diff_layout_t)layout,
                             ETR_FILL_RANDOM, ETR_FILL_RANDOM, false);
      }
      g_poke_specials = true;
      failures += run_conv(&p, ETR_FLOAT, ETR_DIFF_CONTIGUOUS,
                           ETR_FILL_EXACT_INT, ETR_FILL_EXACT_INT, false);
      g_poke_specials = false;
    }
  }
  // One product per output (no bias: the special fill's fractions would
  // round twice in the reference): NaN, +-inf, -0.0 inputs and weights.
  static const conv_case_t special[] = {
      {1, 1, 4, 4, 24, 1, 1, 1, 0, 1, 1, false},
      {1, 1, 5, 7, 13, 1, 1, 1, 0, 1, 1, false},
      {2, 1, 3, 3, 9, 1, 1, 1, 0, 1, 1, false},
  };
  for (size_t i = 0; i < sizeof(special) / sizeof(special[0]); ++i) {
    failures += run_conv(&special[i], ETR_FLOAT, ETR_DIFF_CONTIGUOUS,
                         ETR_FILL_SPECIAL, ETR_FILL_SPECIAL, false);
    failures += run_conv(&special[i], ETR_FLOAT, ETR_DIFF_CONTIGUOUS,
                         ETR_FILL_SPECIAL, ETR_FILL_EXACT_INT, false);
  }
  // Past the kernel's limits, and a larger model-like layer inside them.
  static const conv_case_t limits[] = {
      {1, 257, 2, 3, 5, 1, 1, 1, 0, 1, 1, true},
      {1, 64, 4, 4, 129, 1, 1, 1, 0, 1, 1, true},
      {1, 144, 4, 4, 32, 1, 1, 1, 0, 1, 1, false},
      {1, 24, 4, 4, 144, 1, 1, 1, 0, 1, 1, true},
  };
  for (size_t i = 0; i < sizeof(limits) / sizeof(limits[0]); ++i) {
    for (int fill = 0; fill < 2; ++fill) {
      etr_diff_fill_t data = fill ? ETR_FILL_EXACT_INT : ETR_FILL_RANDOM;
      failures += run_conv(&limits[i], ETR_FLOAT, ETR_DIFF_CONTIGUOUS, data,
                           data, false);
    }
  }
  cr_assert_eq(failures, 0, "%d pointwise cases disagree", failures);
}

// The padding-tap weight scan of each ISA (conv.h): counts 0..150 (the
// unrolled blocks of 64, the 16-lane tail, partial vectors) with one inf,
// -inf or NaN at every position, and with only finite extremes (the
// largest float, -0.0, a denormal), which must not count.
TT_TEST(diff_conv, nonfinite_weight_scan) {
  static float data[150];
  const float specials[] = {INFINITY, -INFINITY, NAN, -NAN};
  const float finite[] = {0x1.fffffep127f, -0x1.fffffep127f, -0.0f,
                          0x1p-149f};
  int checked = 0;
  for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
    etr_conv_nonfinite_fn scan = etr_isa_available((etr_isa_t)isa)
                                     ? etr_conv_any_nonfinite_for(
                                           (etr_isa_t)isa)
                                     : NULL;
    if (scan == NULL) {
      continue;
    }
    for (int64_t count = 0; count <= 150; ++count) {
      for (int64_t i = 0; i < count; ++i) {
        data[i] = finite[i % 4];
      }
      cr_expect(!scan(data, count), "isa %d count %lld: finite", isa,
                (long long)count);
      for (int64_t at = 0; at < count; ++at) {
        const float kept = data[at];
        data[at] = specials[(count + at) % 4];
        cr_expect(scan(data, count), "isa %d count %lld at %lld", isa,
                  (long long)count, (long long)at);
        data[at] = kept;
        ++checked;
      }
      // Past the count: not read.
      if (count < 150) {
        data[count] = NAN;
        cr_expect(!scan(data, count), "isa %d count %lld: past the end",
                  isa, (long long)count);
      }
    }
  }
  cr_assert(checked > 0 || !etr_isa_available(ETR_ISA_AVX512),
            "no ISA's scan ran");
}

TT_TEST(diff_conv, half_bfloat16_special_and_fallbacks) {
  static const etr_scalar_type_t dtypes[] = {ETR_HALF, ETR_BFLOAT16};
  int failures = 0;
  for (size_t d = 0; d < 2; ++d) {
    for (int fill = 0; fill < 2; ++fill) {
      etr_diff_fill_t data = fill ? ETR_FILL_EXACT_INT : ETR_FILL_RANDOM;
      for (int layout = 0; layout < 3; layout += 2) {
        failures += run_conv(&kGeneral[3], dtypes[d],
                             (etr_diff_layout_t)layout, data, data, false);
        failures += run_conv(&kGeneral[6], dtypes[d],
                             (etr_diff_layout_t)layout, data, data, false);
        failures += run_conv(&kGeneral[9], dtypes[d],
                             (etr_diff_layout_t)layout, data, data, false);
        failures += run_conv(&kDepthwise[4], dtypes[d],
                             (etr_diff_layout_t)layout, data, data, false);
      }
    }
  }
  // Special input values, one product per output.
  static const conv_case_t special[] = {
      {2, 3, 7, 9, 6, 1, 1, 1, 0, 1, 3, false},
      {1, 4, 6, 6, 4, 1, 1, 2, 0, 1, 4, false},
      {1, 1, 5, 5, 3, 1, 1, 1, 0, 1, 1, false},
  };
  for (size_t i = 0; i < 3; ++i) {
    for (int layout = 0; layout < 3; layout += 2) {
      failures += run_conv(&special[i], ETR_FLOAT, (etr_diff_layout_t)layout,
                           ETR_FILL_SPECIAL, ETR_FILL_EXACT_INT, false);
    }
  }
  // Cases that fall back: transposed, Double, Int.
  const conv_case_t up = {1, 4, 5, 5, 6, 3, 3, 2, 1, 1, 2, true};
  failures += run_conv(&up, ETR_FLOAT, ETR_DIFF_CONTIGUOUS,
                       ETR_FILL_EXACT_INT, ETR_FILL_EXACT_INT, true);
  failures += run_conv(&kGeneral[3], ETR_DOUBLE, ETR_DIFF_CONTIGUOUS,
                       ETR_FILL_RANDOM, ETR_FILL_RANDOM, false);
  failures += run_conv(&kGeneral[3], ETR_INT, ETR_DIFF_CONTIGUOUS,
                       ETR_FILL_RANDOM, ETR_FILL_RANDOM, false);
  cr_assert_eq(failures, 0, "%d convolution cases disagree", failures);
}

TT_TEST(diff_conv, errors_and_dry_run) {
  // Input channels that do not match the weight: the reference's error.
  etr_tensor_t *x = tt_tensor(ETR_FLOAT, 4, (const int64_t[]){1, 3, 5, 5},
                              NULL);
  etr_tensor_t *w = tt_tensor(ETR_FLOAT, 4, (const int64_t[]){4, 2, 3, 3},
                              NULL);
  etr_tensor_t *out = tt_out(ETR_FLOAT, 4, (const int64_t[]){1, 4, 3, 3},
                             36);
  etr_evalue_t *args[11] = {
      tt_ev_tensor(x),      tt_ev_tensor(w),      tt_ev_none(),
      TT_EV_INTS(1, 1),     TT_EV_INTS(0, 0),     TT_EV_INTS(1, 1),
      tt_ev_bool(false),    TT_EV_INTS(0, 0),     tt_ev_int(1),
      tt_ev_tensor(out),    NULL};
  args[10] = args[9];
  etr_diag_t diag;
  etr_diag_reset(&diag);
  etr_kernel_context_t ctx = {.diag = &diag};
  cr_assert_eq(etr_opt_convolution_out(&ctx, args, 11),
               ETR_ERR_INVALID_ARGUMENT);
  // Dry run: the out is resized, no data is touched (NULL data).
  etr_tensor_t *w3 = tt_tensor(ETR_FLOAT, 4, (const int64_t[]){4, 3, 3, 3},
                               NULL);
  etr_tensor_t *o = tt_out(ETR_FLOAT, 4, (const int64_t[]){1, 1, 1, 1}, 64);
  x->data = NULL;
  w3->data = NULL;
  o->data = NULL;
  args[1] = tt_ev_tensor(w3);
  args[9] = args[10] = tt_ev_tensor(o);
  ctx.dry_run = true;
  cr_assert_eq(etr_opt_convolution_out(&ctx, args, 11), ETR_OK);
  cr_assert_eq(o->sizes[1], 4);
  cr_assert_eq(o->sizes[2], 3);
}
