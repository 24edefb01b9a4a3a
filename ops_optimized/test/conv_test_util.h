// SPDX-License-Identifier: Apache-2.0
//
// The convolution differential tests' case runner (diff_conv_test.c,
// diff_conv_depthwise_kernels_test.c, diff_conv_direct_test.c): one
// aten::convolution.out case against the reference kernel on every ISA of
// this machine (diff.h), with the tolerances below.
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
#ifndef ETREF_OPS_OPTIMIZED_TEST_CONV_TEST_UTIL_H_
#define ETREF_OPS_OPTIMIZED_TEST_CONV_TEST_UTIL_H_

#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/test/diff.h"

static uint64_t g_seed = 5000;

// When set, run_conv puts NaN, +inf and -inf into a contiguous Float
// input filled with exact integers: sums then stay exact in any order
// (inf + finite = inf, inf - inf = NaN, NaN spreads), so the special
// values are compared bit for bit through the direct kernels' 3x3 sums.
static bool g_poke_specials = false;

// When set, run_conv puts one +inf into a Float weight filled with exact
// integers: each output then has at most one inf product (a NaN where it
// meets a zero, the padding's included), whatever the summation order.
static bool g_poke_inf_weight = false;

// output_padding of the transposed cases (both spatial dims).
static int64_t g_output_padding = 0;

typedef struct conv_case {
  int64_t n, c, h, w;   // input (h = 0: a 1-D convolution of width w)
  int64_t oc, kh, kw;   // weight
  int64_t stride, pad, dilation, groups;
  bool bias;
} conv_case_t;

static inline int64_t out_size(int64_t in, int64_t k, int64_t stride,
                               int64_t pad, int64_t dilation) {
  return (in + 2 * pad - dilation * (k - 1) - 1) / stride + 1;
}

// When nonzero, the stride along H of a 2-D case instead of p->stride.
static int64_t g_stride_h = 0;

static inline int run_conv(const conv_case_t *p, etr_scalar_type_t dtype,
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
  etr_tensor_t *weight = etr_diff_input(
      &c, dtype, dim, w_sizes,
      layout == ETR_DIFF_NONCONTIGUOUS ? layout : ETR_DIFF_CONTIGUOUS,
      weight_fill);
  if (g_poke_inf_weight && dtype == ETR_FLOAT &&
      weight_fill == ETR_FILL_EXACT_INT && etr_tensor_is_contiguous(weight)) {
    ((float *)weight->data)[etr_tensor_numel(weight) / 2] = INFINITY;
  }
  if (p->bias) {
    etr_diff_input(&c, dtype, 1, (const int64_t[]){p->oc},
                   ETR_DIFF_CONTIGUOUS, weight_fill);
  } else {
    etr_diff_arg(&c, tt_ev_none());
  }
  c.layout = layout;  // the input's, for the coverage records
  c.dtype = dtype;
  int64_t spatial = one_d ? 1 : 2;
  int64_t stride_h = g_stride_h != 0 ? g_stride_h : p->stride;
  int64_t s[2] = {one_d ? p->stride : stride_h, p->stride};
  int64_t pad[2] = {p->pad, p->pad};
  int64_t d[2] = {p->dilation, p->dilation};
  int64_t zero[2] = {0, 0};
  int64_t out_pad[2] = {g_output_padding, g_output_padding};
  etr_diff_arg(&c, tt_ev_int_list((size_t)spatial, s));
  etr_diff_arg(&c, tt_ev_int_list((size_t)spatial, pad));
  etr_diff_arg(&c, tt_ev_int_list((size_t)spatial, d));
  etr_diff_arg(&c, tt_ev_bool(transposed));
  etr_diff_arg(&c, tt_ev_int_list((size_t)spatial,
                                  transposed ? out_pad : zero));
  etr_diff_arg(&c, tt_ev_int(p->groups));
  int64_t oh = one_d ? 1 : out_size(p->h, p->kh, stride_h, p->pad,
                                    p->dilation);
  int64_t ow = out_size(p->w, p->kw, p->stride, p->pad, p->dilation);
  int64_t o_sizes[4] = {p->n, p->oc, one_d ? ow : oh, ow};
  if (transposed) {  // (in - 1) * stride - 2 * pad + dilation * (k - 1)
                     // + output_padding + 1
    ow = (p->w - 1) * p->stride - 2 * p->pad + p->dilation * (p->kw - 1) +
         g_output_padding + 1;
    o_sizes[one_d ? 2 : 3] = ow;
    if (!one_d) {
      o_sizes[2] = (p->h - 1) * p->stride - 2 * p->pad +
                   p->dilation * (p->kh - 1) + g_output_padding + 1;
    }
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


// The sweeps' usual pair: random data within the bound, then exact data
// with NaN, inf and -0.0 poked into the input, bit for bit (contiguous
// Float).
static inline int run_conv_random_and_specials(const conv_case_t *p) {
  int failures = run_conv(p, ETR_FLOAT, ETR_DIFF_CONTIGUOUS, ETR_FILL_RANDOM,
                          ETR_FILL_RANDOM, false);
  g_poke_specials = true;
  failures += run_conv(p, ETR_FLOAT, ETR_DIFF_CONTIGUOUS, ETR_FILL_EXACT_INT,
                       ETR_FILL_EXACT_INT, false);
  g_poke_specials = false;
  return failures;
}

// The geometry op_convolution.c builds for one group of a contiguous
// Float case (NCHW input, dense weight).
static inline etr_conv2d_geometry_t conv_case_geometry(const conv_case_t *p) {
  int64_t cg = p->c / p->groups;
  return (etr_conv2d_geometry_t){
      .channels = cg,
      .in_h = p->h,
      .in_w = p->w,
      .out_h = out_size(p->h, p->kh, p->stride, p->pad, p->dilation),
      .out_w = out_size(p->w, p->kw, p->stride, p->pad, p->dilation),
      .kernel_h = p->kh,
      .kernel_w = p->kw,
      .stride_h = p->stride,
      .stride_w = p->stride,
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

// A kernel's test of whether it takes a geometry (NULL where this build
// has no such kernel).
typedef bool (*conv_takes_fn)(const etr_conv2d_geometry_t *g);

// One case: random floats within the bound, exact integers with NaN,
// +-inf and -0.0 in the input, with `layouts` random non-contiguous and
// channels-last inputs too, and exact integers with one inf weight.
// Returns the number of failed runs.
static inline int run_taken_case(const conv_case_t *p, bool layouts) {
  int failures = run_conv_random_and_specials(p);
  if (layouts) {
    failures += run_conv(p, ETR_FLOAT, ETR_DIFF_NONCONTIGUOUS,
                         ETR_FILL_RANDOM, ETR_FILL_RANDOM, false);
    failures += run_conv(p, ETR_FLOAT, ETR_DIFF_CHANNELS_LAST,
                         ETR_FILL_RANDOM, ETR_FILL_RANDOM, false);
  }
  g_poke_inf_weight = true;
  failures += run_conv(p, ETR_FLOAT, ETR_DIFF_CONTIGUOUS, ETR_FILL_EXACT_INT,
                       ETR_FILL_EXACT_INT, false);
  g_poke_inf_weight = false;
  return failures;
}

// Each case (run_taken_case, without the other layouts) after asserting
// that `takes` takes it (so the cases cannot drift onto another path).
// Returns the number of failed runs.
static inline int run_taken_cases(const conv_case_t *cases, size_t count,
                                  conv_takes_fn takes) {
  int failures = 0;
  for (size_t i = 0; i < count; ++i) {
    const conv_case_t *p = &cases[i];
    if (takes != NULL) {
      etr_conv2d_geometry_t g = conv_case_geometry(p);
      cr_assert(takes(&g),
                "case %zu: the kernel does not take [%lld,%lld,%lld,%lld] "
                "k %lldx%lld s%lld p%lld d%lld g%lld",
                i, (long long)p->n, (long long)p->c, (long long)p->h,
                (long long)p->w, (long long)p->kh, (long long)p->kw,
                (long long)p->stride, (long long)p->pad,
                (long long)p->dilation, (long long)p->groups);
    }
    failures += run_taken_case(p, false);
  }
  return failures;
}

// Asserts that `takes` (NULL: nothing to check) declines every case.
static inline void check_declined(const conv_case_t *cases, size_t count,
                                  conv_takes_fn takes) {
  for (size_t i = 0; i < count && takes != NULL; ++i) {
    etr_conv2d_geometry_t g = conv_case_geometry(&cases[i]);
    cr_assert(!takes(&g), "case %zu is taken", i);
  }
}

// The direct kernel tests (diff_depthwise_blocked_test.c,
// diff_depthwise_rows_test.c, diff_conv_stem_avx2_test.c) call a kernel
// on buffers of their own rather than through the op; the helpers below
// are theirs.

// The geometry of `channels` NCHW input planes of in_h x in_w under a
// square k x k kernel, with input rows row_gap floats further apart than
// their width, input planes a further plane_gap apart and weight planes
// (one per out channel) a further weight_gap apart: the gaps let a test
// catch a kernel that assumes dense strides.
static inline etr_conv2d_geometry_t conv_test_gapped_geometry(
    int64_t channels, int64_t in_h, int64_t in_w, int64_t k, int64_t stride,
    int64_t pad, int64_t dilation, int64_t row_gap, int64_t plane_gap,
    int64_t weight_gap) {
  return (etr_conv2d_geometry_t){
      .channels = channels,
      .in_h = in_h,
      .in_w = in_w,
      .out_h = out_size(in_h, k, stride, pad, dilation),
      .out_w = out_size(in_w, k, stride, pad, dilation),
      .kernel_h = k,
      .kernel_w = k,
      .stride_h = stride,
      .stride_w = stride,
      .pad_h = pad,
      .pad_w = pad,
      .dilation_h = dilation,
      .dilation_w = dilation,
      .in_stride_c = in_h * (in_w + row_gap) + plane_gap,
      .in_stride_h = in_w + row_gap,
      .in_stride_w = 1,
      .w_stride_oc = channels * k * k + weight_gap,
      .w_stride_c = k * k,
      .w_stride_h = k,
      .w_stride_w = 1};
}

// Fills x[0, n) from `seed` with multiples of 1/8 in [-2, 2) (exact: the
// products are multiples of 1/64 of at most 4 in magnitude, so any sum of
// up to 65535 of them and a bias is exact in fp32, in any order) or with
// random floats in [-1, 1).
static inline void conv_test_fill(float *x, int64_t n, bool exact,
                                  uint32_t seed) {
  uint32_t s = seed * 2654435761u + 1;
  for (int64_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    x[i] = exact ? (float)((int32_t)(s >> 27) - 16) / 8.0f
                 : (float)(s >> 8) / 8388608.0f - 1.0f;
  }
}

// What the SIMD depthwise kernels compute (conv.h): each output one
// fused multiply-add chain over its in-bounds taps in (kh, kw) order from
// +0.0, then + bias; `a->out` is written at its strides, nothing else.
// (The scalar kernel rounds each product, so it matches them bit for bit
// on exact data only; against this they must match on random data too,
// which catches a kernel that reorders a chain.)
static inline void conv_test_fma_chain(const etr_depthwise_args_t *a) {
  const etr_conv2d_geometry_t *g = a->geometry;
  for (int64_t oc = 0; oc < a->channels; ++oc) {
    const float *in = a->input + oc / a->multiplier * g->in_stride_c;
    const float *w = a->weight + oc * g->w_stride_oc;
    for (int64_t oh = 0; oh < g->out_h; ++oh) {
      for (int64_t ow = 0; ow < g->out_w; ++ow) {
        float sum = 0.0f;
        for (int64_t kh = 0; kh < g->kernel_h; ++kh) {
          const int64_t ih = oh * g->stride_h - g->pad_h + kh * g->dilation_h;
          for (int64_t kw = 0; kw < g->kernel_w; ++kw) {
            const int64_t iw =
                ow * g->stride_w - g->pad_w + kw * g->dilation_w;
            if (ih >= 0 && ih < g->in_h && iw >= 0 && iw < g->in_w) {
              sum = fmaf(w[kh * g->w_stride_h + kw * g->w_stride_w],
                         in[ih * g->in_stride_h + iw * g->in_stride_w], sum);
            }
          }
        }
        if (a->bias != NULL) {
          sum += a->bias[oc * a->bias_stride];
        }
        a->out[oc * a->out_stride_c + oh * a->out_stride_h +
               ow * a->out_stride_w] = sum;
      }
    }
  }
}

// Compares `got` with `want` bit for bit over numel floats (the out planes,
// gaps included: they must hold the same sentinel in both); with
// nan_matches_nan, any NaN matches any NaN (a kernel and its oracle need
// not agree on a NaN's payload). Logs the first 3 mismatches, each after
// the printf-style `format` naming the case. Returns the number of
// mismatches.
__attribute__((format(printf, 5, 6))) static inline int conv_test_compare_outs(
    const float *got, const float *want, int64_t numel, bool nan_matches_nan,
    const char *format, ...) {
  char where[256] = "";
  int bad = 0;
  for (int64_t e = 0; e < numel; ++e) {
    uint32_t a;
    uint32_t b;
    memcpy(&a, &got[e], sizeof a);
    memcpy(&b, &want[e], sizeof b);
    if (a == b || (nan_matches_nan && isnan(got[e]) && isnan(want[e]))) {
      continue;
    }
    if (bad == 0) {  // the case's name, once
      va_list args;
      va_start(args, format);
      vsnprintf(where, sizeof where, format, args);
      va_end(args);
    }
    if (bad++ < 3) {
      cr_log_error("%s, at %lld: %a vs %a", where, (long long)e,
                   (double)got[e], (double)want[e]);
    }
  }
  return bad;
}

// The direct kernel tests' three fused posts (conv.h, etr_conv_post_t):
// kind 0 batch norm (scale, shift) and a clamp to [-0.25, 0.75], 1 batch
// norm alone (an unbounded clamp), 2 the clamp to [-0.25, 0.5] alone;
// post_rows is the ISA's row function, which the kernels' posts match.
static inline etr_conv_post_t conv_test_post(int kind, const float *scale,
                                             const float *shift,
                                             etr_conv_post_rows_fn post_rows) {
  const float highs[] = {0.75f, INFINITY, 0.5f};
  return (etr_conv_post_t){
      .scale = kind < 2 ? scale : NULL,
      .shift = kind < 2 ? shift : NULL,
      .low = kind == 1 ? -INFINITY : -0.25f,
      .high = highs[kind],
      .rows = post_rows,
  };
}

// Applies `post` to `channels` out planes of out_h rows of out_w floats
// (planes out_stride_c apart, rows out_stride_h), row by row through
// post->rows: what a kernel that fuses the post must equal.
static inline void conv_test_apply_post(const etr_conv_post_t *post,
                                        float *planes, int64_t channels,
                                        int64_t out_h, int64_t out_w,
                                        int64_t out_stride_c,
                                        int64_t out_stride_h) {
  for (int64_t c = 0; c < channels; ++c) {  // (rows are channels)
    for (int64_t oh = 0; oh < out_h; ++oh) {
      post->rows(post, (size_t)c, planes + c * out_stride_c + oh * out_stride_h,
                 (ptrdiff_t)out_stride_c, 1, (size_t)out_w);
    }
  }
}

// A direct depthwise kernel: `args` with `post` (NULL: none).
typedef void (*conv_test_direct_fn)(const etr_depthwise_args_t *args,
                                    const etr_conv_post_t *post);

// A direct kernel test's run of `kernel` on `g` (NCHW, unit column
// stride) for `channels` out channels, `multiplier` per input plane,
// biases 2 floats apart, out rows and planes 2 and 4 floats apart beyond
// their sizes (the gaps must keep their sentinel): bit for bit against
// the scalar kernel on exact data with NaN, +-inf and -0.0 inputs (NaN
// for NaN; at the first and last pixels of the last input plane and in
// its middle), against `oracle` (the kernel's own order of sums) on
// random data, and with each of conv_test_post's posts against `oracle`
// followed by `post_rows` on random data. Returns the number of
// mismatches (logged with the geometry).
static inline int conv_test_direct(conv_test_direct_fn kernel,
                                   void (*oracle)(const etr_depthwise_args_t *),
                                   etr_conv_post_rows_fn post_rows,
                                   const etr_conv2d_geometry_t *g,
                                   int64_t channels, int64_t multiplier,
                                   uint32_t seed) {
  enum { kBiasStride = 2, kOutRowGap = 2, kOutGap = 4 };
  const float sentinel = 12345.0f;
  const int64_t planes = channels / multiplier;
  const int64_t in_numel = planes * g->in_stride_c;
  const int64_t out_stride_h = g->out_w + kOutRowGap;
  const int64_t out_stride_c = g->out_h * out_stride_h + kOutGap;
  const int64_t out_numel = channels * out_stride_c;
  float *input = malloc((size_t)in_numel * sizeof(float));
  float *weight = malloc((size_t)(channels * g->w_stride_oc) * sizeof(float));
  float *bias = malloc((size_t)(channels * kBiasStride) * sizeof(float));
  float *scale = malloc((size_t)channels * sizeof(float));
  float *shift = malloc((size_t)channels * sizeof(float));
  float *got = malloc((size_t)out_numel * sizeof(float));
  float *want = malloc((size_t)out_numel * sizeof(float));
  float *post_want = malloc((size_t)out_numel * sizeof(float));
  cr_assert(input && weight && bias && scale && shift && got && want &&
            post_want);
  etr_depthwise_args_t a = {
      .geometry = g, .input = input, .weight = weight, .bias = bias,
      .bias_stride = kBiasStride, .out = got, .out_stride_c = out_stride_c,
      .out_stride_h = out_stride_h, .out_stride_w = 1,
      .channels = channels, .multiplier = multiplier};
  etr_depthwise_args_t w = a;
  w.out = want;
  char where[128];
  snprintf(where, sizeof where,
           "%lld channels x %lld, out %lldx%lld stride %lld, in %lldx%lld",
           (long long)channels, (long long)multiplier, (long long)g->out_h,
           (long long)g->out_w, (long long)g->stride_h, (long long)g->in_h,
           (long long)g->in_w);
  int bad = 0;
  for (int exact = 1; exact >= 0; --exact) {
    conv_test_fill(input, in_numel, exact, seed);
    conv_test_fill(weight, channels * g->w_stride_oc, exact, seed + 100);
    conv_test_fill(bias, channels * kBiasStride, exact, seed + 200);
    conv_test_fill(scale, channels, false, seed + 300);
    conv_test_fill(shift, channels, false, seed + 400);
    if (exact) {
      float *last = input + (planes - 1) * g->in_stride_c;
      const int64_t end = (g->in_h - 1) * g->in_stride_h + g->in_w - 1;
      input[0] = NAN;
      last[end] = INFINITY;
      last[end / 2] = -INFINITY;
      last[0] = -0.0f;
    }
    for (int64_t e = 0; e < out_numel; ++e) {
      got[e] = sentinel;
      want[e] = sentinel;
    }
    kernel(&a, NULL);
    if (exact) {
      etr_depthwise_nchw_scalar(&w);
    } else {
      oracle(&w);
    }
    bad += conv_test_compare_outs(got, want, out_numel, true,
                                  "no post vs %s, %s",
                                  exact ? "scalar" : "oracle", where);
    if (exact) {
      continue;  // the posts on random data only
    }
    for (int kind = 0; kind < 3; ++kind) {
      const etr_conv_post_t post =
          conv_test_post(kind, scale, shift, post_rows);
      memcpy(post_want, want, (size_t)out_numel * sizeof(float));
      conv_test_apply_post(&post, post_want, channels, g->out_h, g->out_w,
                           out_stride_c, out_stride_h);
      for (int64_t e = 0; e < out_numel; ++e) {
        got[e] = sentinel;
      }
      kernel(&a, &post);
      bad += conv_test_compare_outs(got, post_want, out_numel, true,
                                    "post %d, %s", kind, where);
    }
  }
  free(input);
  free(weight);
  free(bias);
  free(scale);
  free(shift);
  free(got);
  free(want);
  free(post_want);
  return bad;
}

#endif  // ETREF_OPS_OPTIMIZED_TEST_CONV_TEST_UTIL_H_
