// SPDX-License-Identifier: Apache-2.0
//
// AVX2's stem kernel (ops_optimized/conv/stem_avx2.c: tiles of 3 out rows
// x 8 columns x 4 out channels from a zero-padded band of CHUNK = 128
// columns). The op-level sweeps of diff_conv_stem_test.c reach it through
// aten::convolution.out on an AVX2 machine; here it is called directly:
//   - against a plain loop, bit for bit on exact data with NaN, +-inf and
//     -0.0 in the input, with input rows and planes and out rows and
//     planes apart by more than their sizes (the gaps must stay
//     untouched): the mobilenet stem, rows split in two and three chunks
//     (tails of 6 and 4 columns), out-channel tails of 1 and of a
//     second weight block (33), out rows past a tile, 5x5 on 2 channels,
//     ResNet's 7x7, 2x2 without padding, padding past the kernel;
//   - with a fused post (batch norm and clamp, either alone) against the
//     kernel followed by post_avx2.c's rows, bit for bit on random data;
//   - the geometries etr_conv_direct_takes declines on AVX2.
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "ops_optimized/conv/conv.h"
#include "ops_optimized/isa.h"
#include "ops_optimized/test/conv_test_util.h"

#define COUNT(array) (sizeof(array) / sizeof((array)[0]))

#if defined(__x86_64__)

enum {
  kRowGap = 5,     // floats between input rows
  kPlaneGap = 11,  // and after each input plane
  kOutRowGap = 3,
  kOutGap = 7,
  kMaxIn = 3 * (64 * (150 + kRowGap) + kPlaneGap),
  kMaxOut = 33 * (32 * (150 + kOutRowGap) + kOutGap),
  kMaxWeight = 33 * 3 * 49,
};
static const float kSentinel = 12345.0f;

typedef struct stem_case {
  int64_t channels, in_h, in_w, k, stride, pad, out_channels;
} stem_case_t;

static const stem_case_t kCases[] = {
    {3, 64, 64, 3, 2, 1, 16},   // mobilenet_v2's stem
    {3, 13, 150, 3, 1, 1, 5},   // chunks of 128, 22; 13 rows; 4 + 1 outs
    {3, 5, 300, 3, 1, 1, 5},    // chunks of 128, 128, 44
    {2, 17, 40, 5, 2, 2, 9},    // 5x5 s2, 20 columns (a tail of 4)
    {3, 40, 40, 7, 2, 3, 33},   // ResNet's 7x7 s2, a second weight block
    {1, 10, 9, 2, 1, 0, 3},     // 2x2, no padding, rows of exactly 8
    {3, 9, 23, 4, 2, 5, 6},     // padding past the kernel
    {3, 6, 139, 3, 2, 0, 4},    // s2, 69 columns: a tail of 5
};

static etr_conv2d_geometry_t geometry(const stem_case_t *s) {
  return (etr_conv2d_geometry_t){
      .channels = s->channels,
      .in_h = s->in_h,
      .in_w = s->in_w,
      .out_h = out_size(s->in_h, s->k, s->stride, s->pad, 1),
      .out_w = out_size(s->in_w, s->k, s->stride, s->pad, 1),
      .kernel_h = s->k,
      .kernel_w = s->k,
      .stride_h = s->stride,
      .stride_w = s->stride,
      .pad_h = s->pad,
      .pad_w = s->pad,
      .dilation_h = 1,
      .dilation_w = 1,
      .in_stride_c = s->in_h * (s->in_w + kRowGap) + kPlaneGap,
      .in_stride_h = s->in_w + kRowGap,
      .in_stride_w = 1,
      .w_stride_oc = s->channels * s->k * s->k,
      .w_stride_c = s->k * s->k,
      .w_stride_h = s->k,
      .w_stride_w = 1};
}

// Fills with multiples of 1/8 in [-2, 2) (exact: every partial sum of up
// to 147 products is exact in fp32) or random floats.
static void fill(float *x, int64_t n, bool exact, uint32_t seed) {
  uint32_t s = seed * 2654435761u + 1;
  for (int64_t i = 0; i < n; ++i) {
    s = s * 1664525u + 1013904223u;
    x[i] = exact ? (float)((int32_t)(s >> 27) - 16) / 8.0f
                 : (float)(s >> 8) / 8388608.0f - 1.0f;
  }
}

// The convolution as a plain loop: bias + the taps inside the image.
static void plain(const etr_depthwise_args_t *a) {
  const etr_conv2d_geometry_t *g = a->geometry;
  for (int64_t oc = 0; oc < a->channels; ++oc) {
    for (int64_t oh = 0; oh < g->out_h; ++oh) {
      for (int64_t ow = 0; ow < g->out_w; ++ow) {
        float sum = 0.0f;
        for (int64_t c = 0; c < g->channels; ++c) {
          for (int64_t kh = 0; kh < g->kernel_h; ++kh) {
            for (int64_t kw = 0; kw < g->kernel_w; ++kw) {
              int64_t ih = oh * g->stride_h - g->pad_h + kh;
              int64_t iw = ow * g->stride_w - g->pad_w + kw;
              if (ih < 0 || ih >= g->in_h || iw < 0 || iw >= g->in_w) {
                continue;
              }
              sum += a->input[c * g->in_stride_c + ih * g->in_stride_h + iw] *
                     a->weight[oc * g->w_stride_oc + c * g->w_stride_c +
                               kh * g->w_stride_h + kw];
            }
          }
        }
        a->out[oc * a->out_stride_c + oh * a->out_stride_h + ow] =
            sum + a->bias[oc];
      }
    }
  }
}

// `got` against `want` over the out planes, gaps included (they must hold
// the sentinel in both); any NaN matches any NaN.
static int compare_outs(const float *got, const float *want, int64_t numel,
                        const char *what, size_t i) {
  int bad = 0;
  for (int64_t e = 0; e < numel; ++e) {
    uint32_t a;
    uint32_t b;
    memcpy(&a, &got[e], sizeof a);
    memcpy(&b, &want[e], sizeof b);
    if (a != b && !(isnan(got[e]) && isnan(want[e]))) {
      if (bad++ < 3) {
        cr_log_error("%s, case %zu, at %lld: %a vs %a", what, i,
                     (long long)e, (double)got[e], (double)want[e]);
      }
    }
  }
  return bad;
}

TT_TEST(diff_conv_stem_avx2, against_a_plain_loop_and_with_a_post) {
  if (!etr_isa_available(ETR_ISA_AVX2)) {
    cr_log_warn("no AVX2 on this machine: the AVX2 stem kernel is not run");
    return;
  }
  static float input[kMaxIn];
  static float weight[kMaxWeight];
  static float bias[33];
  static float scale[33];
  static float shift[33];
  static float want[kMaxOut];
  static float got[kMaxOut];
  static float post_want[kMaxOut];
  int bad = 0;
  for (size_t i = 0; i < COUNT(kCases); ++i) {
    const stem_case_t *s = &kCases[i];
    etr_conv2d_geometry_t g = geometry(s);
    cr_assert(etr_conv_direct_takes(ETR_ISA_AVX2, &g), "case %zu declined",
              i);
    const int64_t out_stride_h = g.out_w + kOutRowGap;
    const int64_t out_stride_c = g.out_h * out_stride_h + kOutGap;
    const int64_t out_numel = s->out_channels * out_stride_c;
    cr_assert(out_numel <= kMaxOut && s->channels * g.in_stride_c <= kMaxIn);
    etr_depthwise_args_t a = {
        .geometry = &g, .input = input, .weight = weight, .bias = bias,
        .bias_stride = 1, .out = got, .out_stride_c = out_stride_c,
        .out_stride_h = out_stride_h, .out_stride_w = 1,
        .channels = s->out_channels, .multiplier = 1};
    etr_depthwise_args_t w = a;
    w.out = want;
    for (int exact = 1; exact >= 0; --exact) {
      const int64_t in_numel = s->channels * g.in_stride_c;
      fill(input, in_numel, exact, (uint32_t)i);
      fill(weight, s->out_channels * g.w_stride_oc, exact, (uint32_t)i + 100);
      fill(bias, s->out_channels, exact, (uint32_t)i + 200);
      fill(scale, s->out_channels, false, (uint32_t)i + 300);
      fill(shift, s->out_channels, false, (uint32_t)i + 400);
      if (exact) {
        input[in_numel / 2] = INFINITY;
        input[in_numel / 3] = NAN;
        input[in_numel / 5] = -0.0f;
        input[in_numel - g.in_stride_c / 2] = -INFINITY;
        bias[0] = -0.0f;
      }
      for (int64_t e = 0; e < out_numel; ++e) {
        got[e] = kSentinel;
        want[e] = kSentinel;
      }
      etr_conv_stem_nchw_avx2(&a);
      if (exact) {
        plain(&w);
        bad += compare_outs(got, want, out_numel, "no post vs loop", i);
      } else {
        memcpy(want, got, (size_t)out_numel * sizeof(float));
      }
      // Each post against the kernel's outs followed by the post.
      const float highs[] = {0.75f, INFINITY, 0.5f};
      for (int kind = 0; kind < 3; ++kind) {
        etr_conv_post_t post = {
            .scale = kind < 2 ? scale : NULL,
            .shift = kind < 2 ? shift : NULL,
            .low = kind == 1 ? -INFINITY : -0.25f,
            .high = highs[kind],
            .rows = etr_conv_post_rows_avx2,
        };
        memcpy(post_want, want, (size_t)out_numel * sizeof(float));
        for (int64_t c = 0; c < s->out_channels; ++c) {
          for (int64_t oh = 0; oh < g.out_h; ++oh) {
            etr_conv_post_rows_avx2(
                &post, (size_t)c,
                post_want + c * out_stride_c + oh * out_stride_h,
                (ptrdiff_t)out_stride_c, 1, (size_t)g.out_w);
          }
        }
        for (int64_t e = 0; e < out_numel; ++e) {
          got[e] = kSentinel;
        }
        etr_conv_stem_nchw_avx2_post(&a, &post);
        bad += compare_outs(got, post_want, out_numel,
                            exact ? "post, exact data" : "post, random data",
                            i);
      }
    }
  }
  cr_assert_eq(bad, 0, "%d outputs differ", bad);
}

TT_TEST(diff_conv_stem_avx2, declines) {
  // 4 channels, dilation 2, rows of 7, stride 3, 8x8, 3x5, mixed strides,
  // a column stride of 2.
  etr_conv2d_geometry_t g = geometry(&(stem_case_t){4, 32, 32, 3, 2, 1, 8});
  cr_expect(!etr_conv_direct_takes(ETR_ISA_AVX2, &g));
  g = geometry(&(stem_case_t){3, 32, 32, 3, 1, 1, 8});
  cr_expect(etr_conv_direct_takes(ETR_ISA_AVX2, &g));
  g.dilation_h = g.dilation_w = 2;
  cr_expect(!etr_conv_direct_takes(ETR_ISA_AVX2, &g));
  g = geometry(&(stem_case_t){3, 7, 7, 3, 1, 1, 8});
  cr_expect(!etr_conv_direct_takes(ETR_ISA_AVX2, &g));
  g = geometry(&(stem_case_t){3, 32, 32, 3, 3, 1, 8});
  cr_expect(!etr_conv_direct_takes(ETR_ISA_AVX2, &g));
  g = geometry(&(stem_case_t){3, 32, 32, 8, 1, 1, 8});
  cr_expect(!etr_conv_direct_takes(ETR_ISA_AVX2, &g));
  g = geometry(&(stem_case_t){3, 32, 32, 3, 1, 1, 8});
  g.kernel_w = 5;
  cr_expect(!etr_conv_direct_takes(ETR_ISA_AVX2, &g));
  g = geometry(&(stem_case_t){3, 32, 32, 3, 1, 1, 8});
  g.stride_h = 2;
  cr_expect(!etr_conv_direct_takes(ETR_ISA_AVX2, &g));
  g = geometry(&(stem_case_t){3, 32, 32, 3, 1, 1, 8});
  g.in_stride_w = 2;
  cr_expect(!etr_conv_direct_takes(ETR_ISA_AVX2, &g));
}

#else

TT_TEST(diff_conv_stem_avx2, not_x86) {
  cr_log_info("the AVX2 stem kernel is x86 only");
}

#endif
