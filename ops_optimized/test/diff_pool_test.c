// SPDX-License-Identifier: Apache-2.0
//
// Differential tests of the optimized pooling kernels (max_pool2d with
// indices, avg_pool2d, _adaptive_avg_pool2d, and avg_pool1d and
// adaptive_avg_pool1d on the same drivers; ops_optimized/pool/) against
// the reference kernels, on every ISA this machine has.
//
// Sweeps: output widths over the tile edges of 8 and 16 lanes (the NCHW
// row kernels) and channel counts over them (the NHWC pixel kernels);
// kernels 1x1, 2x2, 3x3, 1x3, 3x2; strides 1, 2 (vectorized) and 3
// (portable rows); padding 0 and 1; ceil_mode both ways; dilation 1 and 2
// (max); count_include_pad and divisor_override (avg); 3-D and 4-D,
// contiguous and channels-last inputs (outs laid out alike), non-contiguous
// inputs and Half/Double (fallback); the CNN's and MobileNetV2's shapes;
// random, special (NaN, +-inf, -0.0) and integer data; argument errors.
//
// Tolerances: max pooling and its indices exact (NaN placement and
// first-position ties included); averages exact for integer data, else
// |opt - ref| <= 2 gamma_k k max|x| + 2u |ref| with k the window size
// (fp32 window sums in another order than the reference's double sum).
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "ops_optimized/pool/pool.h"
#include "ops_optimized/test/diff.h"
#include "ops_reference/ops_reference.h"

// Data planted over the fill, for the 2x2 kernels' edge cases.
typedef enum pattern {
  PATTERN_NONE,
  PATTERN_NEGATIVE_ZERO,  // all -0.0: the average must be +0.0
  PATTERN_NEGATIVE_INF,   // every other element -inf, some windows all -inf
  PATTERN_HUGE,           // all 3e38: fp32 window sums overflow, doubles not
  PATTERN_TIES,           // 0 0 1 1 2 repeated: ties keep the first index
} pattern_t;

typedef struct pool_spec {
  const char *op;
  etr_scalar_type_t dtype;
  int32_t rank;
  int64_t sizes[4];
  etr_diff_layout_t layout;
  etr_diff_fill_t fill;
  int64_t kernel[2];
  int64_t stride[2];
  int64_t padding[2];
  int64_t dilation[2];
  bool ceil_mode;
  bool count_include_pad;
  int64_t divisor;  // 0: none
  bool nan_heavy;   // every third element NaN (windows with several NaNs)
  pattern_t pattern;
  // Contiguous outs of the input's rank: 1 already of the result's shape,
  // 2 one output row taller (the kernel must resize them); 0 empty.
  int presized;
} pool_spec_t;

static double max_abs_of(etr_diff_fill_t fill) {
  return fill == ETR_FILL_EXACT_INT ? 4.0
         : fill == ETR_FILL_SPECIAL ? 3.0e38
         : fill == ETR_FILL_POSITIVE ? 2.0
                                     : 1.0;
}

static int run_pool(const pool_spec_t *s, uint64_t seed) {
  bool is_max = strstr(s->op, "max") != NULL;
  etr_diff_case_t c;
  etr_diff_begin(&c, s->op, seed,
                 "[%lld %lld %lld %lld] k %lldx%lld s %lld,%lld p %lld,%lld "
                 "d %lld%s%s",
                 (long long)s->sizes[0], (long long)s->sizes[1],
                 (long long)s->sizes[2], (long long)s->sizes[3],
                 (long long)s->kernel[0], (long long)s->kernel[1],
                 (long long)s->stride[0], (long long)s->stride[1],
                 (long long)s->padding[0], (long long)s->padding[1],
                 (long long)s->dilation[0], s->ceil_mode ? " ceil" : "",
                 s->count_include_pad ? " include_pad" : "");
  etr_tensor_t *self = etr_diff_input(&c, s->dtype, s->rank, s->sizes,
                                      s->layout, s->fill);
  if (s->nan_heavy && s->dtype == ETR_FLOAT) {
    float *data = (float *)self->data;
    for (int64_t i = 0; i < etr_tensor_numel(self); i += 3) {
      data[i] = NAN;
    }
  }
  if (s->pattern != PATTERN_NONE && s->dtype == ETR_FLOAT) {
    float *data = (float *)self->data;
    for (int64_t i = 0; i < etr_tensor_numel(self); ++i) {
      switch (s->pattern) {
        case PATTERN_NEGATIVE_ZERO: data[i] = -0.0f; break;
        case PATTERN_NEGATIVE_INF:
          data[i] = i % 2 == 0 || i % 7 == 1 ? -INFINITY : data[i];
          break;
        case PATTERN_HUGE: data[i] = 3.0e38f; break;
        case PATTERN_TIES: data[i] = (float)((i % 5) / 2); break;
        default: break;
      }
    }
  }
  etr_diff_arg(&c, tt_ev_int_list(2, s->kernel));
  etr_diff_arg(&c, tt_ev_int_list(2, s->stride));
  etr_diff_arg(&c, tt_ev_int_list(2, s->padding));
  if (is_max) {
    etr_diff_arg(&c, tt_ev_int_list(2, s->dilation));
    etr_diff_arg(&c, tt_ev_bool(s->ceil_mode));
  } else {
    etr_diff_arg(&c, tt_ev_bool(s->ceil_mode));
    etr_diff_arg(&c, tt_ev_bool(s->count_include_pad));
    etr_diff_arg(&c, s->divisor != 0 ? tt_ev_int(s->divisor) : tt_ev_none());
  }
  // Outs: channels-last when the input is (their sizes are the result's,
  // computed here as ATen's pooling_output_shape does).
  size_t first_out = c.num_args;
  int64_t out_sizes[4];
  memcpy(out_sizes, s->sizes, sizeof(out_sizes));
  for (int d = 0; d < 2; ++d) {
    int64_t in = s->sizes[s->rank - 2 + d];
    int64_t span = s->dilation[d] * (s->kernel[d] - 1) + 1;
    int64_t numerator = in + 2 * s->padding[d] - span +
                        (s->ceil_mode ? s->stride[d] - 1 : 0);
    int64_t stride = s->stride[d] > 0 ? s->stride[d] : 1;  // 0: an error
    int64_t size = (numerator >= 0 ? numerator / stride : -1) + 1;
    if (s->ceil_mode && (size - 1) * stride >= in + s->padding[d]) {
      --size;
    }
    out_sizes[s->rank - 2 + d] = size > 0 ? size : 1;
  }
  bool nhwc = s->layout == ETR_DIFF_CHANNELS_LAST && s->rank == 4;
  int64_t spare = etr_tensor_numel(self) + 64;
  for (int k = 0; k < (is_max ? 2 : 1); ++k) {
    etr_scalar_type_t dtype = k == 0 ? s->dtype : ETR_LONG;
    if (nhwc) {
      etr_diff_out(&c, dtype, 4, out_sizes, ETR_DIFF_CHANNELS_LAST, 0);
    } else if (s->presized != 0) {
      int64_t sizes[4];
      memcpy(sizes, out_sizes, sizeof(sizes));
      sizes[s->rank - 2] += s->presized == 2 ? 1 : 0;
      etr_diff_out(&c, dtype, s->rank, sizes, 0, 0);
    } else {
      etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, 0, spare);
    }
  }
  if (is_max) {
    size_t outs[2] = {first_out, first_out + 1};
    etr_diff_out_list(&c, 2, outs);
  } else {
    etr_diff_return(&c, first_out);
  }
  c.dtype = s->dtype;
  // Planted patterns other than -inf are exact for averages too (the sign
  // of a zero average is checked).
  bool exact_data = s->pattern != PATTERN_NONE &&
                    s->pattern != PATTERN_NEGATIVE_INF && !s->nan_heavy;
  if (is_max || s->fill == ETR_FILL_EXACT_INT || exact_data) {
    etr_diff_tolerance_exact(&c);
  } else {
    int64_t k = s->kernel[0] * s->kernel[1];
    etr_diff_tolerance_bound(
        &c, etr_diff_accumulation_bound(ETR_FLOAT, k, max_abs_of(s->fill), 1),
        0x1p-23);
  }
  return etr_diff_run(&c);
}

static int run_adaptive(etr_scalar_type_t dtype, const int64_t *sizes,
                        etr_diff_layout_t layout, etr_diff_fill_t fill,
                        int64_t out_h, int64_t out_w, uint64_t seed) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::_adaptive_avg_pool2d.out", seed,
                 "[%lld %lld %lld %lld] -> %lldx%lld", (long long)sizes[0],
                 (long long)sizes[1], (long long)sizes[2],
                 (long long)sizes[3], (long long)out_h, (long long)out_w);
  etr_tensor_t *self = etr_diff_input(&c, dtype, 4, sizes, layout, fill);
  etr_diff_arg(&c, tt_ev_int_list(2, (const int64_t[]){out_h, out_w}));
  if (layout == ETR_DIFF_CHANNELS_LAST) {
    int64_t out_sizes[4] = {sizes[0], sizes[1], out_h, out_w};
    etr_diff_out(&c, dtype, 4, out_sizes, ETR_DIFF_CHANNELS_LAST, 0);
  } else {
    etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, 0,
                 etr_tensor_numel(self) + 8);
  }
  etr_diff_return(&c, 2);
  if (fill == ETR_FILL_EXACT_INT) {
    etr_diff_tolerance_exact(&c);
  } else {
    int64_t k = (sizes[2] / out_h + 1) * (sizes[3] / out_w + 1);
    etr_diff_tolerance_bound(
        &c, etr_diff_accumulation_bound(ETR_FLOAT, k, max_abs_of(fill), 1),
        0x1p-23);
  }
  return etr_diff_run(&c);
}

static const char *const kOps[] = {"aten::max_pool2d_with_indices.out",
                                   "aten::avg_pool2d.out"};

// The window shapes, strides and paddings swept.
typedef struct window_case {
  int64_t kernel[2];
  int64_t stride[2];
  int64_t padding[2];
  int64_t dilation[2];
} window_case_t;

static const window_case_t kWindows[] = {
    {{2, 2}, {2, 2}, {0, 0}, {1, 1}}, {{3, 3}, {2, 2}, {1, 1}, {1, 1}},
    {{3, 3}, {1, 1}, {1, 1}, {1, 1}}, {{2, 2}, {1, 1}, {0, 0}, {1, 1}},
    {{1, 3}, {1, 3}, {0, 1}, {1, 1}}, {{3, 2}, {2, 1}, {1, 0}, {2, 2}},
    {{1, 1}, {1, 1}, {0, 0}, {1, 1}},
};

TT_TEST(diff_pool, windows_and_widths) {
  int failures = 0;
  uint64_t seed = 1;
  // Input widths giving output widths around the 8/16-lane edges.
  static const int64_t kWidths[] = {1, 2, 7, 15, 16, 17, 33, 34, 35, 67};
  static const etr_diff_fill_t kFills[] = {ETR_FILL_RANDOM, ETR_FILL_SPECIAL,
                                           ETR_FILL_EXACT_INT};
  for (size_t op = 0; op < 2; ++op) {
    for (size_t w = 0; w < sizeof(kWindows) / sizeof(kWindows[0]); ++w) {
      for (size_t width = 0; width < sizeof(kWidths) / sizeof(kWidths[0]);
           ++width) {
        for (int ceil = 0; ceil < 2; ++ceil) {
          const window_case_t *win = &kWindows[w];
          pool_spec_t s = {kOps[op], ETR_FLOAT, 4, {2, 3, 6, kWidths[width]},
                           0, kFills[(width + (size_t)ceil) % 3],
                           {win->kernel[0], win->kernel[1]},
                           {win->stride[0], win->stride[1]},
                           {win->padding[0], win->padding[1]},
                           {op == 0 ? win->dilation[0] : 1,
                            op == 0 ? win->dilation[1] : 1},
                           ceil == 1, width % 2 == 0,
                           (op == 1 && w == 1 && ceil == 1) ? 5 : 0, false,
                           PATTERN_NONE};
          failures += run_pool(&s, seed++);
        }
      }
    }
  }
  cr_assert_eq(failures, 0, "%d pooling cases disagree", failures);
  cr_assert_gt(etr_diff_stats()->specialized, 0);
}

// The 2x2 stride-2 row kernels (pool2x2_<isa>.c): every output width
// from 1 to 35 (the 8- and 16-lane tails, and 32 + 1..3), even and odd
// input widths (the odd column unused, or a ceil_mode border output), odd
// heights, divisor_override, and planted data: NaN-heavy, -inf-heavy,
// all -0.0, ties, and sums that overflow fp32 (the driver's double redo).
TT_TEST(diff_pool, two_by_two_stride_two) {
  int failures = 0;
  uint64_t seed = 20000;
  for (size_t op = 0; op < 2; ++op) {
    for (int64_t out_width = 1; out_width <= 35; ++out_width) {
      for (int odd = 0; odd < 2; ++odd) {
        pattern_t pattern = (pattern_t)((out_width + odd) % 5);
        pool_spec_t s = {kOps[op], ETR_FLOAT, 4,
                         {1, 3, 5 + 2 * odd, 2 * out_width + odd}, 0,
                         out_width % 3 == 0 ? ETR_FILL_SPECIAL
                                            : ETR_FILL_RANDOM,
                         {2, 2}, {2, 2}, {0, 0}, {1, 1},
                         odd == 1 && out_width % 2 == 0, out_width % 2 == 1,
                         op == 1 && out_width % 4 == 3 ? 3 : 0,
                         out_width % 7 == 0, pattern};
        failures += run_pool(&s, seed++);
      }
    }
  }
  cr_assert_eq(failures, 0, "%d 2x2 pooling cases disagree", failures);
}

// The whole-tensor 2x2 stride-2 max (the planes kernels: rows of more than
// 8 outputs in one loop of unmasked 16-output blocks plus a masked tail,
// rows of up to 8 two to a vector): many planes, so rows follow rows
// across planes; plane sizes whose H * W falls on and beside the vector
// edges; odd H and W (the unused last row and column) and ceil_mode (the
// border outputs the driver adds); each planted pattern, NaN-heavy data,
// and the CNN's shape. Outs empty (resized by the reference's dry run) or
// already of the result's shape (variants 7..9: the op skips the dry run
// for floor mode, and must not for ceil_mode on odd sizes), 4-D and 3-D,
// or one row too tall (variant 10: the dry run must shrink them); the
// average too for those.
static const int64_t kWholeTensorShapes[][4] = {
    {1, 16, 32, 32}, {2, 17, 33, 32}, {1, 5, 4, 64},  {1, 3, 8, 96},
    {1, 7, 9, 97},   {3, 2, 6, 130},  {1, 9, 2, 16},  {1, 33, 16, 16},
    {1, 4, 5, 31},   {2, 3, 7, 66},   {1, 1, 2, 34},  {1, 6, 3, 18},
};

TT_TEST(diff_pool, two_by_two_stride_two_whole_tensor) {
  int failures = 0;
  uint64_t seed = 30000;
  size_t count = sizeof(kWholeTensorShapes) / sizeof(kWholeTensorShapes[0]);
  for (size_t i = 0; i < count; ++i) {
    for (int variant = 0; variant < 11; ++variant) {
      const int64_t *sizes = kWholeTensorShapes[i];
      bool three_d = variant == 8 && sizes[0] == 1;
      pool_spec_t s = {kOps[0], ETR_FLOAT, three_d ? 3 : 4,
                       {sizes[0], sizes[1], sizes[2], sizes[3]}, 0,
                       variant == 5 ? ETR_FILL_SPECIAL : ETR_FILL_RANDOM,
                       {2, 2}, {2, 2}, {0, 0}, {1, 1},
                       variant == 6 || variant == 9 ||
                           (i % 2 == 1 && variant == 0),
                       true, 0, variant == 0 || variant == 7,
                       variant >= 1 && variant <= 4 ? (pattern_t)variant
                       : variant == 8               ? PATTERN_TIES
                                                    : PATTERN_NONE,
                       variant == 10 ? 2 : variant >= 7 ? 1 : 0};
      if (three_d) {
        memmove(s.sizes, s.sizes + 1, 3 * sizeof(int64_t));
      }
      failures += run_pool(&s, seed++);
      if (variant >= 7) {
        // avg_pool2d skips its dry run alike (divisor_override too).
        s.op = kOps[1];
        s.divisor = variant == 9 ? 3 : 0;
        failures += run_pool(&s, seed++);
      }
    }
  }
  cr_assert_eq(failures, 0, "%d whole-tensor 2x2 cases disagree", failures);
}

// etr_pool_max2d_values_only (the fused max pool whose indices nobody
// reads; ops_optimized/fuse/fuse_fold.c) writes the same values as the
// reference's max_pool2d_with_indices, bit for bit (NaN signs included),
// on every ISA, for the whole-tensor shapes above and a padded 3x3/2 and
// channels-last case (the general drivers), with planted data.
static int values_only_case(const int64_t *sizes, bool channels_last,
                            const int64_t *window, bool ceil_mode,
                            pattern_t pattern, bool nan_heavy,
                            uint64_t seed) {
  etr_tensor_t *self = tt_tensor(ETR_FLOAT, 4, sizes, NULL);
  float *x = (float *)self->data;
  int64_t n = etr_tensor_numel(self);
  uint64_t state = seed * 0x9e3779b97f4a7c15ull + 1;
  for (int64_t i = 0; i < n; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    x[i] = (float)((int64_t)(state >> 40) % 2001 - 1000) / 500.0f;
    switch (pattern) {
      case PATTERN_NEGATIVE_ZERO: x[i] = i % 3 == 0 ? 0.0f : -0.0f; break;
      case PATTERN_NEGATIVE_INF:
        x[i] = i % 2 == 0 || i % 7 == 1 ? -INFINITY : x[i];
        break;
      case PATTERN_TIES: x[i] = (float)((i % 5) / 2); break;
      default: break;
    }
    if (nan_heavy && i % 3 == 0) {
      x[i] = i % 2 == 0 ? NAN : -NAN;
    }
  }
  if (channels_last) {
    self = tt_channels_last(self);
  }
  int64_t out_sizes[4] = {sizes[0], sizes[1], 0, 0};
  for (int d = 0; d < 2; ++d) {
    int64_t k = window[0], stride = window[1], pad = window[2];
    int64_t in = sizes[2 + d];
    int64_t size = (in + 2 * pad - k + (ceil_mode ? stride - 1 : 0)) /
                       stride + 1;
    if (ceil_mode && (size - 1) * stride >= in + pad) {
      --size;
    }
    out_sizes[2 + d] = size;
  }
  static const uint8_t kChannelsLast[4] = {0, 2, 3, 1};
  static const uint8_t kContiguous[4] = {0, 1, 2, 3};
  const uint8_t *order = channels_last ? kChannelsLast : kContiguous;
  etr_tensor_t *outs[4];
  for (int k = 0; k < 4; ++k) {
    outs[k] = tt_out_dim_order(k % 2 == 0 ? ETR_FLOAT : ETR_LONG, 4,
                               out_sizes, order);
  }
  int64_t pair[4][2] = {{window[0], window[0]}, {window[1], window[1]},
                        {window[2], window[2]}, {1, 1}};
  etr_evalue_t *args[2][9];
  for (int r = 0; r < 2; ++r) {
    args[r][0] = tt_ev_tensor(self);
    for (int k = 0; k < 4; ++k) {
      args[r][1 + k] = tt_ev_int_list(2, pair[k]);
    }
    args[r][5] = tt_ev_bool(ceil_mode);
    args[r][6] = tt_ev_tensor(outs[2 * r]);
    args[r][7] = tt_ev_tensor(outs[2 * r + 1]);
    args[r][8] = tt_ev_tensor_list(2, &outs[2 * r]);
  }
  etr_diag_t diag;
  memset(&diag, 0, sizeof(diag));
  etr_kernel_context_t ctx;
  memset(&ctx, 0, sizeof(ctx));
  ctx.diag = &diag;
  ctx.op_name = "aten::max_pool2d_with_indices.out";
  if (etr_ref_max_pool2d_with_indices_out(&ctx, args[0], 9) != ETR_OK) {
    return 1;
  }
  int failures = 0;
  const float *expected = (const float *)outs[0]->data;
  int64_t m = etr_tensor_numel(outs[0]);
  for (int isa = 0; isa < ETR_NUM_ISAS; ++isa) {
    if (!etr_isa_available((etr_isa_t)isa)) {
      continue;
    }
    etr_isa_force((etr_isa_t)isa);
    memset(outs[2]->data, 0x55, (size_t)m * sizeof(float));
    etr_error_t status = etr_pool_max2d_values_only(&ctx, args[1], 9);
    const float *got = (const float *)outs[2]->data;
    for (int64_t i = 0; i < m && status == ETR_OK; ++i) {
      // NaN bits too: NaN and -NaN are planted, and the winning tap's
      // sign must come through.
      if (memcmp(&expected[i], &got[i], sizeof(float)) != 0) {
        cr_log_error("values_only [%lld %lld %lld %lld]%s isa %s: "
                     "output %lld is %a, reference %a",
                     (long long)sizes[0], (long long)sizes[1],
                     (long long)sizes[2], (long long)sizes[3],
                     channels_last ? " channels-last" : "",
                     etr_isa_name((etr_isa_t)isa), (long long)i,
                     (double)got[i], (double)expected[i]);
        ++failures;
        break;
      }
    }
    failures += status != ETR_OK;
  }
  etr_isa_reset();
  return failures;
}

TT_TEST(diff_pool, max_values_only) {
  int failures = 0;
  uint64_t seed = 40000;
  static const int64_t kTwoByTwo[3] = {2, 2, 0};
  static const int64_t kPadded[3] = {3, 2, 1};
  size_t count = sizeof(kWholeTensorShapes) / sizeof(kWholeTensorShapes[0]);
  for (size_t i = 0; i < count; ++i) {
    for (int variant = 0; variant < 6; ++variant) {
      pattern_t pattern = variant >= 1 && variant <= 4 ? (pattern_t)variant
                                                       : PATTERN_NONE;
      if (pattern == PATTERN_HUGE) {
        pattern = PATTERN_NONE;
      }
      failures += values_only_case(kWholeTensorShapes[i], false, kTwoByTwo,
                                   variant == 5, pattern, variant == 0,
                                   seed++);
    }
    failures += values_only_case(kWholeTensorShapes[i], i % 2 == 0,
                                 kPadded, i % 3 == 0, PATTERN_NONE, true,
                                 seed++);
  }
  cr_assert_eq(failures, 0, "%d values-only max pool cases disagree",
               failures);
}

TT_TEST(diff_pool, layouts_and_models) {
  int failures = 0;
  uint64_t seed = 10000;
  int64_t channels[16];
  size_t count = etr_diff_edge_sizes(16, channels);
  for (size_t op = 0; op < 2; ++op) {
    // Channels-last: channel counts over the lane edges, every window.
    for (size_t k = 0; k < count; ++k) {
      int64_t c = channels[k] > 0 ? channels[k] : 1;
      if (c > 200) {
        c = 200;
      }
      for (size_t w = 0; w < sizeof(kWindows) / sizeof(kWindows[0]); ++w) {
        const window_case_t *win = &kWindows[w];
        pool_spec_t s = {kOps[op], ETR_FLOAT, 4, {2, c, 5, 7},
                         ETR_DIFF_CHANNELS_LAST,
                         w % 2 ? ETR_FILL_SPECIAL : ETR_FILL_EXACT_INT,
                         {win->kernel[0], win->kernel[1]},
                         {win->stride[0], win->stride[1]},
                         {win->padding[0], win->padding[1]},
                         {op == 0 ? win->dilation[0] : 1,
                          op == 0 ? win->dilation[1] : 1},
                         w % 3 == 0, w % 2 == 1, 0, false, PATTERN_NONE};
        failures += run_pool(&s, seed++);
      }
    }
    // The CNN's pools and a 3x3/2 padded one, each layout and dtype.
    static const etr_scalar_type_t kDtypes[] = {ETR_FLOAT, ETR_HALF,
                                                ETR_DOUBLE};
    for (size_t t = 0; t < 3; ++t) {
      for (int layout = 0; layout < 3; ++layout) {
        pool_spec_t cnn = {kOps[op], kDtypes[t], 4, {1, 16, 32, 32},
                           (etr_diff_layout_t)layout, ETR_FILL_RANDOM,
                           {2, 2}, {2, 2}, {0, 0}, {1, 1}, false, true, 0,
                           false, PATTERN_NONE};
        failures += run_pool(&cnn, seed++);
        pool_spec_t padded = {kOps[op], kDtypes[t], 3, {4, 17, 19},
                              (etr_diff_layout_t)layout, ETR_FILL_SPECIAL,
                              {3, 3}, {2, 2}, {1, 1}, {1, 1}, true, false, 0,
                              false, PATTERN_NONE};
        failures += run_pool(&padded, seed++);
      }
    }
    // Windows with several NaNs (ATen keeps the last), windows that miss
    // the input (kernel 2, dilation 3, padding 1 on 2x2: -inf and the
    // first tap's index), each layout.
    for (int layout = 0; layout < 3; layout += 2) {
      pool_spec_t nans = {kOps[op], ETR_FLOAT, 4, {2, 19, 9, 37},
                          (etr_diff_layout_t)layout, ETR_FILL_RANDOM,
                          {3, 3}, {1, 2}, {1, 1}, {1, 1}, true, true, 0,
                          true, PATTERN_NONE};
      failures += run_pool(&nans, seed++);
      if (op == 0) {
        pool_spec_t miss = {kOps[op], ETR_FLOAT, 4, {1, 3, 2, 2},
                            (etr_diff_layout_t)layout, ETR_FILL_RANDOM,
                            {2, 2}, {1, 1}, {1, 1}, {3, 3}, false, true, 0,
                            false, PATTERN_NONE};
        failures += run_pool(&miss, seed++);
      }
    }
    // Errors: padding above half the kernel; a zero stride.
    pool_spec_t bad_padding = {kOps[op], ETR_FLOAT, 4, {1, 2, 5, 5}, 0,
                               ETR_FILL_RANDOM, {2, 2}, {1, 1}, {2, 2},
                               {1, 1}, false, true, 0, false, PATTERN_NONE};
    failures += run_pool(&bad_padding, seed++);
    pool_spec_t bad_stride = {kOps[op], ETR_FLOAT, 4, {1, 2, 5, 5}, 0,
                              ETR_FILL_RANDOM, {2, 2}, {0, 1}, {0, 0},
                              {1, 1}, false, true, 0, false, PATTERN_NONE};
    failures += run_pool(&bad_stride, seed++);
  }
  // Adaptive average: global (MobileNet's head), evenly dividing, uneven
  // (fallback), each layout.
  static const int64_t kOutputs[][2] = {{1, 1}, {2, 2}, {4, 1}, {3, 5}};
  int64_t image[4] = {2, 21, 8, 12};
  for (size_t o = 0; o < 4; ++o) {
    for (int layout = 0; layout < 3; ++layout) {
      for (int exact = 0; exact < 2; ++exact) {
        failures += run_adaptive(
            ETR_FLOAT, image, (etr_diff_layout_t)layout,
            exact ? ETR_FILL_EXACT_INT : ETR_FILL_RANDOM, kOutputs[o][0],
            kOutputs[o][1], seed++);
      }
    }
  }
  int64_t head[4] = {1, 1280, 7, 7};
  failures += run_adaptive(ETR_FLOAT, head, 0, ETR_FILL_RANDOM, 1, 1, seed++);
  failures += run_adaptive(ETR_FLOAT, head, ETR_DIFF_CHANNELS_LAST,
                           ETR_FILL_RANDOM, 1, 1, seed++);
  failures += run_adaptive(ETR_HALF, image, 0, ETR_FILL_RANDOM, 1, 1, seed++);
  cr_assert_eq(failures, 0, "%d pooling cases disagree", failures);
}

// avg_pool1d and adaptive_avg_pool1d: the 2-D drivers over a [.., 1, L]
// view. Lengths giving output lengths over the 8/16-lane edges, every
// window of kWindows read along L, ceil_mode and count_include_pad both
// ways, 2-D and 3-D inputs, non-contiguous and Double (fallback), special
// and integer data, argument errors.
static int run_pool1d(etr_scalar_type_t dtype, int32_t rank,
                      const int64_t *sizes, etr_diff_layout_t layout,
                      etr_diff_fill_t fill, int64_t kernel, int64_t stride,
                      int64_t padding, bool ceil_mode, bool include_pad,
                      uint64_t seed) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::avg_pool1d.out", seed,
                 "rank %d L %lld k %lld s %lld p %lld%s%s", (int)rank,
                 (long long)sizes[rank - 1], (long long)kernel,
                 (long long)stride, (long long)padding,
                 ceil_mode ? " ceil" : "", include_pad ? " include_pad" : "");
  etr_tensor_t *self = etr_diff_input(&c, dtype, rank, sizes, layout, fill);
  etr_diff_arg(&c, tt_ev_int_list(1, &kernel));
  etr_diff_arg(&c, tt_ev_int_list(1, &stride));
  etr_diff_arg(&c, tt_ev_int_list(1, &padding));
  etr_diff_arg(&c, tt_ev_bool(ceil_mode));
  etr_diff_arg(&c, tt_ev_bool(include_pad));
  etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, 0,
               etr_tensor_numel(self) + 64);
  etr_diff_return(&c, 6);
  if (fill == ETR_FILL_EXACT_INT) {
    etr_diff_tolerance_exact(&c);
  } else {
    etr_diff_tolerance_bound(
        &c, etr_diff_accumulation_bound(ETR_FLOAT, kernel, max_abs_of(fill), 1),
        0x1p-23);
  }
  return etr_diff_run(&c);
}

static int run_adaptive1d(etr_scalar_type_t dtype, int32_t rank,
                          const int64_t *sizes, etr_diff_layout_t layout,
                          etr_diff_fill_t fill, int64_t output_size,
                          uint64_t seed) {
  etr_diff_case_t c;
  etr_diff_begin(&c, "aten::adaptive_avg_pool1d.out", seed,
                 "rank %d L %lld -> %lld", (int)rank,
                 (long long)sizes[rank - 1], (long long)output_size);
  etr_tensor_t *self = etr_diff_input(&c, dtype, rank, sizes, layout, fill);
  etr_diff_arg(&c, tt_ev_int_list(1, &output_size));
  etr_diff_out(&c, dtype, 1, (const int64_t[]){0}, 0,
               etr_tensor_numel(self) + 64);
  etr_diff_return(&c, 2);
  if (fill == ETR_FILL_EXACT_INT) {
    etr_diff_tolerance_exact(&c);
  } else {
    int64_t k = output_size > 0 ? sizes[rank - 1] / output_size + 1 : 1;
    etr_diff_tolerance_bound(
        &c, etr_diff_accumulation_bound(ETR_FLOAT, k, max_abs_of(fill), 1),
        0x1p-23);
  }
  return etr_diff_run(&c);
}

TT_TEST(diff_pool, pool1d) {
  int failures = 0;
  uint64_t seed = 20000;
  static const int64_t kLengths[] = {1, 2, 7, 15, 16, 17, 33, 34, 35, 67};
  static const etr_diff_fill_t kFills[] = {ETR_FILL_RANDOM, ETR_FILL_SPECIAL,
                                           ETR_FILL_EXACT_INT};
  for (size_t w = 0; w < sizeof(kWindows) / sizeof(kWindows[0]); ++w) {
    for (size_t l = 0; l < sizeof(kLengths) / sizeof(kLengths[0]); ++l) {
      for (int ceil = 0; ceil < 2; ++ceil) {
        const window_case_t *win = &kWindows[w];
        int32_t rank = (l + w) % 2 ? 3 : 2;
        int64_t sizes[3] = {2, 3, kLengths[l]};
        if (rank == 2) {
          sizes[0] = 5;
          sizes[1] = kLengths[l];
        }
        failures += run_pool1d(ETR_FLOAT, rank, sizes, 0,
                               kFills[(l + (size_t)ceil) % 3], win->kernel[1],
                               win->stride[1], win->padding[1], ceil == 1,
                               l % 2 == 0, seed++);
      }
    }
  }
  // Layouts and dtypes the drivers leave to the reference; errors (padding
  // above half the kernel, a zero stride, two kernel sizes).
  int64_t sizes[3] = {2, 16, 40};
  failures += run_pool1d(ETR_FLOAT, 3, sizes, ETR_DIFF_NONCONTIGUOUS,
                         ETR_FILL_RANDOM, 3, 2, 1, false, true, seed++);
  failures += run_pool1d(ETR_DOUBLE, 3, sizes, 0, ETR_FILL_RANDOM, 3, 2, 1,
                         true, false, seed++);
  failures += run_pool1d(ETR_FLOAT, 3, sizes, 0, ETR_FILL_RANDOM, 2, 1, 2,
                         false, true, seed++);
  failures += run_pool1d(ETR_FLOAT, 3, sizes, 0, ETR_FILL_RANDOM, 2, 0, 0,
                         false, true, seed++);
  // Adaptive: global, evenly dividing, uneven (fallback), empty output.
  static const int64_t kOutputs[] = {1, 2, 5, 8, 7, 0};
  for (size_t o = 0; o < sizeof(kOutputs) / sizeof(kOutputs[0]); ++o) {
    for (int exact = 0; exact < 2; ++exact) {
      failures += run_adaptive1d(
          ETR_FLOAT, 3, sizes, 0, exact ? ETR_FILL_EXACT_INT : ETR_FILL_RANDOM,
          kOutputs[o], seed++);
      failures += run_adaptive1d(ETR_FLOAT, 2, sizes + 1,
                                 exact ? ETR_DIFF_NONCONTIGUOUS : 0,
                                 ETR_FILL_SPECIAL, kOutputs[o], seed++);
    }
  }
  failures += run_adaptive1d(ETR_HALF, 3, sizes, 0, ETR_FILL_RANDOM, 4,
                             seed++);
  failures += run_adaptive1d(ETR_FLOAT, 3, sizes, 0, ETR_FILL_RANDOM, -1,
                             seed++);
  cr_assert_eq(failures, 0, "%d 1-D pooling cases disagree", failures);
}
